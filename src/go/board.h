// A Go board of any size up to 19x19 with the rules trainbench's Go player uses:
//   - captures (of any number of stones) after each play;
//   - suicide is forbidden (a play that would leave its own chain without liberties and
//     captures nothing is illegal);
//   - simple ko, as MiniGo uses: right after a single stone captured a single stone and is left
//     with exactly one liberty, the opponent may not play at once on the captured point. (Not
//     positional superko: longer cycles are possible; games are bounded by a move limit.)
//   - Tromp-Taylor area scoring: a player's score is their stones plus the empty points that
//     reach only their stones; komi is added to White.
// Points are indices into a padded array (one border line around the board) so neighbours
// never need bounds checks. Chains keep pseudo-liberties with their sum and sum of squares,
// so "exactly one liberty" (atari) is O(1): pl * sum_sq == sum^2 (as in Pachi).
// Threading: a Board is a value; copy it freely, no shared state.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace trainbench::go {

enum Color : uint8_t { kEmpty = 0, kBlack = 1, kWhite = 2, kBorder = 3 };
inline Color Opponent(Color c) { return static_cast<Color>(3 - c); }
char ColorChar(Color c);  // '.', 'X', 'O'

constexpr int kMaxSize = 19;
constexpr int kStride = kMaxSize + 2;
constexpr int kPoints = kStride * kStride;
constexpr int kPass = -1;

class Board {
 public:
  explicit Board(int size = 9);

  int size() const { return size_; }
  // Row 0 is the top line (GTP row `size`), column 0 the left (GTP column A).
  static int Index(int row, int col) { return (row + 1) * kStride + col + 1; }
  static int Row(int p) { return p / kStride - 1; }
  static int Col(int p) { return p % kStride - 1; }
  bool OnBoard(int p) const { return p >= 0 && p < kPoints && color_[p] != kBorder; }
  Color at(int p) const { return color_[p]; }
  Color at(int row, int col) const { return color_[Index(row, col)]; }

  // Empty, not the ko point for `c`, and not suicide. kPass is always legal.
  bool IsLegal(Color c, int p) const;
  // Plays `c` at `p` (kPass: a pass, which clears the ko). Returns false and changes nothing
  // when the play is illegal.
  bool Play(Color c, int p);
  // Play for a point known to be legal for `c` (IsLegal(c, p), not a pass), without checking.
  void PlayLegal(Color c, int p);
  // Puts a stone without capturing or checking (SGF setup: AB/AW); `kEmpty` clears (AE).
  // Returns false if the result would have a chain without liberties.
  bool Setup(Color c, int p);
  std::vector<int> LegalMoves(Color c) const;  // excluding pass

  int ko_point() const { return ko_point_; }  // kPass when none
  int captured_by(Color c) const { return captured_[c]; }
  int stones(Color c) const;
  // Number of distinct liberties of the chain at p (p must hold a stone).
  int Liberties(int p) const;
  // Stones of the chain at p.
  std::vector<int> Chain(int p) const;

  // Tromp-Taylor area: black points - (white points + komi).
  double Score(double komi) const;
  // Owner of each on-board point under Tromp-Taylor (kEmpty: dame/neutral), row-major.
  std::vector<Color> Territory() const;

  uint64_t hash() const { return hash_; }  // Zobrist hash of the stones (not ko/player)
  const std::array<Color, kPoints>& colors() const { return color_; }
  bool operator==(const Board& o) const;

  // *this = o, copying only the part of the padded arrays that a board of o's size uses (rows
  // 0..size+1, UsedPoints() entries; the rest is border, which no play or setup changes) when
  // *this has o's size already, a full copy otherwise. The same board, with a 9x9 board about
  // half of the memory traffic of `*this = o`.
  void AssignUsed(const Board& o);
  int UsedPoints() const { return (size_ + 2) * kStride; }

  // Rows top to bottom, '.' empty, 'X' black, 'O' white, separated by newlines (spaces are
  // ignored). FromText throws core::Error naming the row and column of a bad character, a
  // ragged row, a size outside 1..19, or a chain without liberties.
  std::string ToText() const;
  static Board FromText(const std::string& text);

 private:
  int Head(int p) const { return head_[p]; }
  bool InAtari(int h) const;
  void AddLiberty(int h, int p);
  void RemoveLiberty(int h, int p);
  void PlaceStone(Color c, int p);
  void Merge(int a, int b);
  int RemoveChain(int h);

  int size_;
  std::array<Color, kPoints> color_{};
  std::array<int16_t, kPoints> head_{};   // chain head of each stone
  std::array<int16_t, kPoints> next_{};   // circular list of the chain's stones
  std::array<int16_t, kPoints> count_{};  // stones, at the head
  std::array<int32_t, kPoints> pl_{};     // pseudo-liberties, at the head
  std::array<int64_t, kPoints> pl_sum_{}, pl_sq_{};
  int ko_point_ = kPass;
  Color ko_color_ = kEmpty;  // the player the ko point is forbidden to
  std::array<int, 3> captured_{};
  uint64_t hash_ = 0;
};

// Zobrist key of a stone (fixed table, the same in every process).
uint64_t ZobristKey(Color c, int p);

}  // namespace trainbench::go

// A game of Go: the board, whose turn it is, passes, resignation and the result, with komi
// (default 7.5) and Tromp-Taylor area scoring (board.h). Coordinates in the notations the
// tools use:
//   GTP: "D4" (column letter A..T without I, row number from the bottom), "pass";
//   SGF: "dc" (column letter, row letter from the top, both a..s), "" or "tt" for pass.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "go/board.h"

namespace trainbench::go {

struct Move {
  Color color = kBlack;
  int point = kPass;  // Board index or kPass
  bool operator==(const Move& o) const { return color == o.color && point == o.point; }
};

// GTP vertex <-> point; nullopt for a malformed vertex or one outside the board.
std::optional<int> ParseGtpVertex(const std::string& v, int size);  // "pass" -> kPass
std::string GtpVertex(int point, int size);                         // kPass -> "pass"
char GtpColumn(int col);                                            // 0 -> 'A', 8 -> 'J' (no I)
std::optional<int> ParseSgfPoint(const std::string& v,
                                 int size);  // "" / "tt" (size <= 19) -> kPass
std::string SgfPoint(int point);             // kPass -> ""

// Komi as GTP and the command line give it: a decimal number ("7.5", "-3", "0.5e1"), finite and
// within +-kMaxKomi (a board of 19x19 has 361 points). nullopt for anything else: "nan", "inf",
// "0x10" (which strtod would take), "7.5x", "".
inline constexpr double kMaxKomi = 1000;
std::optional<double> ParseKomi(const std::string& text);

class Game {
 public:
  explicit Game(int size = 9, double komi = 7.5);
  // From a set-up position (SGF AB/AW) with `to_play` to move.
  Game(const Board& setup, Color to_play, double komi);

  const Board& board() const { return board_; }
  const Board& initial() const { return initial_; }
  Color to_play() const { return to_play_; }
  double komi() const { return komi_; }
  void set_komi(double k) { komi_ = k; }
  const std::vector<Move>& moves() const { return moves_; }
  int consecutive_passes() const { return passes_; }

  // Plays for `m.color` (which becomes the mover even out of turn, as GTP `play` allows);
  // false when illegal (nothing changes) or the game is over.
  bool Play(const Move& m);
  bool Play(int point) { return Play(Move{to_play_, point}); }
  void Resign(Color c);

  // Over after two consecutive passes or a resignation.
  bool over() const { return passes_ >= 2 || resigned_ != kEmpty; }
  Color resigned() const { return resigned_; }
  // Black's Tromp-Taylor margin (black - white - komi).
  double Score() const { return board_.Score(komi_); }
  // "B+3.5", "W+0.5", "B+R", "0" (a tie, only with integer komi); scored now if not over.
  std::string Result() const;
  Color Winner() const;  // kEmpty for a tie

 private:
  Board initial_;
  Board board_;
  Color to_play_ = kBlack;
  double komi_;
  std::vector<Move> moves_;
  int passes_ = 0;
  Color resigned_ = kEmpty;
};

}  // namespace trainbench::go

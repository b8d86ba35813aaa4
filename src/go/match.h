// Games between a trainbench player and an external GTP engine (e.g. GNU Go), and a light
// random player (uniform over legal moves that do not fill the player's own single-point eyes),
// used as a baseline and in tests.
#pragma once

#include <cstdint>
#include <random>
#include <string>

#include "go/game.h"
#include "go/gtp.h"

namespace trainbench::go {

// True when `p` is empty and every neighbour is `c`'s stone or the edge, and at most one
// diagonal (none on the edge) is the opponent's: a point `c` should not fill.
bool IsOwnEye(const Board& b, Color c, int p);

// Uniform over legal non-eye-filling moves; passes when there is none.
class RandomPlayer {
 public:
  explicit RandomPlayer(uint64_t seed) : rng_(seed) {}
  int operator()(const Game& g, Color c);

 private:
  std::mt19937_64 rng_;
};

// Sends boardsize, clear_board and komi (always: GNU Go's default komi is 0).
void SetUpOpponent(GtpClient& engine, int size, double komi);
// Asks `engine` for `c`'s move in `g`: a legal point, kPass or kResign. Throws core::Error
// naming the engine, the command and the answer for a malformed or illegal move.
int GenMove(GtpClient& engine, const Game& g, Color c);

struct MatchOptions {
  int size = 9;
  double komi = 7.5;
  int max_moves = 0;  // 0: 3 * size * size; then the game is scored as it stands
};

// Plays one game: `ours` (with colour `our_color`) against `opponent`, which is set up with
// boardsize, clear_board and komi (GNU Go's default komi is 0, so it is always sent). The game
// ends with two passes, a resignation, or the move limit. Throws core::Error naming the command
// and the answer when the opponent fails, crashes, hangs, or answers an illegal or malformed
// move.
Game PlayMatch(GtpClient& opponent, const MoveGenerator& ours, Color our_color,
               const MatchOptions& o);

}  // namespace trainbench::go

// The mini benchmark's "expert" games: GNU Go playing itself over GTP (one process chooses the
// moves of both colours), recorded as SGF, and the positions of a set of games as
// (position, next move) pairs for move-prediction accuracy.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "go/game.h"
#include "go/sgf.h"

namespace trainbench::go {

struct GnuGoOptions {
  std::string binary = "/usr/games/gnugo";
  int level = 1;
  int size = 9;
  double komi = 7.5;
  int max_moves = 0;      // 0: 3 * size * size
  double timeout_s = 60;  // per GTP command
};

// One game of GNU Go against itself with `seed`; ends with two passes, a resignation or the
// move limit. Throws core::Error naming the command when GNU Go fails (see GtpClient).
Game GnuGoSelfPlay(const GnuGoOptions& o, uint64_t seed);

// A position and the move the expert played there.
struct LabelledPosition {
  Game game;  // the game up to (not including) the move
  Move next;
  std::string source;  // "file:line"
};

// Every position of every game in the SGF files, in file order. A bad file is a
// core::FileError naming the file and line (and move for an illegal one).
std::vector<LabelledPosition> PositionsOf(const std::vector<std::string>& sgf_files);

}  // namespace trainbench::go

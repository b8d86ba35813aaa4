// The mini MiniGo dataset (`trainbench prepare go`): held-out "expert" games for the
// move-prediction metric, recorded from GNU Go playing itself (seeded, at a fixed level, Chinese
// rules, komi sent over GTP), one SGF file per game in <dir>/test, and <dir>/dataset.json with
// the options and GNU Go's version (written last: a folder without it is incomplete and is
// recorded again). A folder whose dataset.json differs from the options asked for is an error
// naming the first differing key; one that matches is verified (every game is read and
// replayed, so a damaged file is named with its line).
// The full scale reads an expert SGF collection the user provides (any folder of .sgf files);
// CheckExpertCollection reads and replays all of it.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "core/json.h"

namespace trainbench::go {

struct GoMiniOptions {
  std::string gnugo = "/usr/games/gnugo";
  int size = 9;
  double komi = 7.5;
  int level = 1;      // GNU Go's --level
  uint64_t seed = 1;  // game k (1-based) uses GNU Go seed `seed * 100000 + k`
  int games = 100;    // held-out games
  int threads = 2;    // GNU Go processes at a time
};

struct GoDatasetSummary {
  int64_t games = 0, positions = 0;
  bool generated = false;
  double seconds = 0;
  core::Json dataset;  // dataset.json's content
};

// Makes (or verifies) the mini dataset in `dir`; progress lines go to `log` (may be null).
GoDatasetSummary PrepareGoMini(const std::string& dir, const GoMiniOptions& o, std::FILE* log);

// The .sgf files under `dir` (recursively), sorted; throws naming `dir` if there are none.
std::vector<std::string> SgfFilesUnder(const std::string& dir);

// Reads and replays every game of an expert collection; every game must be `size`x`size`.
// Throws naming the file and line of the first bad record or move.
GoDatasetSummary CheckExpertCollection(const std::string& dir, int size);

// GNU Go's version string (GTP `version`), e.g. "3.8".
std::string GnuGoVersion(const std::string& binary);

}  // namespace trainbench::go

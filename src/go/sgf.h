// SGF (FF[4]) game records of Go (GM[1]): reading and writing the parts a game record needs:
// board size (SZ), komi (KM), rules (RU), players (PB, PW), result (RE), handicap/setup stones
// (AB, AW, AE) and the player to move first (PL) in the root node, then the moves (B, W; an
// empty value or "tt" is a pass). A file may hold several games (a collection); of a game with
// variations the main line (the first variation at each branch) is read, the others are only
// checked for syntax.
// Errors are core::FileError naming the file and the line: a syntax error, an unsupported value
// (GM other than 1, a size outside 1..19, a rectangular board), a malformed point, setup stones
// after the first move, and, when a game is replayed, an illegal move, with its number and why.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "go/game.h"

namespace trainbench::go {

struct SgfMove {
  Move move;
  int line = 0;  // where the property is in the file
};

struct SgfRecord {
  int size = 19;
  double komi = 0;  // SGF's default when KM is absent
  std::string rules, black, white, result;
  std::vector<std::pair<Color, int>> setup;  // AB / AW stones (AE is applied while reading)
  Color first = kBlack;  // PL, else black (white when there are setup stones and no PL? no: black)
  std::vector<SgfMove> moves;
  int line = 0;  // the game's first line
};

// Parses every game in `text`; `file` names the source in errors.
std::vector<SgfRecord> ParseSgf(const std::string& text, const std::string& file);
std::vector<SgfRecord> ReadSgfFile(const std::string& path);

// Replays a record's moves from its setup; throws core::FileError naming the file, the line
// and "move N (W[dd])" with the reason (occupied, ko, suicide) for an illegal move.
// `before_move`, when given, sees the game just before each move is played.
Game Replay(const SgfRecord& r, const std::string& file,
            const std::function<void(const Game&, const SgfMove&)>& before_move = {});

// An SGF record of `g` (root properties from `g` and the names; RE from `result` when not
// empty, else the game's result if it is over).
std::string WriteSgf(const Game& g, const std::string& black = "", const std::string& white = "",
                     const std::string& result = "", const std::string& rules = "Chinese");

// Why `c` may not play at `p` on `b` ("point occupied", "ko", "suicide", "off the board"), or ""
// when the play is legal.
std::string IllegalReason(const Board& b, Color c, int p);

}  // namespace trainbench::go

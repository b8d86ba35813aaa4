// The Go Text Protocol (GTP version 2): an engine side that lets any GTP tool play a
// trainbench player, and a client side that drives another engine (e.g. GNU Go) as a child
// process.
//
// Engine commands: protocol_version, name, version, known_command, list_commands, boardsize,
// clear_board, komi, play, genmove, undo, final_score, showboard, quit. Requests may carry a
// numeric id ("12 genmove b" -> "=12 D4"); comments (#...) and control characters are removed,
// empty lines ignored, as the specification says.
#pragma once

#include <sys/types.h>

#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "go/game.h"

namespace trainbench::go {

constexpr int kResign = -2;

// Chooses a move for `c` in `g` (a legal point, kPass or kResign).
using MoveGenerator = std::function<int(const Game& g, Color c)>;

class GtpEngine {
 public:
  GtpEngine(std::string name, std::string version, MoveGenerator genmove, int size = 9,
            double komi = 7.5);

  // One request line -> the full response ("= ...\n\n" or "? ...\n\n"); "" for an empty line.
  std::string Handle(const std::string& line);
  // Serves requests from `in` until quit or end of input.
  void Serve(std::istream& in, std::ostream& out);

  bool quit() const { return quit_; }
  const Game& game() const { return game_; }
  // Only boardsize `size` is accepted from now on (others: "? unacceptable size", as GTP asks of
  // an engine that cannot play them), for players whose network is sized for one board.
  void set_fixed_size(int size) { fixed_size_ = size; }

 private:
  std::string Dispatch(const std::string& cmd, const std::vector<std::string>& args, bool* ok);

  std::string name_, version_;
  MoveGenerator genmove_;
  Game game_;
  int fixed_size_ = 0;  // 0: any size within 2..kMaxSize
  bool quit_ = false;
};

// Board diagram with GTP coordinates (for showboard and logs).
std::string ShowBoard(const Board& b);

class GtpClient {
 public:
  // Starts `argv` (argv[0] found on PATH or a path) with pipes to its stdin/stdout, in its own
  // process group (killed as a whole); stderr is inherited. Throws core::Error when it cannot
  // be started.
  GtpClient(std::vector<std::string> argv, double timeout_s);
  ~GtpClient();  // sends quit, waits a moment, then kills
  GtpClient(const GtpClient&) = delete;
  GtpClient& operator=(const GtpClient&) = delete;

  // Sends `command` and returns the answer's text (after "= "). Throws core::Error naming the
  // engine, the command and the answer for a GTP error ("? ..."), or why there was no answer:
  // the engine exited (its exit code or signal), or did not answer within the timeout (it is
  // then killed).
  std::string Send(const std::string& command);
  const std::string& name() const { return label_; }

 private:
  [[noreturn]] void Dead(const std::string& command, const std::string& why);

  std::string label_;
  double timeout_s_;
  pid_t pid_ = -1;
  int to_ = -1, from_ = -1;
  std::string buffer_;
  bool dead_ = false;
};

}  // namespace trainbench::go

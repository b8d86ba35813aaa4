#include "go/gtp.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <istream>
#include <ostream>
#include <sstream>
#include <thread>

#include "core/error.h"
#include "go/sgf.h"

namespace trainbench::go {

namespace {

const std::vector<std::string> kCommands = {
    "protocol_version", "name", "version", "known_command", "list_commands", "boardsize",
    "clear_board",      "komi", "play",    "genmove",       "undo",          "final_score",
    "showboard",        "quit"};

std::optional<Color> ParseColor(const std::string& s) {
  std::string l;
  for (char c : s) l += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (l == "b" || l == "black") return kBlack;
  if (l == "w" || l == "white") return kWhite;
  return std::nullopt;
}

}  // namespace

std::string ShowBoard(const Board& b) {
  const int n = b.size();
  std::string head = "   ";
  for (int c = 0; c < n; ++c) head += std::string(" ") + GtpColumn(c);
  std::string s = head + "\n";
  for (int r = 0; r < n; ++r) {
    char num[16];
    std::snprintf(num, sizeof(num), "%2d ", n - r);
    s += num;
    for (int c = 0; c < n; ++c) s += std::string(" ") + ColorChar(b.at(r, c));
    s += std::string(" ") + num + "\n";
  }
  return s + head;
}

GtpEngine::GtpEngine(std::string name, std::string version, MoveGenerator genmove, int size,
                     double komi)
    : name_(std::move(name)),
      version_(std::move(version)),
      genmove_(std::move(genmove)),
      game_(size, komi) {}

std::string GtpEngine::Dispatch(const std::string& cmd, const std::vector<std::string>& a,
                                bool* ok) {
  *ok = true;
  auto fail = [&](const std::string& msg) {
    *ok = false;
    return msg;
  };
  if (cmd == "protocol_version") return "2";
  if (cmd == "name") return name_;
  if (cmd == "version") return version_;
  if (cmd == "known_command") {
    if (a.empty()) return fail("syntax error");
    for (const auto& c : kCommands) {
      if (c == a[0]) return "true";
    }
    return "false";
  }
  if (cmd == "list_commands") {
    std::string s;
    for (const auto& c : kCommands) s += (s.empty() ? "" : "\n") + c;
    return s;
  }
  if (cmd == "boardsize") {
    int n = 0;
    try {
      if (a.empty()) throw std::invalid_argument("");
      size_t used = 0;
      n = std::stoi(a[0], &used);
      if (used != a[0].size()) throw std::invalid_argument("");
    } catch (const std::exception&) {
      return fail("syntax error");
    }
    if (n < 2 || n > kMaxSize || (fixed_size_ > 0 && n != fixed_size_))
      return fail("unacceptable size");
    game_ = Game(n, game_.komi());
    return "";
  }
  if (cmd == "clear_board") {
    game_ = Game(game_.board().size(), game_.komi());
    return "";
  }
  if (cmd == "komi") {
    // "komi nan" was taken (and the game scored "W+nan"), as were "inf" and "0x10".
    const std::optional<double> k = a.size() == 1 ? ParseKomi(a[0]) : std::nullopt;
    if (!k) return fail("syntax error");
    game_.set_komi(*k);
    return "";
  }
  if (cmd == "play") {
    if (a.size() < 2) return fail("syntax error");
    auto c = ParseColor(a[0]);
    auto p = ParseGtpVertex(a[1], game_.board().size());
    if (!c || !p) return fail("syntax error");
    if (!game_.Play(Move{*c, *p})) return fail("illegal move");
    return "";
  }
  if (cmd == "genmove") {
    if (a.empty()) return fail("syntax error");
    auto c = ParseColor(a[0]);
    if (!c) return fail("syntax error");
    if (game_.over()) return fail("game is over");
    int p = genmove_(game_, *c);
    if (p == kResign) {
      game_.Resign(*c);
      return "resign";
    }
    if (!game_.Play(Move{*c, p})) return fail("internal error: the player chose an illegal move");
    return GtpVertex(p, game_.board().size());
  }
  if (cmd == "undo") {
    if (game_.moves().empty()) return fail("cannot undo");
    std::vector<Move> moves = game_.moves();
    moves.pop_back();
    Game g(game_.initial(), moves.empty() ? game_.to_play() : moves[0].color, game_.komi());
    for (const auto& m : moves) g.Play(m);
    game_ = g;
    return "";
  }
  if (cmd == "final_score") return game_.Result();
  if (cmd == "showboard") return "\n" + ShowBoard(game_.board());
  if (cmd == "quit") {
    quit_ = true;
    return "";
  }
  return fail("unknown command");
}

std::string GtpEngine::Handle(const std::string& raw) {
  std::string line;
  for (char c : raw) {
    if (c == '#') break;
    if (c == '\t') c = ' ';
    if (static_cast<unsigned char>(c) < 32 && c != '\n') continue;
    if (c == '\n') continue;
    line += c;
  }
  std::istringstream in(line);
  std::vector<std::string> words;
  std::string w;
  while (in >> w) words.push_back(w);
  if (words.empty()) return "";
  std::string id;
  if (std::all_of(words[0].begin(), words[0].end(),
                  [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
    id = words[0];
    words.erase(words.begin());
    if (words.empty()) return "?" + id + " syntax error\n\n";
  }
  const std::string cmd = words[0];
  words.erase(words.begin());
  bool ok = true;
  std::string answer = Dispatch(cmd, words, &ok);
  return (ok ? "=" : "?") + id + (answer.empty() ? "" : " " + answer) + "\n\n";
}

void GtpEngine::Serve(std::istream& in, std::ostream& out) {
  std::string line;
  while (!quit_ && std::getline(in, line)) {
    std::string r = Handle(line);
    if (!r.empty()) out << r << std::flush;
  }
}

GtpClient::GtpClient(std::vector<std::string> argv, double timeout_s) : timeout_s_(timeout_s) {
  if (argv.empty()) throw core::Error("GTP client: no command");
  for (const auto& a : argv) label_ += (label_.empty() ? "" : " ") + a;
  int in_pipe[2], out_pipe[2], err_pipe[2];
  if (::pipe2(in_pipe, O_CLOEXEC) != 0 || ::pipe2(out_pipe, O_CLOEXEC) != 0 ||
      ::pipe2(err_pipe, O_CLOEXEC) != 0) {
    throw core::Error("GTP client: pipe failed: " + std::string(std::strerror(errno)));
  }
  pid_ = ::fork();
  if (pid_ < 0) throw core::Error("GTP client: fork failed: " + std::string(std::strerror(errno)));
  if (pid_ == 0) {
    // Its own process group, so a kill also reaches what the engine started (a shell wrapper's
    // children).
    ::setpgid(0, 0);
    ::dup2(in_pipe[0], 0);
    ::dup2(out_pipe[1], 1);
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    int e = errno;
    (void)!::write(err_pipe[1], &e, sizeof(e));
    ::_exit(127);
  }
  ::setpgid(pid_, pid_);  // also here: whichever runs first, the group exists before any kill
  ::close(in_pipe[0]);
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  to_ = in_pipe[1];
  from_ = out_pipe[0];
  int e = 0;
  ssize_t n = ::read(err_pipe[0], &e, sizeof(e));  // EOF (0) when exec succeeded
  ::close(err_pipe[0]);
  if (n == static_cast<ssize_t>(sizeof(e))) {
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
    ::close(to_);
    ::close(from_);
    throw core::Error("GTP engine \"" + label_ + "\": cannot start: " + std::strerror(e));
  }
  ::signal(SIGPIPE, SIG_IGN);  // a dead engine must give an error, not kill us
}

GtpClient::~GtpClient() {
  if (pid_ > 0) {
    if (!dead_) {
      const char q[] = "quit\n";
      (void)!::write(to_, q, sizeof(q) - 1);
    }
    ::close(to_);
    for (int i = 0; i < 50; ++i) {
      if (::waitpid(pid_, nullptr, WNOHANG) == pid_) {
        pid_ = -1;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (pid_ > 0) {
      ::kill(-pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  if (from_ >= 0) ::close(from_);
}

void GtpClient::Dead(const std::string& command, const std::string& why) {
  dead_ = true;
  throw core::Error("GTP engine \"" + label_ + "\": command \"" + command + "\": " + why);
}

std::string GtpClient::Send(const std::string& command) {
  if (dead_) Dead(command, "the engine already failed");
  std::string line = command + "\n";
  size_t done = 0;
  while (done < line.size()) {
    ssize_t n = ::write(to_, line.data() + done, line.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      Dead(command,
           "cannot write to the engine (it has exited?): " + std::string(std::strerror(errno)));
    }
    done += static_cast<size_t>(n);
  }
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::milliseconds(static_cast<int64_t>(timeout_s_ * 1000));
  while (true) {
    // A response ends with an empty line.
    size_t end = buffer_.find("\n\n");
    if (end != std::string::npos) {
      std::string resp = buffer_.substr(0, end);
      buffer_.erase(0, end + 2);
      std::string clean;
      for (char c : resp) {
        if (c != '\r') clean += c;
      }
      if (clean.empty() || (clean[0] != '=' && clean[0] != '?')) {
        Dead(command, "malformed answer \"" + clean + "\"");
      }
      size_t text = 1;
      while (text < clean.size() && std::isdigit(static_cast<unsigned char>(clean[text]))) ++text;
      std::string body = text < clean.size() ? clean.substr(text) : "";
      if (!body.empty() && body[0] == ' ') body.erase(0, 1);
      if (clean[0] == '?')
        throw core::Error("GTP engine \"" + label_ + "\": command \"" + command + "\" failed: ? " +
                          body);
      return body;
    }
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    deadline - std::chrono::steady_clock::now())
                    .count();
    if (left <= 0) {
      ::kill(-pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
      pid_ = -1;
      char buf[64];
      std::snprintf(buf, sizeof(buf), "no answer within %g s (engine killed)", timeout_s_);
      Dead(command, buf);
    }
    struct pollfd pfd {
      from_, POLLIN, 0
    };
    int r = ::poll(&pfd, 1, static_cast<int>(left));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) continue;
    char buf[4096];
    ssize_t n = ::read(from_, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int status = 0;
      ::waitpid(pid_, &status, 0);
      pid_ = -1;
      std::string how = WIFSIGNALED(status)
                            ? "killed by signal " + std::to_string(WTERMSIG(status))
                            : "exited with code " + std::to_string(WEXITSTATUS(status));
      Dead(command, "the engine " + how + " before answering");
    }
    buffer_.append(buf, static_cast<size_t>(n));
  }
}

}  // namespace trainbench::go

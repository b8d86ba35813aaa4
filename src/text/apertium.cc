#include "text/apertium.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <functional>
#include <sstream>

#include "core/error.h"

extern char** environ;

namespace trainbench::text {

namespace {

class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { Close(); }
  void Reset(int fd) {
    Close();
    fd_ = fd;
  }
  int get() const { return fd_; }
  void Close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

void MakePipe(Fd* read_end, Fd* write_end) {
  int p[2];
  if (::pipe2(p, O_CLOEXEC) != 0) throw core::Error(std::string("pipe: ") + std::strerror(errno));
  read_end->Reset(p[0]);
  write_end->Reset(p[1]);
}

// Blocks SIGPIPE in this thread while alive (a write to a child that exited then fails with
// EPIPE instead of killing us); discards a SIGPIPE raised meanwhile.
class SigpipeBlock {
 public:
  SigpipeBlock() {
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &s, &old_);
  }
  ~SigpipeBlock() {
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGPIPE);
    timespec zero{0, 0};
    while (sigtimedwait(&s, nullptr, &zero) > 0) {
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }

 private:
  sigset_t old_;
};

std::string Joined(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& a : argv) s += (s.empty() ? "" : " ") + a;
  return s;
}

}  // namespace

CommandResult RunCommand(const std::vector<std::string>& argv, const std::string& input,
                         double timeout_s, const std::string& install_hint) {
  TB_CHECK(!argv.empty(), "RunCommand without a program");
  Fd in_r, in_w, out_r, out_w, err_r, err_w;
  MakePipe(&in_r, &in_w);
  MakePipe(&out_r, &out_w);
  MakePipe(&err_r, &err_w);

  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, in_r.get(), 0);
  posix_spawn_file_actions_adddup2(&fa, out_w.get(), 1);
  posix_spawn_file_actions_adddup2(&fa, err_w.get(), 2);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none, dfl;
  sigemptyset(&none);
  sigemptyset(&dfl);
  sigaddset(&dfl, SIGPIPE);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &dfl);
  posix_spawnattr_setpgroup(&attr, 0);  // its own group, so that a timeout kills the whole pipeline
  posix_spawnattr_setflags(&attr,
                           POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawnp(&pid, argv[0].c_str(), &fa, &attr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    std::string msg = argv[0] + ": cannot run: " + std::strerror(rc);
    if (rc == ENOENT) msg = argv[0] + ": command not found";
    if (!install_hint.empty()) msg += " (" + install_hint + ")";
    throw core::Error(msg);
  }
  in_r.Close();
  out_w.Close();
  err_w.Close();
  fcntl(in_w.get(), F_SETFL, O_NONBLOCK);

  CommandResult result;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  size_t written = 0;
  if (input.empty()) in_w.Close();
  bool timed_out = false;
  {
    SigpipeBlock block;
    char buf[65536];
    while (out_r.get() >= 0 || err_r.get() >= 0) {
      pollfd fds[3];
      int n = 0;
      int i_in = -1, i_out = -1, i_err = -1;
      if (in_w.get() >= 0) fds[i_in = n++] = {in_w.get(), POLLOUT, 0};
      if (out_r.get() >= 0) fds[i_out = n++] = {out_r.get(), POLLIN, 0};
      if (err_r.get() >= 0) fds[i_err = n++] = {err_r.get(), POLLIN, 0};
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                            deadline - std::chrono::steady_clock::now())
                            .count();
      if (left <= 0) {
        timed_out = true;
        break;
      }
      const int pr = ::poll(fds, n, static_cast<int>(std::min<long long>(left, 1000)));
      if (pr < 0) {
        if (errno == EINTR) continue;
        const std::string why = std::strerror(errno);
        ::kill(-pid, SIGKILL);
        int st = 0;
        while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
        }
        throw core::Error(Joined(argv) + ": poll: " + why);
      }
      if (i_in >= 0 && (fds[i_in].revents & (POLLOUT | POLLERR | POLLHUP))) {
        const ssize_t w = ::write(in_w.get(), input.data() + written, input.size() - written);
        if (w > 0) written += static_cast<size_t>(w);
        if ((w < 0 && errno != EAGAIN && errno != EINTR) || written == input.size()) in_w.Close();
      }
      auto drain = [&](int idx, Fd* fd, std::string* to) {
        if (idx < 0 || !(fds[idx].revents & (POLLIN | POLLERR | POLLHUP))) return;
        const ssize_t r = ::read(fd->get(), buf, sizeof buf);
        if (r > 0) {
          to->append(buf, static_cast<size_t>(r));
        } else if (r == 0 || (errno != EAGAIN && errno != EINTR)) {
          fd->Close();
        }
      };
      drain(i_out, &out_r, &result.out);
      drain(i_err, &err_r, &result.err);
    }
  }
  if (timed_out) ::kill(-pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out) {
    std::ostringstream os;
    os << Joined(argv) << ": timed out after " << timeout_s << " s (killed)";
    throw core::Error(os.str());
  }
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

std::string CollapseSpaces(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  bool space = false;
  for (char c : s) {
    if (IsSpace(c) || c == '\n') {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

std::vector<std::string> SplitOutputLines(const std::string& out) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < out.size()) {
    size_t end = out.find('\n', start);
    if (end == std::string::npos) end = out.size();
    lines.push_back(out.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

}  // namespace

std::vector<std::string> TranslateLines(const std::vector<std::string>& lines,
                                        const ApertiumOptions& options, TranslationStats* stats) {
  TranslationStats local;
  TranslationStats& st = stats ? *stats : local;
  // The default txt format, not `-f line`: Apertium 3.8's line format drops a sentence's
  // final period. In txt mode a newline is a superblank that comes back as a newline.
  const std::vector<std::string> argv = {options.command, "-u", options.pair};
  const std::string hint = "install the Debian packages apertium and apertium-" + options.pair;
  std::vector<std::string> result(lines.size());

  std::function<void(size_t, size_t)> translate = [&](size_t begin, size_t end) {
    std::string input;
    for (size_t i = begin; i < end; ++i) {
      TB_CHECK(lines[i].find('\n') == std::string::npos, "line " << i << " holds a newline");
      input += lines[i];
      input += '\n';
    }
    CommandResult r = RunCommand(argv, input, options.timeout_s, hint);
    ++st.calls;
    if (r.exit_code != 0) {
      std::string err = r.err.size() > 2000 ? r.err.substr(0, 2000) + "..." : r.err;
      while (!err.empty() && (err.back() == '\n' || IsSpace(err.back()))) err.pop_back();
      throw core::Error(Joined(argv) + ": exit code " + std::to_string(r.exit_code) +
                        (err.empty() ? "" : ": " + err) + " (" + hint + ")");
    }
    std::vector<std::string> out = SplitOutputLines(r.out);
    if (out.size() == end - begin) {
      for (size_t i = begin; i < end; ++i) result[i] = CollapseSpaces(out[i - begin]);
      return;
    }
    ++st.misaligned;
    if (end - begin == 1) {
      // One line in, several (or none) out: they all belong to it.
      if (out.size() > 1) ++st.split_lines;
      result[begin] = CollapseSpaces(r.out);
      return;
    }
    const size_t mid = begin + (end - begin) / 2;
    translate(begin, mid);
    translate(mid, end);
  };
  const size_t chunk = options.chunk_lines == 0 ? 1 : options.chunk_lines;
  for (size_t b = 0; b < lines.size(); b += chunk) translate(b, std::min(lines.size(), b + chunk));
  for (const auto& t : result) {
    if (t.empty()) ++st.empty_lines;
  }
  return result;
}

}  // namespace trainbench::text

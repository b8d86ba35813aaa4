#include "runner/workers.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iostream>
#include <optional>
#include <thread>

#include "core/error.h"
#include "runner/format.h"
#include "runner/result_files.h"

namespace trainbench::runner {

namespace {

constexpr int kBadInput = 2;  // the CLI's exit code for a core::Error

// The forked child: it must never return into the launcher's stack (it would go on with the
// launcher's loop). noexcept: an exception that is no std::exception ends it in std::terminate,
// as it would have ended the CLI.
[[noreturn]] void ChildMain(const WorkerFn& fn, const WorkerContext& ctx) noexcept {
  int code = kWorkerFailed;
  try {
    code = fn(ctx);
  } catch (const core::Error& e) {
    std::cerr << "trainbench: " << e.what() << "\n";
    code = kBadInput;
  } catch (const std::exception& e) {
    std::cerr << "trainbench: error: " << e.what() << "\n";
    code = kWorkerFailed;
  }
  if (ctx.log_fd >= 0) ::close(ctx.log_fd);
  std::cout.flush();
  std::cerr.flush();
  ::_exit(code);
}

bool EndedCleanly(int status) {
  if (!WIFEXITED(status)) return false;
  const int code = WEXITSTATUS(status);
  return code == kWorkerOk || code == kWorkerFailed || code == kWorkerInterrupted;
}

}  // namespace

Workers StartWorkers(const std::vector<int>& ranks, int log_fd, const WorkerContext& run,
                     const WorkerFn& fn) {
  Workers w;
  w.pids.assign(ranks.size(), 0);
  std::vector<int> siblings;
  for (size_t i = ranks.size(); i-- > 0;) {
    // Whatever the launcher has buffered would otherwise be written once more by each child.
    std::cout.flush();
    std::cerr.flush();
    pid_t pid = ::fork();
    if (pid < 0) {
      const int fork_errno = errno;
      for (pid_t q : w.pids) {
        if (q > 0) ::kill(q, SIGKILL);
      }
      for (pid_t q : w.pids) {
        if (q > 0) ::waitpid(q, nullptr, 0);
      }
      throw core::Error(std::string("fork failed: ") + std::strerror(fork_errno));
    }
    if (pid == 0) {
      WorkerContext ctx = run;
      ctx.rank = ranks[i];
      ctx.log_fd = ranks[i] == 0 ? log_fd : -1;
      ctx.siblings = siblings;
      ChildMain(fn, ctx);
    }
    w.pids[i] = pid;
    siblings.push_back(pid);
  }
  w.status.assign(w.pids.size(), 0);
  return w;
}

void WaitWorkers(Workers& w, const std::vector<int>& ranks, const WaitOptions& o,
                 std::ostream& err) {
  const size_t n = w.pids.size();
  std::vector<bool> done(n, false);
  size_t left = n;
  bool forwarded = false;
  std::optional<std::chrono::steady_clock::time_point> deadline;
  const auto end_of = [&](size_t i, int status) {
    done[i] = true;
    w.status[i] = status;
    --left;
    if (n > 1 && !EndedCleanly(status)) {
      err << Format("trainbench: rank %d (pid %d) %s\n", ranks[i], static_cast<int>(w.pids[i]),
                    DescribeExit(status).c_str())
          << std::flush;
    }
    if (!deadline) {
      deadline = std::chrono::steady_clock::now() +
                 std::chrono::milliseconds(static_cast<int64_t>((o.timeout_s + o.grace_s) * 1000));
    }
  };
  while (left > 0) {
    // Before waiting: a signal that came while the workers were being started is passed on too.
    if (o.interrupt && *o.interrupt && !forwarded) {
      // SIGTERM to the launcher, or SIGINT from outside the process group: pass it on.
      for (size_t i = 0; i < n; ++i) {
        if (!done[i]) ::kill(w.pids[i], SIGINT);
      }
      forwarded = true;
    }
    if (deadline && std::chrono::steady_clock::now() > *deadline) {
      for (size_t i = 0; i < n; ++i) {
        if (done[i]) continue;
        err << Format(
                   "trainbench: rank %d (pid %d) did not end within %.0f s of another rank ending; "
                   "killing it\n",
                   ranks[i], static_cast<int>(w.pids[i]), o.timeout_s + o.grace_s)
            << std::flush;
        ::kill(w.pids[i], SIGKILL);
      }
      deadline.reset();
    }
    bool reaped = false;
    for (size_t i = 0; i < n; ++i) {
      if (done[i]) continue;
      int status = 0;
      // One worker: block (a signal to the launcher interrupts the wait with EINTR). Several:
      // poll them all.
      const pid_t pid = ::waitpid(w.pids[i], &status, n == 1 ? 0 : WNOHANG);
      if (pid == w.pids[i]) {
        end_of(i, status);
        reaped = true;
      } else if (pid < 0 && errno == ECHILD) {
        done[i] = true;  // reaped by someone else: nothing left to wait for
        --left;
      }
    }
    if (n > 1 && !reaped && left > 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

}  // namespace trainbench::runner

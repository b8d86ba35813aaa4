// The worker processes of one run: one per local rank, each forked from the launcher and
// running a caller-supplied function, so that a crash or a hang in a run cannot take the
// launcher (and the runs before it) down.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <ostream>
#include <vector>

namespace trainbench::runner {

// What a worker function returns, which its process exits with: the exit codes of the CLI.
// Anything else, or a signal, is a worker that did not end cleanly.
inline constexpr int kWorkerOk = 0;
inline constexpr int kWorkerFailed = 1;
inline constexpr int kWorkerInterrupted = 130;

// Who one worker process is.
struct WorkerContext {
  int run = 1;  // 1-based, of `runs`
  int runs = 1;
  uint64_t seed = 0;
  int rank = 0;
  int log_fd = -1;            // rank 0's: the run's log; -1 for the other ranks
  std::vector<int> siblings;  // the pids of the ranks forked before this one
};

// Runs in the forked child and returns its exit code (kWorker*). A core::Error escaping it
// prints "trainbench: <message>" and exits 2, another std::exception "trainbench: error:
// <message>" and exits 1, as the CLI's main does.
using WorkerFn = std::function<int(const WorkerContext&)>;

// The launcher's side of one run's worker processes, by position in the ranks they were
// started for.
struct Workers {
  std::vector<pid_t> pids;
  std::vector<int> status;  // wait statuses
};

// Forks one worker per entry of `ranks`; rank 0 gets `log_fd`, the others -1. The last rank is
// forked first, so that the first (which writes the log) knows its siblings' pids. On a failed
// fork the workers already started are killed and core::Error is thrown.
Workers StartWorkers(const std::vector<int>& ranks, int log_fd, const WorkerContext& run,
                     const WorkerFn& fn);

struct WaitOptions {
  double timeout_s = 120;  // the collective timeout the workers run with
  double grace_s = 10;     // beyond it, before a rank still alive is killed
  // Set by the caller's SIGINT/SIGTERM handler: passed on to the workers as SIGINT, once.
  const volatile sig_atomic_t* interrupt = nullptr;
};

// Waits for every worker. Once one has ended, the others get the collective timeout plus the
// grace period to end too (a rank that died makes the others' next collective fail; a rank
// that hangs makes it time out); whoever is left after that is killed, so a run never hangs.
// With several workers, one that did not end cleanly is reported on `err`.
void WaitWorkers(Workers& w, const std::vector<int>& ranks, const WaitOptions& o,
                 std::ostream& err);

}  // namespace trainbench::runner

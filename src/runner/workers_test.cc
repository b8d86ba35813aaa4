#include "runner/workers.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sstream>
#include <stdexcept>

#include "core/atomic_file.h"
#include "core/error.h"
#include "runner/test_util.h"

namespace trainbench::runner {
namespace {

using test_util::ScopedDir;

bool ExitedWith(int status, int code) { return WIFEXITED(status) && WEXITSTATUS(status) == code; }

TEST(StartWorkers, RankZeroGetsTheLogAndItsSiblingsPids) {
  ScopedDir d("siblings");
  const std::string path = d.path() + "/log";
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0);
  WorkerContext run;
  run.run = 2;
  run.runs = 3;
  run.seed = 7;
  const std::vector<int> ranks = {0, 1, 2};
  Workers w = StartWorkers(ranks, fd, run, [](const WorkerContext& c) {
    if (c.run != 2 || c.runs != 3 || c.seed != 7) return 10;
    if (c.rank != 0) return c.log_fd == -1 ? 20 + c.rank : 11;
    std::string s;
    for (int pid : c.siblings) s += std::to_string(pid) + " ";
    return ::write(c.log_fd, s.data(), s.size()) == static_cast<ssize_t>(s.size()) ? 0 : 12;
  });
  ::close(fd);
  std::ostringstream err;
  WaitWorkers(w, ranks, {}, err);
  ASSERT_EQ(w.pids.size(), 3u);
  EXPECT_TRUE(ExitedWith(w.status[0], 0)) << w.status[0];
  EXPECT_TRUE(ExitedWith(w.status[1], 21)) << w.status[1];
  EXPECT_TRUE(ExitedWith(w.status[2], 22)) << w.status[2];
  // The last rank is forked first: rank 0 knows all the others.
  EXPECT_EQ(core::ReadFile(path),
            std::to_string(w.pids[2]) + " " + std::to_string(w.pids[1]) + " ");
  // 21 and 22 are not exit codes of a worker that ended cleanly.
  EXPECT_NE(err.str().find("trainbench: rank 1 (pid " + std::to_string(w.pids[1]) +
                           ") exited with code 21\n"),
            std::string::npos)
      << err.str();
}

TEST(StartWorkers, AnExceptionEndsTheWorkerAsTheCliWould) {
  const std::vector<int> ranks = {0};
  Workers w = StartWorkers(ranks, -1, {}, [](const WorkerContext&) -> int {
    throw core::Error("runner_test: an expected error");
  });
  std::ostringstream err;
  WaitWorkers(w, ranks, {}, err);
  EXPECT_TRUE(ExitedWith(w.status[0], 2)) << w.status[0];
  w = StartWorkers(ranks, -1, {}, [](const WorkerContext&) -> int {
    throw std::runtime_error("runner_test: an unexpected error");
  });
  WaitWorkers(w, ranks, {}, err);
  EXPECT_TRUE(ExitedWith(w.status[0], kWorkerFailed)) << w.status[0];
  EXPECT_EQ(err.str(), "");  // one worker: its end is the run's, reported by the caller
}

TEST(WaitWorkers, TheInterruptIsPassedOnToTheWorkers) {
  const std::vector<int> ranks = {0};
  Workers w = StartWorkers(ranks, -1, {}, [](const WorkerContext&) {
    ::sleep(5);  // ended by the SIGINT long before
    return 0;
  });
  volatile sig_atomic_t interrupt = 1;
  WaitOptions o;
  o.interrupt = &interrupt;
  std::ostringstream err;
  WaitWorkers(w, ranks, o, err);
  EXPECT_TRUE(WIFSIGNALED(w.status[0]) && WTERMSIG(w.status[0]) == SIGINT) << w.status[0];
}

TEST(WaitWorkers, ARankThatHangsAfterAnotherEndedIsKilled) {
  const std::vector<int> ranks = {0, 1};
  Workers w = StartWorkers(ranks, -1, {}, [](const WorkerContext& c) {
    if (c.rank == 1) ::sleep(5);  // hangs, as far as a 0.3 s bound is concerned
    return 0;
  });
  WaitOptions o;
  o.timeout_s = 0.2;
  o.grace_s = 0.1;
  std::ostringstream err;
  WaitWorkers(w, ranks, o, err);
  EXPECT_TRUE(ExitedWith(w.status[0], 0)) << w.status[0];
  EXPECT_TRUE(WIFSIGNALED(w.status[1]) && WTERMSIG(w.status[1]) == SIGKILL) << w.status[1];
  const std::string pid = std::to_string(w.pids[1]);
  EXPECT_EQ(err.str(), "trainbench: rank 1 (pid " + pid +
                           ") did not end within 0 s of another rank ending; killing it\n"
                           "trainbench: rank 1 (pid " +
                           pid + ") killed by signal 9 (Killed)\n");
}

}  // namespace
}  // namespace trainbench::runner

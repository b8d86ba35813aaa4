// Test helper (tests only): runs a function on N ranks, each in a forked child process with
// its own Gloo group meeting at a store hosted by the test process, and returns how each child
// ended. Children use one intra-op thread and never return into the test framework.
#pragma once

#include <ATen/Parallel.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/error.h"
#include "dist/connect.h"
#include "dist/process_group.h"

namespace trainbench::dist::testing {

struct ChildEnd {
  bool exited = false;  // false: killed by a signal (or by the deadline)
  int code = -1;
  double seconds = 0;  // from the start to this child's end
};

// fn(group) returns the child's exit code; an exception prints its message and exits 100.
// world_size 1 gives the local group. Children alive after `deadline_s` are killed.
inline std::vector<ChildEnd> ForkRanks(int world_size,
                                       const std::function<int(std::shared_ptr<ProcessGroup>)>& fn,
                                       double timeout_s = 20, double deadline_s = 60) {
  std::unique_ptr<StoreServer> store;
  Rendezvous r;
  r.world_size = world_size;
  r.timeout_s = timeout_s;
  r.mode = world_size > 1 ? LaunchMode::kLocal : LaunchMode::kSingle;
  if (world_size > 1) {
    store = std::make_unique<StoreServer>("127.0.0.1", 0, timeout_s);
    r.master_port = store->port();
  }
  static int generation = 0;
  const std::string prefix = "test" + std::to_string(generation++) + "/";
  const auto start = std::chrono::steady_clock::now();
  std::vector<pid_t> pids;
  for (int rank = 0; rank < world_size; ++rank) {
    std::fflush(stdout);
    std::fflush(stderr);
    pid_t pid = ::fork();
    if (pid == 0) {
      int code = 100;
      try {
        at::set_num_threads(1);
        Rendezvous me = r;
        me.rank = rank;
        code = fn(ConnectGroup(me, prefix, "127.0.0.1"));
      } catch (const std::exception& e) {
        std::fprintf(stderr, "rank %d: %s\n", rank, e.what());
      }
      std::fflush(stderr);
      ::_exit(code);
    }
    pids.push_back(pid);
  }
  std::vector<ChildEnd> ends(world_size);
  std::vector<bool> done(world_size, false);
  int left = world_size;
  while (left > 0) {
    int status = 0;
    for (int k = 0; k < world_size; ++k) {
      if (done[k] || ::waitpid(pids[k], &status, WNOHANG) != pids[k]) continue;
      done[k] = true;
      --left;
      ends[k].exited = WIFEXITED(status);
      ends[k].code = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
      ends[k].seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() >
        deadline_s) {
      for (int k = 0; k < world_size; ++k) {
        if (!done[k]) ::kill(pids[k], SIGKILL);
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return ends;
}

inline void ExpectAllOk(const std::vector<ChildEnd>& ends) {
  for (size_t k = 0; k < ends.size(); ++k) {
    EXPECT_TRUE(ends[k].exited && ends[k].code == 0)
        << "rank " << k << " ended with " << ends[k].code;
  }
}

inline std::string TempPath(const std::string& name) {
  return ::testing::TempDir() + "/tb_dist_" + std::to_string(::getpid()) + "_" + name;
}

}  // namespace trainbench::dist::testing

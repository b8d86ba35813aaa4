// The launcher of `trainbench run`: N runs of a benchmark, each in its own worker processes (one,
// or one per local rank), so that a crash or Ctrl-C in run k leaves runs 1..k-1 intact and run k
// recorded as aborted. What a worker does is the caller's (a WorkerFn); this library does the
// processes, the result files and the messages, and knows nothing of training.
#pragma once

#include <signal.h>

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "runner/result_files.h"
#include "runner/workers.h"

namespace trainbench::runner {

struct SeriesOptions {
  std::string dir;  // the results folder of this benchmark and system: result_<i>.txt
  int runs = 1;
  uint64_t base_seed = 0;        // run i gets base_seed + i - 1
  std::vector<int> ranks = {0};  // the ranks whose workers this launcher starts for each run
  // False for a launcher of rank > 0 in a job over several machines: rank 0's writes the logs.
  bool writes_results = true;
  int rank = 0;            // this launcher's rank, for the messages of one that writes no results
  double timeout_s = 120;  // the workers' collective timeout
  double grace_s = 10;     // after it, before a rank still alive is killed
  // Set by the caller's SIGINT/SIGTERM handler: forwarded to the workers, and no further run
  // starts.
  const volatile sig_atomic_t* interrupt = nullptr;
  // For the messages.
  std::string benchmark;
  std::string scale;
  std::string metric;  // the quality metric's name
  double quality_target = 0;
  std::string results_root;  // the folder the user gave (--results)
};

struct SeriesResult {
  std::vector<Finished> finished;  // the runs whose logs this launcher wrote, in order
  int member_failures = 0;         // of a launcher that writes no results: runs not successful
  bool interrupted = false;
};

// Runs opts.runs runs, each by forking opts.ranks' workers running `worker`, and prints one
// line per run (and the pids of the workers of each run, when several) on `err`. Stops after
// the current run when interrupted (the flag, a worker exiting with kWorkerInterrupted, or
// rank 0's worker killed by SIGINT). Throws core::Error when a result file cannot be created
// or renamed, or a fork fails.
SeriesResult RunSeries(const SeriesOptions& opts, const WorkerFn& worker, std::ostream& err);

// Prints the series' summary on `out` and returns the exit code: kWorkerInterrupted when
// interrupted, kWorkerOk when every run was successful, else kWorkerFailed.
int Summarize(const SeriesOptions& opts, const SeriesResult& result, std::ostream& out);

}  // namespace trainbench::runner

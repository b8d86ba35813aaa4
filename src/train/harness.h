// The harness: runs one benchmark run of a Workload and owns its clock and its MLLOG log.
// Events, in order: cache_clear, init_start, submission_*, trainbench_* (benchmark, scale,
// requested and effective configuration, provenance, and for world size > 1 trainbench_dist:
// world size, per-rank and global batch size, backend, rendezvous), seed, global_batch_size,
// gradient_accumulation_steps, the workload's hyperparameters, init_stop, run_start,
// train_samples, eval_samples, the workload's data facts (LoggedDataFacts), then per block of
// `eval_every_epochs` epochs block_start, epoch_start/epoch_stop per epoch, block_stop, eval_start,
// eval_stop, eval_accuracy, and last trainbench_cpu_share (this process's and other processes'
// shares of the machine's CPU over the timed region) and run_stop with status success (quality
// target reached) or aborted (epoch limit, step budget, interrupt, or an exception from the
// workload, whose message goes into run_stop's metadata). Threading: call from one thread;
// `interrupt` may be set from a signal handler.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "core/benchmark_def.h"
#include "core/json.h"
#include "core/mllog.h"
#include "train/workload.h"

namespace trainbench::train {

struct RunSettings {
  const core::BenchmarkDef* benchmark = nullptr;
  const core::ScaleDef* scale = nullptr;
  core::Division division = core::Division::kClosed;
  std::string org = "trainbench";                      // submission_org
  std::string platform = "unknown";                    // submission_platform (the system name)
  std::string status = "onprem";                       // submission_status
  core::Json requested_config = core::Json::object();  // as the user gave it (flags, overrides)
  int64_t max_steps = -1;                              // step budget over the whole run; -1: none
  int max_epochs = -1;  // epoch limit below the definition's (tests, probes); -1: none
  int run_number = 1;   // for the progress line: run k of n
  int run_count = 1;
  std::ostream* progress = nullptr;  // live progress line; nullptr: none
  bool progress_is_tty = false;      // rewrite one line with '\r' instead of new lines
  // Called first thing during init (untimed), before the workload's Init; may complete the
  // context (e.g. connect the data-parallel group). An exception ends the run as aborted
  // ("init failed") with its message in run_stop.
  std::function<void(RunContext&)> setup;
  // The run's other worker processes on this machine (the other local ranks): their CPU time
  // counts as the run's own in trainbench_cpu_share.
  std::vector<int> sibling_pids;
};

struct RunOutcome {
  bool success = false;
  std::string status;      // "success" | "aborted"
  std::string reason;      // why it stopped: "target reached", "epoch limit", ...
  double run_minutes = 0;  // run_stop - run_start
  int epochs = 0;          // epochs trained
  double last_eval = 0;    // last evaluated metric value
  bool interrupted = false;
  std::string error;  // the exception's message when reason is "error" or "init failed"
  // Share of the machine's CPU time that other processes used during the timed region
  // (trainbench_cpu_share, logged before run_stop); negative when it could not be measured.
  double other_cpu_share = -1;
};

// Runs `workload` once. `ctx` carries the seed, threads and device. Never throws for a failure
// of the workload: the run is recorded as aborted and the outcome says why.
RunOutcome RunBenchmark(Workload& workload, const RunContext& ctx, const RunSettings& settings,
                        core::Logger& log, const std::atomic<bool>* interrupt);

}  // namespace trainbench::train

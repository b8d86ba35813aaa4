// `trainbench run`: N runs of a benchmark, each in its own worker process so that a crash or
// Ctrl-C in run k leaves runs 1..k-1 intact and run k recorded as aborted.
//
// This file plans the runs (the benchmark, its configuration, the process layout, the
// rendezvous of a job over several machines) and says what a worker does: train the benchmark
// once. The processes, the result files (result_<i>.txt.part renamed when the run ends, an
// aborted run_stop appended for a worker that died, never an existing file overwritten) and the
// per-run messages are runner::RunSeries's (src/runner).
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <thread>

#include "cli/commands.h"
#include "cli/interrupt_signals.h"
#include "core/atomic_file.h"
#include "core/benchmark_def.h"
#include "core/error.h"
#include "core/mllog.h"
#include "core/paths.h"
#include "core/tuning.h"
#include "dist/connect.h"
#include "dist/rendezvous.h"
#include "runner/job.h"
#include "runner/result_files.h"
#include "runner/runner.h"
#include "runner/workers.h"
#include "train/harness.h"
#include "training/device.h"
#include "workloads/registry.h"

namespace trainbench::cli {

namespace fs = std::filesystem;
using core::Json;

// A worker's exit code is what the runner reads its run's end from.
static_assert(runner::kWorkerOk == kExitOk && runner::kWorkerFailed == kExitFailure &&
              runner::kWorkerInterrupted == kExitInterrupted);

namespace {

std::atomic<bool> g_interrupt{false};
volatile sig_atomic_t g_parent_interrupt = 0;

void WorkerSigint(int) { g_interrupt.store(true); }
void ParentSigint(int) { g_parent_interrupt = 1; }

struct RunPlan {
  core::BenchmarkDef def;
  const core::ScaleDef* scale = nullptr;
  core::Division division = core::Division::kClosed;
  core::ResolvedConfig config;
  std::string dir;
  std::string system;
  std::string data_dir;
  int threads = 1;
  int runs = 1;
  dist::Rendezvous rendezvous;  // master_port: the store's actual port
  bool writes_results = true;   // false for a member of rank > 0: rank 0 writes the logs
  std::optional<core::Tuning> tuning;
};

// What the command asked for (trainbench_config_requested): the configuration's requested
// settings, then the flags that shape the run.
Json RequestedConfig(const RunOptions& o, const RunPlan& p) {
  Json req = p.config.requested;
  req["scale"] = o.scale;
  req["division"] = o.division;
  if (o.seed >= 0) req["seed"] = o.seed;
  if (p.tuning) {
    req["tuning"] = Json{{"name", p.tuning->name}, {"path", p.tuning->path}};
    if (p.tuning->nproc) req["tuning"]["launch"]["nproc"] = *p.tuning->nproc;
    if (p.tuning->threads) req["tuning"]["launch"]["threads"] = *p.tuning->threads;
    if (p.tuning->entries > 1) {
      // Which of the machine-dependent entries ran, and why (core/tuning.h).
      req["tuning"]["entry"] = p.tuning->entry;
      req["tuning"]["requires"] = p.tuning->requires;
      req["tuning"]["choice"] = p.tuning->choice;
    }
  }
  if (o.threads > 0) req["threads"] = o.threads;
  req["loader_threads"] = o.loader_threads;
  req["device"] = o.device;
  if (!o.data_dir.empty()) req["data_dir"] = o.data_dir;
  if (o.nproc > 0) req["nproc"] = o.nproc;
  if (p.rendezvous.mode == dist::LaunchMode::kMember) req["world_size"] = p.rendezvous.world_size;
  return req;
}

// One rank of one run, in its forked worker process (the runner::WorkerFn). `w.log_fd`: where
// the MLLOG log goes (rank 0), or -1 (other ranks: no log).
int WorkerMain(const RunOptions& o, const RunPlan& p, const runner::WorkerContext& w) {
  struct sigaction sa {};
  sa.sa_handler = WorkerSigint;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGINT, &sa, nullptr);
  ::sigaction(SIGTERM, &sa, nullptr);
  const int fd = w.log_fd, rank = w.rank, run_number = w.run;
  std::function<void(const std::string&)> sink = [](const std::string&) {};
  if (fd >= 0) sink = runner::FdSink{fd};
  core::Logger log{sink};
  train::RunContext ctx;
  ctx.benchmark = p.def.name;
  ctx.scale = p.scale;
  ctx.config = p.config.effective;
  ctx.data_dir = p.data_dir;
  ctx.seed = w.seed;
  ctx.threads = p.threads;
  ctx.loader_threads = o.loader_threads;
  ctx.device = o.device;
  ctx.rank = rank;
  ctx.world_size = p.rendezvous.world_size;
  train::RunSettings s;
  s.benchmark = &p.def;
  s.scale = p.scale;
  s.division = p.division;
  s.org = o.org;
  s.platform = p.system;
  s.requested_config = RequestedConfig(o, p);
  if (p.rendezvous.world_size > 1) {
    s.setup = [&p, rank, run_number](train::RunContext& c) {
      dist::Rendezvous me = p.rendezvous;
      me.rank = rank;
      // Local workers talk over loopback; members bind to the host's (or GLOO_SOCKET_IFNAME's)
      // address.
      const std::string bind = me.mode == dist::LaunchMode::kLocal ? "127.0.0.1" : "";
      c.group = dist::ConnectGroup(me, "run" + std::to_string(run_number) + "/", bind);
      c.dist_info =
          Json{{"backend", "gloo"},
               {"rendezvous", dist::Describe(p.rendezvous)},
               {"timeout_s", p.rendezvous.timeout_s},
               {"gradients", "averaged over ranks, bucketed all-reduce overlapped with backward"}};
    };
  }
  s.max_steps = o.max_steps;
  s.max_epochs = o.max_epochs;
  s.run_number = run_number;
  s.run_count = w.runs;
  s.progress = (o.progress && rank == 0) ? &std::cerr : nullptr;
  s.sibling_pids = w.siblings;
  s.progress_is_tty = ::isatty(STDERR_FILENO);
  std::unique_ptr<train::Workload> workload = workloads::CreateWorkload(p.def.name, *p.scale);
  train::RunOutcome out = train::RunBenchmark(*workload, ctx, s, log, &g_interrupt);
  if (out.other_cpu_share > 0.10 && fd >= 0) {
    std::fprintf(stderr,
                 "trainbench: warning: other processes used %.0f%% of the machine's CPU during run "
                 "%d; its time is not representative of this system (trainbench_cpu_share in the "
                 "log)\n",
                 100.0 * out.other_cpu_share, run_number);
  }
  if (out.reason == "error" || out.reason == "init failed") {
    if (fd >= 0) {
      std::cerr << "trainbench: run " << run_number << " failed: see run_stop in the log\n";
    } else {
      std::cerr << "trainbench: rank " << rank << ": run " << run_number << " failed: " << out.error
                << "\n";
    }
  }
  return out.interrupted ? kExitInterrupted : (out.success ? kExitOk : kExitFailure);
}

// The benchmark, scale, division and configuration (a tuning's settings, then --set).
void ResolveBenchmark(const RunOptions& o, RunPlan& p) {
  p.def = core::FindBenchmark(core::BenchmarksDir(), o.benchmark);
  p.scale = &p.def.Scale(o.scale);
  p.division = core::ParseDivision(o.division);
  std::map<std::string, std::string> overrides;
  if (!o.tuning.empty()) {
    p.tuning = core::LoadTuning(o.tuning, p.def.name, o.scale);
    overrides = p.tuning->overrides;
  }
  for (const auto& [k, v] : core::ParseOverrides(o.set)) overrides[k] = v;  // --set wins
  try {
    p.config = core::ResolveConfig(*p.scale, overrides, p.division);
  } catch (const core::Error& e) {
    if (!p.tuning) throw;
    throw core::Error(std::string(e.what()) + " (with tuning " + p.tuning->path + ")");
  }
}

void CheckFlags(const RunOptions& o) {
  if (o.runs < 0) throw core::Error("--runs must be >= 1");
  if (o.threads < 0) throw core::Error("--threads must be >= 1");
  if (o.loader_threads < 0) throw core::Error("--loader-threads must be >= 0");
  training::CheckDevice(o.device);
  CheckPathComponent("--system", o.system);
  CheckPathComponent("--org", o.org);
}

// Who this launcher is in the job: flags, the environment, else the tuning's process layout.
void ResolveLaunch(const RunOptions& o, RunPlan& p) {
  dist::RendezvousFlags rf;
  rf.nproc = o.nproc;
  rf.rank = o.rank;
  rf.world_size = o.world_size;
  rf.master = o.master;
  rf.timeout_s = o.dist_timeout;
  const auto env = [](const char* v) { return std::getenv(v); };
  p.rendezvous = dist::ResolveRendezvous(rf, env);
  // The tuning's process layout, unless the command chose one (--nproc, or a multi-machine job).
  if (p.tuning && p.tuning->nproc && o.nproc == 0 &&
      p.rendezvous.mode == dist::LaunchMode::kSingle) {
    rf.nproc = *p.tuning->nproc;
    p.rendezvous = dist::ResolveRendezvous(rf, env);
  }
  p.writes_results = p.rendezvous.mode != dist::LaunchMode::kMember || p.rendezvous.rank == 0;
}

// Process and thread counts are bounded by the machine before anything is forked: a tuning's
// `launch: {nproc: 1000}` started 1000 workers.
void CheckMachine(const RunOptions& o, const RunPlan& p, int local_procs, int cpus) {
  if (o.oversubscribe) return;
  const std::string from_tuning = p.tuning ? " (tuning " + p.tuning->path + ")" : "";
  if (local_procs > cpus) {
    throw core::Error((o.nproc > 0 ? "--nproc " : "launch.nproc ") + std::to_string(local_procs) +
                      (o.nproc > 0 ? "" : from_tuning) +
                      " is more worker processes than this machine's " + std::to_string(cpus) +
                      " logical CPUs (--oversubscribe starts them anyway)");
  }
  const int threads = o.threads > 0                   ? o.threads
                      : p.tuning && p.tuning->threads ? *p.tuning->threads
                                                      : 0;
  if (threads > cpus) {
    throw core::Error((o.threads > 0 ? "--threads " : "launch.threads ") + std::to_string(threads) +
                      (o.threads > 0 ? "" : from_tuning) + " is more threads than this machine's " +
                      std::to_string(cpus) + " logical CPUs (--oversubscribe allows it)");
  }
}

// Everything checked before any run starts (and before any worker is forked): the flags, the
// machine's CPUs, the benchmark's implementation at this scale (a configuration it refuses, a
// batch that does not split over the ranks), the dataset; the results folder made.
RunPlan PlanRuns(const RunOptions& o) {
  RunPlan p;
  ResolveBenchmark(o, p);
  CheckFlags(o);
  ResolveLaunch(o, p);
  const dist::Rendezvous& rv = p.rendezvous;
  const int local_procs = rv.mode == dist::LaunchMode::kLocal ? rv.world_size : 1;
  const int cpus = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  CheckMachine(o, p, local_procs, cpus);
  {
    auto workload = workloads::CreateWorkload(p.def.name, *p.scale);
    workload->CheckConfig(p.config.effective, o.device);
    train::CheckWorldSize(*workload, p.def.name, p.config.effective, rv.world_size);
  }
  p.runs = o.runs > 0 ? o.runs : p.scale->runs_per_result;
  p.threads = o.threads > 0                   ? o.threads
              : p.tuning && p.tuning->threads ? *p.tuning->threads
                                              : std::max(1, cpus / local_procs);
  p.system = o.system.empty() ? DefaultSystemName() : o.system;
  p.data_dir = o.data_dir.empty() ? p.scale->data_dir : o.data_dir;
  if (!fs::is_directory(p.data_dir)) {
    throw core::FileError(
        p.data_dir, 0,
        "dataset folder not found (see `trainbench prepare " + p.def.name + "`, or pass --data)");
  }
  p.dir = o.results + "/" + p.system + "/" + p.def.name;
  if (p.writes_results) core::MakeDirs(p.dir);
  return p;
}

runner::JobSpec JobOf(const RunOptions& o, const RunPlan& p) {
  runner::JobSpec j;
  j.benchmark = p.def.name;
  j.scale = p.scale->scale;
  j.division = o.division;
  j.runs = p.runs;
  j.config = p.config.effective;
  j.max_steps = o.max_steps;
  j.max_epochs = o.max_epochs;
  j.world_size = p.rendezvous.world_size;
  return j;
}

// The rendezvous store lives in rank 0's launcher for all runs; the workers of each run meet
// under their own key prefix. Members agree on the base seed and check they run the same job.
// Returns the base seed; `store` is this launcher's store, if it hosts one.
uint64_t JoinJob(const RunOptions& o, RunPlan& p, std::unique_ptr<dist::StoreServer>& store) {
  uint64_t base_seed =
      o.seed >= 0 ? static_cast<uint64_t>(o.seed) : (std::random_device{}() & 0x7fffffff);
  const dist::Rendezvous& rv = p.rendezvous;
  const bool member = rv.mode == dist::LaunchMode::kMember;
  if (rv.mode == dist::LaunchMode::kLocal) {
    store = std::make_unique<dist::StoreServer>("127.0.0.1", 0, rv.timeout_s);
    p.rendezvous.master_port = store->port();
  } else if (member && rv.rank == 0) {
    store = std::make_unique<dist::StoreServer>(rv.master_addr, rv.master_port, rv.timeout_s);
    store->Set("trainbench/base_seed", std::to_string(base_seed));
    store->Set("trainbench/job", runner::JobFingerprint(JobOf(o, p)));
  } else if (member) {
    std::string theirs =
        dist::StoreGet(rv.master_addr, rv.master_port, "trainbench/job", rv.timeout_s);
    std::string mine = runner::JobFingerprint(JobOf(o, p));
    if (theirs != mine) {
      throw core::Error("rank " + std::to_string(rv.rank) +
                        " was started with a different job than rank 0: " +
                        runner::FirstDifference(mine, theirs));
    }
    base_seed = std::stoull(
        dist::StoreGet(rv.master_addr, rv.master_port, "trainbench/base_seed", rv.timeout_s));
  }
  return base_seed;
}

void PrintStart(const RunOptions& o, const RunPlan& p) {
  if (p.tuning && !p.tuning->choice.empty()) {
    std::fprintf(stderr, "trainbench: tuning %s for %s %s: %s\n", p.tuning->name.c_str(),
                 p.def.name.c_str(), p.scale->scale.c_str(), p.tuning->choice.c_str());
  }
  const dist::Rendezvous& rv = p.rendezvous;
  std::string procs = rv.world_size > 1 ? ", " + dist::Describe(rv) + " x " +
                                              std::to_string(p.threads) + " thread(s)"
                                        : "";
  if (p.writes_results) {
    std::fprintf(stderr,
                 "trainbench: %s (%s scale, %s division): %d run(s)%s, target %s >= %g, results "
                 "in %s\n",
                 p.def.name.c_str(), p.scale->scale.c_str(), o.division.c_str(), p.runs,
                 procs.c_str(), p.scale->metric.c_str(), p.scale->quality_target, p.dir.c_str());
  } else {
    std::fprintf(stderr, "trainbench: %s (%s scale): %d run(s) as %s; rank 0 writes the results\n",
                 p.def.name.c_str(), p.scale->scale.c_str(), p.runs, dist::Describe(rv).c_str());
  }
}

runner::SeriesOptions SeriesOf(const RunOptions& o, const RunPlan& p, uint64_t base_seed) {
  const dist::Rendezvous& rv = p.rendezvous;
  runner::SeriesOptions s;
  s.dir = p.dir;
  s.runs = p.runs;
  s.base_seed = base_seed;
  s.ranks.clear();
  if (rv.mode == dist::LaunchMode::kLocal) {
    for (int k = 0; k < rv.world_size; ++k) s.ranks.push_back(k);
  } else {
    s.ranks.push_back(rv.rank);
  }
  s.writes_results = p.writes_results;
  s.rank = rv.rank;
  s.timeout_s = rv.timeout_s;
  s.interrupt = &g_parent_interrupt;
  s.benchmark = p.def.name;
  s.scale = p.scale->scale;
  s.metric = p.scale->metric;
  s.quality_target = p.scale->quality_target;
  s.results_root = o.results;
  return s;
}

}  // namespace

int RunRun(const RunOptions& o) {
  RunPlan p = PlanRuns(o);
  std::unique_ptr<dist::StoreServer> store;
  const uint64_t base_seed = JoinJob(o, p, store);
  PrintStart(o, p);
  const runner::SeriesOptions series = SeriesOf(o, p, base_seed);
  runner::SeriesResult result;
  {
    // SIGINT and SIGTERM set g_parent_interrupt: the runner passes them on to the workers and
    // starts no further run.
    InterruptSignals signals(ParentSigint);
    result = runner::RunSeries(
        series, [&o, &p](const runner::WorkerContext& w) { return WorkerMain(o, p, w); },
        std::cerr);
  }
  return runner::Summarize(series, result, std::cout);
}

}  // namespace trainbench::cli

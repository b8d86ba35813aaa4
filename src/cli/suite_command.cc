// `trainbench run --suite mini|full [BENCHMARK...]`: every benchmark of the scale (or those
// named) in the benchmark table's order, each to its runs per result, one run at a time through
// RunRun, with a line saying where the suite is and how long it still needs. Resumable: the runs
// already in a benchmark's results folder count, so a second call continues where an
// interrupted one stopped and never reruns a finished benchmark; a run the user interrupted is
// set aside (runner::SetAsideInterrupted) and run again. Ends with the summary table and the
// HTML report of the system's results.
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/interrupt_signals.h"
#include "core/benchmark_def.h"
#include "core/error.h"
#include "core/paths.h"
#include "report/report_command.h"
#include "runner/suite.h"
#include "summary/summarize_command.h"
#include "workloads/benchmark_table.h"

namespace trainbench::cli {

namespace {

volatile sig_atomic_t g_suite_interrupt = 0;
void SuiteSigint(int) { g_suite_interrupt = 1; }

struct Planned {
  runner::SuiteItem item;
  std::string dataset;  // the benchmark table's (the folder under --data)
  std::string dir;      // RESULTS/SYSTEM/BENCHMARK
};

// The benchmarks of the suite, in the table's order: all with the scale, or those named.
std::vector<Planned> PlanSuite(const SuiteOptions& o, const std::string& system) {
  for (const std::string& name : o.benchmarks) {
    if (!workloads::FindBenchmarkRow(name)) {
      throw core::Error("--suite: unknown benchmark \"" + name + "\" (see `trainbench list`)");
    }
  }
  std::vector<Planned> out;
  for (const workloads::BenchmarkRow& row : workloads::kBenchmarks) {
    const std::string name(row.name);
    if (!o.benchmarks.empty() &&
        std::find(o.benchmarks.begin(), o.benchmarks.end(), name) == o.benchmarks.end()) {
      continue;
    }
    const core::BenchmarkDef def = core::FindBenchmark(core::BenchmarksDir(), name);
    auto scale = def.scales.find(o.run.scale);
    if (scale == def.scales.end()) {
      if (!o.benchmarks.empty()) def.Scale(o.run.scale);  // names the scales it has
      continue;
    }
    Planned p;
    p.item.benchmark = name;
    p.item.runs = o.run.runs > 0 ? o.run.runs : scale->second.runs_per_result;
    p.item.reference_minutes = scale->second.reference_time_minutes;
    p.dataset = std::string(row.dataset);
    p.dir = o.run.results + "/" + system + "/" + name;
    out.push_back(p);
  }
  if (out.empty()) throw core::Error("--suite " + o.run.scale + ": no benchmark has that scale");
  return out;
}

std::string DataDirOf(const SuiteOptions& o, const Planned& p) {
  if (!o.run.data_dir.empty()) return o.run.data_dir + "/" + p.dataset;
  return core::FindBenchmark(core::BenchmarksDir(), p.item.benchmark).Scale(o.run.scale).data_dir;
}

double MinutesSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count() / 60.0;
}

}  // namespace

int RunSuite(const SuiteOptions& o) {
  if (o.run.rank >= 0 || o.run.world_size >= 0 || !o.run.master.empty()) {
    throw core::Error(
        "--suite runs on one machine (--nproc works); a job over several machines runs one "
        "benchmark at a time");
  }
  if (!o.run.set.empty()) {
    throw core::Error(
        "--suite: --set names one benchmark's hyperparameters; run that benchmark alone, or give "
        "a --tuning file with a section per benchmark");
  }
  CheckPathComponent("--system", o.run.system);
  const std::string system = o.run.system.empty() ? DefaultSystemName() : o.run.system;
  std::vector<Planned> plan = PlanSuite(o, system);

  // Everything that would stop the suite half-way is refused before the first run: a dataset
  // not prepared, a run being written (or left by a launcher that died) in a results folder.
  std::vector<std::string> missing;
  for (Planned& p : plan) {
    std::error_code ec;
    if (!std::filesystem::is_directory(DataDirOf(o, p), ec)) {
      missing.push_back(DataDirOf(o, p) + " (`trainbench prepare " + p.item.benchmark +
                        (o.run.scale == "mini" ? "" : " --scale " + o.run.scale) +
                        (o.run.data_dir.empty() ? "" : " --data " + DataDirOf(o, p)) + "`)");
    }
    const runner::FolderRuns f = runner::ScanResultsFolder(p.dir);
    if (!f.unfinished.empty()) {
      throw core::FileError(f.unfinished.front(), 0,
                            "a run is being written here, or its launcher died; remove the file "
                            "if no trainbench run is going");
    }
    for (const std::string& moved : runner::SetAsideInterrupted(f.interrupted)) {
      std::fprintf(stderr, "trainbench: suite: an interrupted run set aside as %s; it runs again\n",
                   moved.c_str());
    }
    p.item.done = static_cast<int>(f.counted.size());
  }
  if (!missing.empty()) {
    std::string list;
    for (const std::string& m : missing) list += "\n  " + m;
    throw core::Error("--suite " + o.run.scale + ": dataset folder(s) not found:" + list);
  }

  std::vector<runner::SuiteItem> items;
  for (const Planned& p : plan) items.push_back(p.item);
  int total = 0, done = 0;
  for (const auto& it : items) {
    total += it.runs;
    done += std::min(it.done, it.runs);
  }
  std::fprintf(stderr,
               "trainbench: suite %s: %zu benchmark(s), %d run(s), %d already in %s/%s; the same "
               "command continues an interrupted suite\n",
               o.run.scale.c_str(), items.size(), total, done, o.run.results.c_str(),
               system.c_str());

  // SIGINT/SIGTERM between runs end the suite before the next run (RunRun handles them while a
  // run goes, and restores this handler).
  InterruptSignals signals(SuiteSigint);
  const auto start = std::chrono::steady_clock::now();
  double measured = 0, measured_reference = 0;
  for (size_t i = 0; i < plan.size(); ++i) {
    runner::SuiteItem& it = items[i];
    if (it.done >= it.runs) {
      std::fprintf(stderr, "trainbench: suite: %s done (%d of %d runs)\n", it.benchmark.c_str(),
                   it.done, it.runs);
      continue;
    }
    while (it.done < it.runs) {
      if (g_suite_interrupt) return kExitInterrupted;
      std::fprintf(
          stderr, "trainbench: %s\n",
          runner::SuiteLine(o.run.scale, items, i, MinutesSince(start),
                            runner::EstimateMinutesLeft(items, measured, measured_reference))
              .c_str());
      RunOptions one = o.run;
      one.benchmark = it.benchmark;
      one.system = system;
      one.runs = 1;
      // Run k of a benchmark gets the seed `run --runs N --seed S` gives it: S + k - 1.
      if (o.run.seed >= 0) one.seed = o.run.seed + it.done;
      if (!o.run.data_dir.empty()) one.data_dir = DataDirOf(o, plan[i]);
      const auto run_start = std::chrono::steady_clock::now();
      const int rc = RunRun(one);
      if (rc == kExitInterrupted || g_suite_interrupt) {
        std::fprintf(stderr,
                     "trainbench: suite interrupted; the same command continues it (the "
                     "interrupted run is set aside and runs again)\n");
        return kExitInterrupted;
      }
      ++it.done;
      if (it.reference_minutes > 0) {
        measured += MinutesSince(run_start);
        measured_reference += it.reference_minutes;
      }
    }
  }
  std::fprintf(stderr, "trainbench: %s\n",
               runner::SuiteLine(o.run.scale, items, items.size(), MinutesSince(start), 0).c_str());

  const std::string results = o.run.results + "/" + system;
  int rc = summary::RunSummarizeCommand({results}, "table", std::cout, std::cerr);
  report::ReportOptions r;
  r.dirs = {results};
  r.output = results + "/suite-" + o.run.scale + ".html";
  if (report::RunReportCommand(r, std::cout, std::cerr) != 0) rc = kExitBadInput;
  if (rc != 0) return rc;
  // As `run`: 0 when every run of the suite reached its target, 1 when one did not.
  for (const Planned& p : plan) {
    const runner::FolderRuns f = runner::ScanResultsFolder(p.dir);
    if (f.succeeded < static_cast<int>(f.counted.size())) return kExitFailure;
  }
  return kExitOk;
}

}  // namespace trainbench::cli

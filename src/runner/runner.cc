#include "runner/runner.h"

#include <sys/wait.h>
#include <unistd.h>

#include "runner/format.h"

namespace trainbench::runner {

namespace {

bool Interrupted(const SeriesOptions& o) { return o.interrupt && *o.interrupt; }

bool ExitedWith(int status, int code) { return WIFEXITED(status) && WEXITSTATUS(status) == code; }

// A run of a launcher that writes no results: its workers take part, rank 0's log the run.
// Returns whether the series goes on.
bool MemberRun(const SeriesOptions& o, const WorkerContext& run, const WorkerFn& worker,
               std::ostream& err, SeriesResult& result) {
  Workers w = StartWorkers(o.ranks, -1, run, worker);
  WaitWorkers(w, o.ranks, {o.timeout_s, o.grace_s, o.interrupt}, err);
  const int st = w.status[0];
  const bool ok = ExitedWith(st, kWorkerOk);
  if (!ok) ++result.member_failures;
  err << Format("rank %d: run %d/%d ended: %s\n", o.rank, run.run, o.runs,
                ok ? "success" : ("aborted, worker " + DescribeExit(st)).c_str())
      << std::flush;
  if (Interrupted(o) || ExitedWith(st, kWorkerInterrupted)) {
    result.interrupted = true;
    return false;
  }
  return true;
}

std::string RunLine(const SeriesOptions& o, int r, const Finished& f, uint64_t seed) {
  const auto s = static_cast<unsigned long long>(seed);
  const char* sep = f.error.empty() ? "" : ": ";
  if (f.status == "success") {
    return Format("run %d/%d: success in %.2f min (%d epochs, %s %.4f, seed %llu) -> %s\n", r,
                  o.runs, f.minutes, f.epochs, o.metric.c_str(), f.last_eval, s, f.path.c_str());
  }
  if (f.epochs == 0) {
    // No epoch, no evaluation: nothing to time or report but the reason.
    return Format("run %d/%d: aborted before its first epoch (seed %llu)%s%s -> %s\n", r, o.runs, s,
                  sep, f.error.c_str(), f.path.c_str());
  }
  return Format(
      "run %d/%d: aborted after %.2f min (%d epochs, last %s %.4f, seed %llu)%s%s -> %s\n", r,
      o.runs, f.minutes, f.epochs, o.metric.c_str(), f.last_eval, s, sep, f.error.c_str(),
      f.path.c_str());
}

// A run whose log this launcher writes. Returns whether the series goes on.
bool ResultRun(const SeriesOptions& o, const WorkerContext& run, const WorkerFn& worker,
               std::ostream& err, SeriesResult& result) {
  PartFile file = CreatePartFile(o.dir);
  Workers w;
  try {
    w = StartWorkers(o.ranks, file.fd, run, worker);
  } catch (...) {
    ::close(file.fd);
    throw;
  }
  // The workers hold the log open; the launcher reads it back once they have ended.
  ::close(file.fd);
  if (w.pids.size() > 1) {
    std::string list;
    for (size_t i = 0; i < w.pids.size(); ++i) {
      list += (i ? ", " : "") + std::to_string(o.ranks[i]) + "=" + std::to_string(w.pids[i]);
    }
    err << Format("run %d/%d: worker processes (rank=pid): %s\n", run.run, o.runs, list.c_str())
        << std::flush;
  }
  WaitWorkers(w, o.ranks, {o.timeout_s, o.grace_s, o.interrupt}, err);
  const int status = w.status[0];
  result.finished.push_back(FinalizeLog(file.part, file.path, status, run.seed));
  err << RunLine(o, run.run, result.finished.back(), run.seed) << std::flush;
  if (Interrupted(o) || ExitedWith(status, kWorkerInterrupted) ||
      (WIFSIGNALED(status) && WTERMSIG(status) == SIGINT)) {
    result.interrupted = true;
    err << Format("trainbench: interrupted; run %d recorded as aborted, earlier runs kept\n",
                  run.run)
        << std::flush;
    return false;
  }
  return true;
}

}  // namespace

SeriesResult RunSeries(const SeriesOptions& o, const WorkerFn& worker, std::ostream& err) {
  SeriesResult result;
  for (int r = 1; r <= o.runs; ++r) {
    WorkerContext run;
    run.run = r;
    run.runs = o.runs;
    run.seed = o.base_seed + static_cast<uint64_t>(r - 1);
    const bool go_on = o.writes_results ? ResultRun(o, run, worker, err, result)
                                        : MemberRun(o, run, worker, err, result);
    if (!go_on) break;
  }
  return result;
}

int Summarize(const SeriesOptions& o, const SeriesResult& result, std::ostream& out) {
  if (!o.writes_results) {
    out << Format("rank %d: %d run(s) done, %d aborted; the results are in rank 0's %s\n", o.rank,
                  o.runs, result.member_failures, o.results_root.c_str());
    if (result.interrupted) return kWorkerInterrupted;
    return result.member_failures == 0 ? kWorkerOk : kWorkerFailed;
  }
  int converged = 0;
  double sum = 0;
  for (const auto& f : result.finished) {
    if (f.status == "success") {
      ++converged;
      sum += f.minutes;
    }
  }
  std::string text =
      Format("%s %s: %d of %zu run(s) reached %s >= %g", o.benchmark.c_str(), o.scale.c_str(),
             converged, result.finished.size(), o.metric.c_str(), o.quality_target);
  if (converged > 0) text += Format("; mean time to train %.2f min", sum / converged);
  text += Format("\nlogs: %s/result_*.txt (summarize with: trainbench summarize %s)\n",
                 o.dir.c_str(), o.results_root.c_str());
  out << text << std::flush;
  if (result.interrupted) return kWorkerInterrupted;
  return converged == static_cast<int>(result.finished.size()) ? kWorkerOk : kWorkerFailed;
}

}  // namespace trainbench::runner

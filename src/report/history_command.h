// `trainbench history [BENCH] [--system S] [--db PATH]`: the olympic time of each benchmark and
// system per git revision of the build that ran it, oldest first, with the change against the
// previous revision, so a regression shows up. Runs are grouped by the revision their
// trainbench_provenance logs ("unknown" when none) and scored with the summarizer's rules
// (summary::Summarize: median window, olympic mean) over the runs of that revision.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "core/benchmark_def.h"
#include "report/history_db.h"

namespace trainbench::report {

// A change above this fraction (slower) is flagged as a regression.
inline constexpr double kRegressionThreshold = 0.05;

struct HistoryEntry {
  std::string benchmark, scale, system, division;
  std::string git_revision;                      // "unknown" when not logged
  double first_start_ms = 0, last_start_ms = 0;  // of the revision's runs
  size_t runs = 0;
  int converged_runs = 0;
  std::optional<double> olympic_mean_minutes;
  std::string status;  // summary::BenchmarkSummary::Status()
  // Olympic mean relative to the previous entry of the same benchmark, scale, system and
  // division that has one (0.10 = 10% slower); nullopt for the first.
  std::optional<double> change;
  bool regression = false;  // change > kRegressionThreshold
};

// Entries ordered by benchmark, scale, system, division, then by the revision's first run.
std::vector<HistoryEntry> BuildHistory(const std::vector<HistoryRun>& runs,
                                       const std::vector<core::BenchmarkDef>& defs);

// A table like `summarize`'s; "no runs" when `entries` is empty.
void PrintHistory(const std::vector<HistoryEntry>& entries, std::ostream& out);

struct HistoryOptions {
  std::string benchmark;  // "" = all; else the trainbench or MLPerf (log) name
  std::string system;     // "" = all
  std::string db_path;    // "" = DefaultHistoryPath()
};

// Returns 0 (also for an empty or missing history: it says so), 2 when the database cannot be
// read (the message names it). The database is never created here.
int RunHistoryCommand(const HistoryOptions& options, const std::vector<core::BenchmarkDef>& defs,
                      std::ostream& out, std::ostream& err);
// As above with the definitions from core::BenchmarksDir() (a warning when unreadable).
int RunHistoryCommand(const HistoryOptions& options, std::ostream& out, std::ostream& err);

}  // namespace trainbench::report

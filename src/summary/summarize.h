// Turns runs into per-benchmark, per-system results with the MLPerf scoring rules: runs are
// grouped by (benchmark, scale, system, division), ordered by start time, the median window of N
// runs is chosen when there are more than N, and its olympic mean, spread and score computed.
// This is the library behind `trainbench summarize`; `compare` and `report` reuse it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/benchmark_def.h"
#include "summary/run_result.h"
#include "summary/scoring_rules.h"

namespace trainbench::summary {

struct BenchmarkSummary {
  std::string benchmark;  // trainbench name when a definition matched, else the log name
  std::string log_name;   // MLPerf name (submission_benchmark / v0.5 benchmark)
  std::string scale;      // "mini", "full", or "" (not a trainbench log)
  std::string system;
  std::string division;  // "closed", "open", or "" (unknown)
  ScoringRule rule;

  std::vector<RunResult> runs;  // all runs of the group, by start time (then path)
  std::vector<bool> used;       // per run: its time entered the chosen window's computation
  int converged_runs = 0;       // among all runs

  // The chosen window (median-window rule), as indices into `runs`.
  size_t window_first = 0;
  size_t window_size = 0;
  size_t windows = 0;  // windows compared; 1 when there were at most N runs

  bool has_result = false;
  std::string no_result_reason;  // when !has_result
  // Fewer runs than required (NCF: fewer than K converged runs and fewer than N runs).
  bool incomplete = false;
  std::optional<double> olympic_mean_minutes;
  // Over the converged runs used (the window's converged runs; NCF: the K used), before the
  // olympic mean drops the fastest and slowest.
  std::optional<double> min_minutes, max_minutes;
  std::optional<double> cv;           // sample stddev / mean, a fraction
  std::optional<double> mean_epochs;  // over the converged runs used that logged epochs
  std::optional<double> score;        // rule.reference_minutes / olympic mean
  std::vector<std::string> notes;     // how the result was taken, what is unknown
  // The RCP test of the result's runs (closed division, trainbench logs; AttachRcpOutcomes):
  // "PASSED", "FAILED", "MISSING", or "" when not judged; `rcp_detail` the official message
  // and the numbers, or why it could not be judged.
  std::string rcp_outcome, rcp_detail;

  // "ok", "incomplete (k of N runs)", "runs required unknown", or "no result: <reason>".
  std::string Status() const;
};

// Groups and scores `runs` against the benchmark definitions (may be empty: trainbench logs then
// get no N and no score). Results are sorted by benchmark, scale, system, division.
std::vector<BenchmarkSummary> Summarize(const std::vector<RunResult>& runs,
                                        const std::vector<core::BenchmarkDef>& defs);

// Runs the RCP test (rcp::CheckSet, as `trainbench check --rcp` does) on each closed result of
// trainbench logs and sets rcp_outcome / rcp_detail; an error (an unreadable log, a malformed
// RCP file) goes to rcp_detail with no outcome.
void AttachRcpOutcomes(std::vector<BenchmarkSummary>* results);

// Everything a reporter prints.
struct SummaryReport {
  std::vector<BenchmarkSummary> results;
  std::vector<FileIssue> skipped;
  std::vector<FileIssue> warnings;
};

}  // namespace trainbench::summary

// A/B comparison of two sets of results, with no I/O: for each benchmark (and scale, division)
// scored on both sides, the ratio of the olympic means, a bootstrap confidence interval of that
// ratio and a Mann-Whitney U test over the run times, and whether the difference is significant.
// This is the library behind `trainbench compare` (compare_command.h); the olympic means come
// from Summarize (summarize.h) and every bootstrap resample is scored by the same ScoreRuns
// (stats.h), so a resample follows the same rules as the result: at most one non-converged run,
// counted as the slowest.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "summary/mann_whitney.h"
#include "summary/stats.h"
#include "summary/summarize.h"

namespace trainbench::summary {

// The bootstrap's fixed seed (the date of the MLPerf Training v0.5 results, 2018-12-12), so the
// same results always give the same interval.
inline constexpr uint64_t kBootstrapSeed = 20181212;
inline constexpr int kBootstrapResamples = 10000;

struct CompareOptions {
  int resamples = kBootstrapResamples;  // bootstrap resamples (>= 1)
  uint64_t seed = kBootstrapSeed;       // of the bootstrap's std::mt19937_64
  double confidence = 0.95;             // of the percentile interval, in (0, 1)
  double alpha = 0.05;                  // significance level of the Mann-Whitney test
};

// A percentile bootstrap interval of olympic(B) / olympic(A).
struct RatioInterval {
  bool ok = false;  // false: no resample gave a defined ratio
  double low = 0;   // may be 0 (a resample where A had no result)
  double high = 0;  // may be +infinity (a resample where B had no result)
  int resamples = 0;
  int undefined = 0;  // resamples where neither side had a result: left out

  bool Contains(double v) const { return ok && low <= v && v <= high; }
};

// Resamples `a` and `b` with replacement, each to its own size, `options.resamples` times, and
// scores each resample with ScoreRuns(resample, 0, size, converged_used_*). A resample without a
// result (two or more non-converged runs) has an olympic mean of +infinity: its ratio is then
// +infinity (B) or 0 (A), and undefined (left out, counted) when both sides have none. The
// interval is the nearest-rank percentiles of the sorted defined ratios: with m of them and
// tail = (1 - confidence) / 2, the ceil(tail m)-th and the ceil((1 - tail) m)-th (1-based); for
// 10,000 resamples at 95% the 250th and the 9,750th.
//
// Randomness: one std::mt19937_64(options.seed); resample r draws the |a| indices of A, then the
// |b| indices of B, each uniform in [0, size) by rejection from the engine's 64-bit output (not
// std::uniform_int_distribution, whose algorithm the standard leaves open), so the interval is
// the same on every platform. Requires non-empty `a` and `b`.
RatioInterval BootstrapRatioInterval(const std::vector<RunSample>& a, int converged_used_a,
                                     const std::vector<RunSample>& b, int converged_used_b,
                                     const CompareOptions& options);

// One benchmark (benchmark, scale, division) scored in both A and B, for one system of each.
struct Comparison {
  std::string benchmark, scale, division;
  BenchmarkSummary a, b;
  // The runs compared, by start time: each side's scored window (all its runs unless it had
  // more than the N a result needs; see MedianWindow).
  std::vector<RunSample> a_runs, b_runs;

  std::optional<double> ratio;    // olympic(B) / olympic(A): < 1 when B is faster
  std::optional<double> speedup;  // olympic(A) / olympic(B): > 1 when B is faster
  RatioInterval ci;               // of `ratio` (ok only when both sides have a result)
  // Over the run times, A as x and B as y, non-converged runs as +infinity.
  MannWhitneyResult mann_whitney;

  // p < alpha and the interval excludes 1.0 (and both sides have a result).
  bool significant = false;
  // "B faster", "B slower", "not significant (p >= 0.05)", "not significant (CI contains
  // 1.0)", "not significant (p >= 0.05; CI contains 1.0)" or "no comparison: A has no result
  // (<reason>)".
  std::string verdict;
};

struct CompareReport {
  CompareOptions options;
  std::vector<Comparison> comparisons;   // by benchmark, scale, division, A system, B system
  std::vector<BenchmarkSummary> only_a;  // benchmarks (with scale, division) only in A
  std::vector<BenchmarkSummary> only_b;  // ... only in B
  std::vector<FileIssue> skipped_a, skipped_b;
  std::vector<FileIssue> warnings_a, warnings_b;
};

// Matches the results of A and B on (benchmark, scale, division); when a side holds several
// systems for one of them, each system of A is compared with each of B.
CompareReport Compare(const SummaryReport& a, const SummaryReport& b,
                      const CompareOptions& options = {});

// The runs of `s` that its result was computed from (its window), by start time.
std::vector<RunSample> WindowRuns(const BenchmarkSummary& s);

}  // namespace trainbench::summary

// The statistics of MLPerf scoring, with no I/O: the olympic mean (drop the fastest and the
// slowest run, at most one non-converged run which counts as the slowest), the NCF variant
// (the first K converging runs are used), the median-window rule against cherry-picking (M > N
// runs: use the window of N consecutive runs whose olympic mean is the median of all windows),
// and the coefficient of variation. Times are in whatever unit the caller uses (minutes in
// trainbench); nothing here knows about files or benchmarks.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace trainbench::summary {

// The outcome of scoring a set of runs.
struct ScoreResult {
  bool ok = false;     // false: no result, `reason` says why
  double mean = 0;     // the olympic mean (valid when ok)
  std::string reason;  // why there is no result (empty when ok)
  std::string note;    // how the mean was taken when it departs from the plain rule
};

// The olympic mean of `converged` times plus `failures` runs that did not converge.
// Rules (BENCHMARKS.md §3):
//  - more than one failure: no result;
//  - n = converged + failures >= 3: sort the times, the failed run (if any) is the slowest and is
//    the one dropped, drop the fastest too, and take the mean of the rest;
//  - n in {1, 2} (too few to drop two runs): the plain mean of the times, with a note; a failed
//    run cannot be dropped then, so a failure gives no result;
//  - n = 0: no result.
ScoreResult OlympicMean(std::vector<double> converged, int failures);

// One run as the scoring rules see it, in start-time order.
struct RunSample {
  double time = 0;  // meaningful only when converged
  bool converged = false;
};

// Scores runs[begin, end). converged_used == 0: OlympicMean over the converged runs with the
// others counted as failures. converged_used == K > 0 (v0.5 NCF): the first K converged runs in
// order are used, the non-converged ones are discarded (not failures); fewer than K converged runs
// give no result. `used` (optional) receives the indices (into `runs`) of the runs whose times
// entered the computation, before the fastest and slowest are dropped.
ScoreResult ScoreRuns(const std::vector<RunSample>& runs, size_t begin, size_t end,
                      int converged_used, std::vector<size_t>* used = nullptr);

// The window chosen by the median-window rule.
struct WindowChoice {
  size_t first = 0;          // index of the window's first run
  size_t size = 0;           // runs in the window (min(window, runs.size()))
  size_t windows = 0;        // how many windows were compared (1 when runs.size() <= window)
  ScoreResult score;         // the chosen window's score
  std::vector<size_t> used;  // see ScoreRuns
};

// runs.size() <= window (or window <= 0): one window holding all runs. Otherwise every window of
// `window` consecutive runs is scored with ScoreRuns; windows are ordered by their mean, a window
// without a result ranking as slower than any window with one, ties broken by the earlier window;
// the chosen window is the lower median of that order, position (W - 1) / 2 for W windows (the
// true median when W is odd, the faster of the two middle windows when W is even). If the chosen
// window has no result, there is no result.
WindowChoice MedianWindow(const std::vector<RunSample>& runs, int window, int converged_used);

double Mean(const std::vector<double>& v);  // 0 for an empty vector
// Sample standard deviation (divides by n - 1); nullopt for fewer than 2 values.
std::optional<double> SampleStddev(const std::vector<double>& v);
// Sample standard deviation / mean; nullopt for fewer than 2 values or a zero mean.
std::optional<double> CoefficientOfVariation(const std::vector<double>& v);

}  // namespace trainbench::summary

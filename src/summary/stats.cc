#include "summary/stats.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace trainbench::summary {

ScoreResult OlympicMean(std::vector<double> converged, int failures) {
  ScoreResult r;
  const size_t n = converged.size() + static_cast<size_t>(std::max(failures, 0));
  if (failures > 1) {
    r.reason = std::to_string(failures) + " runs did not converge (at most 1 allowed)";
    return r;
  }
  if (n == 0) {
    r.reason = "no runs";
    return r;
  }
  std::sort(converged.begin(), converged.end());
  if (n < 3) {
    if (failures > 0) {
      r.reason = "a run did not converge and fewer than 3 runs leave none to drop it from";
      return r;
    }
    r.ok = true;
    r.mean = Mean(converged);
    r.note = "fewer than 3 runs: plain mean, nothing dropped";
    return r;
  }
  // The failed run, if any, is the slowest: it is the one dropped at the top.
  const size_t drop_top = failures == 1 ? 0 : 1;
  std::vector<double> kept(converged.begin() + 1, converged.end() - drop_top);
  r.ok = true;
  r.mean = Mean(kept);
  if (failures == 1) r.note = "1 run did not converge: counted as the slowest and dropped";
  return r;
}

ScoreResult ScoreRuns(const std::vector<RunSample>& runs, size_t begin, size_t end,
                      int converged_used, std::vector<size_t>* used) {
  end = std::min(end, runs.size());
  begin = std::min(begin, end);
  std::vector<double> times;
  std::vector<size_t> indices;
  int failures = 0;
  for (size_t i = begin; i < end; ++i) {
    if (runs[i].converged) {
      if (converged_used > 0 && static_cast<int>(times.size()) == converged_used) break;
      times.push_back(runs[i].time);
      indices.push_back(i);
    } else if (converged_used == 0) {
      ++failures;
    }
  }
  if (used) *used = indices;
  if (converged_used > 0) {
    if (static_cast<int>(times.size()) < converged_used) {
      ScoreResult r;
      r.reason = "only " + std::to_string(times.size()) + " converged runs, " +
                 std::to_string(converged_used) + " needed";
      return r;
    }
    ScoreResult r = OlympicMean(times, 0);
    if (r.ok) {
      r.note = "the first " + std::to_string(converged_used) + " converged runs are used";
    }
    return r;
  }
  return OlympicMean(times, failures);
}

WindowChoice MedianWindow(const std::vector<RunSample>& runs, int window, int converged_used) {
  WindowChoice c;
  if (window <= 0 || runs.size() <= static_cast<size_t>(window)) {
    c.first = 0;
    c.size = runs.size();
    c.windows = 1;
    c.score = ScoreRuns(runs, 0, runs.size(), converged_used, &c.used);
    return c;
  }
  const size_t n = static_cast<size_t>(window);
  const size_t w = runs.size() - n + 1;
  std::vector<ScoreResult> scores(w);
  for (size_t i = 0; i < w; ++i) scores[i] = ScoreRuns(runs, i, i + n, converged_used);
  std::vector<size_t> order(w);
  std::iota(order.begin(), order.end(), 0);
  auto key = [&](size_t i) {
    return scores[i].ok ? scores[i].mean : std::numeric_limits<double>::infinity();
  };
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (key(a) != key(b)) return key(a) < key(b);
    return a < b;
  });
  const size_t chosen = order[(w - 1) / 2];
  c.first = chosen;
  c.size = n;
  c.windows = w;
  c.score = ScoreRuns(runs, chosen, chosen + n, converged_used, &c.used);
  if (!c.score.ok) {
    c.score.reason = "the median window (runs " + std::to_string(chosen + 1) + ".." +
                     std::to_string(chosen + n) + ") has no result: " + c.score.reason;
  }
  return c;
}

double Mean(const std::vector<double>& v) {
  if (v.empty()) return 0;
  return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

std::optional<double> SampleStddev(const std::vector<double>& v) {
  if (v.size() < 2) return std::nullopt;
  const double m = Mean(v);
  double ss = 0;
  for (double x : v) ss += (x - m) * (x - m);
  return std::sqrt(ss / static_cast<double>(v.size() - 1));
}

std::optional<double> CoefficientOfVariation(const std::vector<double>& v) {
  auto sd = SampleStddev(v);
  if (!sd) return std::nullopt;
  const double m = Mean(v);
  if (m == 0) return std::nullopt;
  return *sd / m;
}

}  // namespace trainbench::summary

#include "summary/compare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <random>
#include <tuple>

namespace trainbench::summary {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Uniform in [0, n), n >= 1, by rejection (identical on every platform).
size_t DrawIndex(std::mt19937_64& rng, size_t n) {
  const uint64_t range = static_cast<uint64_t>(n);
  const uint64_t limit =
      std::numeric_limits<uint64_t>::max() - std::numeric_limits<uint64_t>::max() % range;
  uint64_t v;
  do {
    v = rng();
  } while (v >= limit);
  return static_cast<size_t>(v % range);
}

double ResampleMean(std::mt19937_64& rng, const std::vector<RunSample>& runs, int converged_used,
                    std::vector<RunSample>* scratch) {
  scratch->resize(runs.size());
  for (auto& s : *scratch) s = runs[DrawIndex(rng, runs.size())];
  ScoreResult r = ScoreRuns(*scratch, 0, scratch->size(), converged_used);
  return r.ok ? r.mean : kInf;
}

// The k-th (1-based, clamped to [1, m]) smallest of the sorted values.
double NearestRank(const std::vector<double>& sorted, double fraction) {
  const double m = static_cast<double>(sorted.size());
  // The epsilon keeps 0.025 * 10000 at 250 whatever the rounding of 0.025.
  double k = std::ceil(fraction * m - 1e-9);
  k = std::clamp(k, 1.0, m);
  return sorted[static_cast<size_t>(k) - 1];
}

std::vector<double> Times(const std::vector<RunSample>& runs) {
  std::vector<double> t;
  t.reserve(runs.size());
  for (const auto& r : runs) t.push_back(r.converged ? r.time : kInf);
  return t;
}

std::string FormatAlpha(double alpha) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%g", alpha);
  return buf;
}

void Judge(Comparison* c, const CompareOptions& options) {
  for (const auto* side : {&c->a, &c->b}) {
    if (!side->has_result) {
      c->verdict = std::string("no comparison: ") + (side == &c->a ? "A" : "B") +
                   " has no result (" + side->no_result_reason + ")";
      return;
    }
  }
  const bool p_ok = c->mann_whitney.ok && c->mann_whitney.p_value < options.alpha;
  const bool ci_ok = c->ci.ok && !c->ci.Contains(1.0);
  c->significant = p_ok && ci_ok;
  if (c->significant) {
    c->verdict = *c->ratio < 1.0 ? "B faster" : "B slower";
    return;
  }
  std::string why;
  if (!p_ok) why = "p >= " + FormatAlpha(options.alpha);
  if (!ci_ok) why += std::string(why.empty() ? "" : "; ") + "CI contains 1.0";
  c->verdict = "not significant (" + why + ")";
}

Comparison CompareOne(const BenchmarkSummary& a, const BenchmarkSummary& b,
                      const CompareOptions& options) {
  Comparison c;
  c.benchmark = a.benchmark;
  c.scale = a.scale;
  c.division = a.division;
  c.a = a;
  c.b = b;
  c.a_runs = WindowRuns(a);
  c.b_runs = WindowRuns(b);
  c.mann_whitney = MannWhitneyU(Times(c.a_runs), Times(c.b_runs));
  if (a.olympic_mean_minutes && b.olympic_mean_minutes && *a.olympic_mean_minutes > 0 &&
      *b.olympic_mean_minutes > 0) {
    c.ratio = *b.olympic_mean_minutes / *a.olympic_mean_minutes;
    c.speedup = *a.olympic_mean_minutes / *b.olympic_mean_minutes;
    c.ci = BootstrapRatioInterval(c.a_runs, a.rule.converged_used, c.b_runs, b.rule.converged_used,
                                  options);
  }
  Judge(&c, options);
  return c;
}

using MatchKey = std::tuple<std::string, std::string, std::string>;

MatchKey KeyOf(const BenchmarkSummary& s) { return {s.benchmark, s.scale, s.division}; }

}  // namespace

std::vector<RunSample> WindowRuns(const BenchmarkSummary& s) {
  std::vector<RunSample> out;
  const size_t end = std::min(s.runs.size(), s.window_first + s.window_size);
  for (size_t i = s.window_first; i < end; ++i) {
    out.push_back({s.runs[i].minutes, s.runs[i].converged});
  }
  return out;
}

RatioInterval BootstrapRatioInterval(const std::vector<RunSample>& a, int converged_used_a,
                                     const std::vector<RunSample>& b, int converged_used_b,
                                     const CompareOptions& options) {
  RatioInterval ci;
  if (a.empty() || b.empty() || options.resamples < 1) return ci;
  std::mt19937_64 rng(options.seed);
  std::vector<RunSample> scratch;
  std::vector<double> ratios;
  ratios.reserve(static_cast<size_t>(options.resamples));
  for (int r = 0; r < options.resamples; ++r) {
    const double ma = ResampleMean(rng, a, converged_used_a, &scratch);
    const double mb = ResampleMean(rng, b, converged_used_b, &scratch);
    const double ratio = mb / ma;  // inf / inf and 0 / 0 are NaN
    if (std::isnan(ratio)) {
      ++ci.undefined;
    } else {
      ratios.push_back(ratio);
    }
  }
  ci.resamples = options.resamples;
  if (ratios.empty()) return ci;
  std::sort(ratios.begin(), ratios.end());
  const double tail = (1.0 - options.confidence) / 2.0;
  ci.ok = true;
  ci.low = NearestRank(ratios, tail);
  ci.high = NearestRank(ratios, 1.0 - tail);
  return ci;
}

CompareReport Compare(const SummaryReport& a, const SummaryReport& b,
                      const CompareOptions& options) {
  CompareReport report;
  report.options = options;
  report.skipped_a = a.skipped;
  report.skipped_b = b.skipped;
  report.warnings_a = a.warnings;
  report.warnings_b = b.warnings;
  std::map<MatchKey, std::vector<const BenchmarkSummary*>> in_b;
  for (const auto& s : b.results) in_b[KeyOf(s)].push_back(&s);
  std::map<MatchKey, bool> matched;
  for (const auto& sa : a.results) {
    auto it = in_b.find(KeyOf(sa));
    if (it == in_b.end()) {
      report.only_a.push_back(sa);
      continue;
    }
    matched[it->first] = true;
    for (const BenchmarkSummary* sb : it->second) {
      report.comparisons.push_back(CompareOne(sa, *sb, options));
    }
  }
  for (const auto& sb : b.results) {
    if (!matched.count(KeyOf(sb))) report.only_b.push_back(sb);
  }
  // Summarize sorts by (benchmark, scale, system, division); order comparisons by the match key.
  std::stable_sort(report.comparisons.begin(), report.comparisons.end(),
                   [](const Comparison& x, const Comparison& y) {
                     return std::tie(x.benchmark, x.scale, x.division, x.a.system, x.b.system) <
                            std::tie(y.benchmark, y.scale, y.division, y.a.system, y.b.system);
                   });
  return report;
}

}  // namespace trainbench::summary

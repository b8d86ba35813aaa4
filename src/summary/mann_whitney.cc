#include "summary/mann_whitney.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace trainbench::summary {

namespace {

// Two-sided exact p-value of the rank sum of m values drawn from `doubled_ranks` (2 x midrank,
// integers) against the observed doubled rank sum.
double ExactPValue(const std::vector<int>& doubled_ranks, size_t m, int observed) {
  int max_sum = 0;
  for (int w : doubled_ranks) max_sum += w;
  // ways[k][s]: subsets of k of the values seen so far with doubled rank sum s.
  std::vector<std::vector<double>> ways(m + 1, std::vector<double>(max_sum + 1, 0.0));
  ways[0][0] = 1;
  size_t seen = 0;
  for (int w : doubled_ranks) {
    ++seen;
    for (size_t k = std::min(seen, m); k >= 1; --k) {
      for (int s = max_sum - w; s >= 0; --s) {
        if (ways[k - 1][s] != 0) ways[k][s + w] += ways[k - 1][s];
      }
    }
  }
  double total = 0, low = 0, high = 0;
  for (int s = 0; s <= max_sum; ++s) {
    const double c = ways[m][s];
    total += c;
    if (s <= observed) low += c;
    if (s >= observed) high += c;
  }
  return std::min(1.0, 2.0 * std::min(low, high) / total);
}

}  // namespace

MannWhitneyResult MannWhitneyU(const std::vector<double>& x, const std::vector<double>& y,
                               int exact_max_n) {
  MannWhitneyResult r;
  const size_t nx = x.size(), ny = y.size();
  if (nx == 0 || ny == 0) return r;
  // NaN is not ordered: the sort below would be undefined and `==` never true, so the tie scan
  // would not advance. Callers refuse non-finite run times before; refuse here too.
  auto has_nan = [](const std::vector<double>& v) {
    return std::any_of(v.begin(), v.end(), [](double d) { return std::isnan(d); });
  };
  if (has_nan(x) || has_nan(y)) return r;
  r.ok = true;
  const size_t n = nx + ny;
  std::vector<std::pair<double, bool>> all;  // (value, from x)
  all.reserve(n);
  for (double v : x) all.emplace_back(v, true);
  for (double v : y) all.emplace_back(v, false);
  std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<int> doubled_ranks(n);
  int doubled_rank_sum_x = 0;
  double tie_term = 0;  // sum(t^3 - t)
  for (size_t i = 0; i < n;) {
    size_t j = i + 1;  // a tie group holds at least its first value, whatever == says
    while (j < n && all[j].first == all[i].first) ++j;
    const int doubled_midrank = static_cast<int>(i + 1 + j);  // ranks i+1 .. j
    for (size_t k = i; k < j; ++k) {
      doubled_ranks[k] = doubled_midrank;
      if (all[k].second) doubled_rank_sum_x += doubled_midrank;
    }
    const double t = static_cast<double>(j - i);
    if (t > 1) {
      r.ties = true;
      tie_term += t * t * t - t;
    }
    i = j;
  }
  const double dnx = static_cast<double>(nx), dny = static_cast<double>(ny);
  const double dn = static_cast<double>(n);
  r.u_x = doubled_rank_sum_x / 2.0 - dnx * (dnx + 1) / 2.0;
  r.u_y = dnx * dny - r.u_x;
  r.u = std::min(r.u_x, r.u_y);

  if (n <= static_cast<size_t>(std::min(exact_max_n, kMannWhitneyExactMaxN))) {
    r.exact = true;
    r.p_value = ExactPValue(doubled_ranks, nx, doubled_rank_sum_x);
    return r;
  }
  const double mu = dnx * dny / 2.0;
  const double var = dnx * dny / 12.0 * ((dn + 1) - tie_term / (dn * (dn - 1)));
  if (var <= 0) {
    r.p_value = 1;
    return r;
  }
  r.z = std::max(0.0, std::fabs(r.u_x - mu) - 0.5) / std::sqrt(var);
  r.p_value = std::min(1.0, std::erfc(r.z / std::sqrt(2.0)));
  return r;
}

}  // namespace trainbench::summary

// The Mann-Whitney U test (Wilcoxon rank-sum) of two independent samples, two-sided, with no
// I/O. `compare` runs it over the run times of two results; a run that did not converge enters
// as +infinity (slower than every converged run, tied with the other non-converged ones).
//
// Ranks are midranks; U_x = R_x - n_x (n_x + 1) / 2 is the number of pairs (x, y) with x > y,
// a tie counting 1/2; U_y = n_x n_y - U_x; U = min(U_x, U_y). The two-sided p-value:
//  - exact, when n_x + n_y <= exact_max_n (default kMannWhitneyExactMaxN): the permutation
//    distribution of R_x over all C(n_x + n_y, n_x) ways to split the observed values (midranks
//    included) between the samples, p = min(1, 2 min(P(R <= R_x), P(R >= R_x))). Without ties
//    this is the classic exact null distribution of U (p = 2 P(U' <= U)); with ties it is the
//    exact test conditional on the tie pattern, e.g. five runs of 10 min against five of 5 min
//    give U = 0 and p = 2 / 252.
//  - normal approximation otherwise, with the tie correction and a continuity correction (as
//    scipy.stats.mannwhitneyu): z = (|U_x - n_x n_y / 2| - 1/2) / sigma, sigma^2 =
//    n_x n_y / 12 * ((N + 1) - sum(t^3 - t) / (N (N - 1))) over the tie groups t,
//    N = n_x + n_y; p = erfc(z / sqrt(2)), at most 1. Every value tied (sigma = 0): p = 1.
#pragma once

#include <string>
#include <vector>

namespace trainbench::summary {

// Exact p-values up to this many observations in all: the permutation counts (at most
// C(50, 25) ~ 1.3e14 < 2^53) stay exact in a double.
inline constexpr int kMannWhitneyExactMaxN = 50;

struct MannWhitneyResult {
  bool ok = false;     // false: a sample is empty or holds a NaN (nothing to test)
  double u_x = 0;      // pairs with x > y (+ 1/2 per tie)
  double u_y = 0;      // pairs with y > x (+ 1/2 per tie)
  double u = 0;        // min(u_x, u_y)
  double p_value = 1;  // two-sided
  bool exact = false;  // true: exact permutation distribution; false: normal approximation
  double z = 0;        // z >= 0 of the normal approximation (0 when exact)
  bool ties = false;   // some values are equal (within or across the samples)

  // "exact" or "normal".
  std::string Method() const { return exact ? "exact" : "normal"; }
};

// Tests x against y. Values may be +infinity; a NaN anywhere gives ok = false (no test).
// `exact_max_n` above 50 is taken as 50.
// Deterministic; the exact distribution takes O(N^2 n_x) time and O(N^2 n_x) doubles of memory.
MannWhitneyResult MannWhitneyU(const std::vector<double>& x, const std::vector<double>& y,
                               int exact_max_n = kMannWhitneyExactMaxN);

}  // namespace trainbench::summary

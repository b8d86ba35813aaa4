// Mann-Whitney U against hand-computed values: the exact ones were counted over all
// C(n_x + n_y, n_x) splits of the values (a brute-force enumeration, e.g. 252 for 5 vs 5), the
// normal ones are scipy.stats.mannwhitneyu's formula (tie and continuity corrections) by hand.
#include "summary/mann_whitney.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace trainbench::summary {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(MannWhitneyU, FiveAgainstFiveSeparatedIsTwoOver252) {
  MannWhitneyResult r = MannWhitneyU({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10});
  ASSERT_TRUE(r.ok);
  EXPECT_TRUE(r.exact);
  EXPECT_FALSE(r.ties);
  EXPECT_EQ(r.u_x, 0);
  EXPECT_EQ(r.u_y, 25);
  EXPECT_EQ(r.u, 0);
  EXPECT_DOUBLE_EQ(r.p_value, 2.0 / 252.0);  // 0.0079: the smallest 5-vs-5 p-value
  // Symmetric in the samples.
  MannWhitneyResult s = MannWhitneyU({6, 7, 8, 9, 10}, {1, 2, 3, 4, 5});
  EXPECT_EQ(s.u_x, 25);
  EXPECT_EQ(s.u, 0);
  EXPECT_DOUBLE_EQ(s.p_value, r.p_value);
}

TEST(MannWhitneyU, InterleavedFiveAgainstFive) {
  // U_x = 0 + 1 + 2 + 3 + 4 = 10; 87 of the 252 splits have U <= 10: p = 174/252 = 0.690.
  MannWhitneyResult r = MannWhitneyU({1, 3, 5, 7, 9}, {2, 4, 6, 8, 10});
  EXPECT_TRUE(r.exact);
  EXPECT_EQ(r.u_x, 10);
  EXPECT_EQ(r.u_y, 15);
  EXPECT_DOUBLE_EQ(r.p_value, 174.0 / 252.0);
}

TEST(MannWhitneyU, UnequalSizesExact) {
  // 3 vs 4: U = 3; 7 of the 35 splits have U <= 3: p = 14/35 = 0.4.
  MannWhitneyResult r = MannWhitneyU({1.1, 2.2, 3.3}, {0.5, 4.4, 5.5, 6.6});
  EXPECT_TRUE(r.exact);
  EXPECT_EQ(r.u_x, 3);
  EXPECT_EQ(r.u, 3);
  EXPECT_DOUBLE_EQ(r.p_value, 0.4);
}

TEST(MannWhitneyU, TiesWithinEachSampleOnlyStayExact) {
  // Five runs of 10 min against five of 5 min: the only split as extreme is the observed one.
  MannWhitneyResult r = MannWhitneyU({10, 10, 10, 10, 10}, {5, 5, 5, 5, 5});
  EXPECT_TRUE(r.exact);
  EXPECT_TRUE(r.ties);
  EXPECT_EQ(r.u_x, 25);
  EXPECT_EQ(r.u, 0);
  EXPECT_DOUBLE_EQ(r.p_value, 2.0 / 252.0);
}

TEST(MannWhitneyU, TiesAcrossSamplesExact) {
  // 3, 4, 5 appear on both sides: U_x = 4.5; P(U <= 4.5) = 16/252 over the splits of these
  // values: p = 32/252.
  MannWhitneyResult r = MannWhitneyU({1, 2, 3, 4, 5}, {3, 4, 5, 6, 7});
  EXPECT_TRUE(r.exact);
  EXPECT_TRUE(r.ties);
  EXPECT_EQ(r.u_x, 4.5);
  EXPECT_EQ(r.u_y, 20.5);
  EXPECT_DOUBLE_EQ(r.p_value, 32.0 / 252.0);
}

TEST(MannWhitneyU, NonConvergedRunIsSlowest) {
  // +inf beats every y; 8 ties with 8: U_x = 23; 5 of 252 splits have U_x >= 23: p = 10/252.
  MannWhitneyResult r = MannWhitneyU({8, 9, 10, 11, kInf}, {5, 6, 7, 8, 9});
  EXPECT_TRUE(r.exact);
  EXPECT_EQ(r.u_x, 23);
  EXPECT_DOUBLE_EQ(r.p_value, 10.0 / 252.0);
  // Infinities tie with each other: U_x = 5 of 12 (2 + 2 + 0.5 + 0.5 for the three ties),
  // p = 2 * 16/35.
  MannWhitneyResult t = MannWhitneyU({1, 2, kInf, kInf}, {3, kInf, 4});
  EXPECT_EQ(t.u_x, 5);
  EXPECT_DOUBLE_EQ(t.p_value, 32.0 / 35.0);
}

TEST(MannWhitneyU, IdenticalSamplesAreNotSignificant) {
  MannWhitneyResult r = MannWhitneyU({10, 10, 10, 10, 10}, {10, 10, 10, 10, 10});
  EXPECT_EQ(r.u, 12.5);
  EXPECT_DOUBLE_EQ(r.p_value, 1.0);
  MannWhitneyResult n = MannWhitneyU({10, 10, 10}, {10, 10, 10}, /*exact_max_n=*/0);
  EXPECT_FALSE(n.exact);
  EXPECT_DOUBLE_EQ(n.p_value, 1.0);  // sigma = 0
}

TEST(MannWhitneyU, NormalApproximationWithTieCorrection) {
  // N = 10, ties {3, 4, 5} twice each: sum(t^3 - t) = 18; sigma^2 = 25/12 * (11 - 18/90) = 22.5;
  // z = (|4.5 - 12.5| - 0.5) / sqrt(22.5) = 1.5811; p = erfc(z / sqrt 2) = 0.113846.
  MannWhitneyResult r = MannWhitneyU({1, 2, 3, 4, 5}, {3, 4, 5, 6, 7}, /*exact_max_n=*/0);
  EXPECT_FALSE(r.exact);
  EXPECT_EQ(r.Method(), "normal");
  EXPECT_NEAR(r.z, 1.5811388300841895, 1e-12);
  EXPECT_NEAR(r.p_value, 0.11384629800665812, 1e-12);
  // The textbook 5 vs 4 example without ties: U_x = 17, z = (17 - 10 - 0.5) / sqrt(50/3),
  // p = 0.111347.
  MannWhitneyResult t = MannWhitneyU({19, 22, 16, 29, 24}, {20, 11, 17, 12}, 0);
  EXPECT_EQ(t.u_x, 17);
  EXPECT_NEAR(t.p_value, 0.11134688653314048, 1e-12);
  // Exact for the same data: 7 of the 126 splits have U_x >= 17: p = 14/126.
  MannWhitneyResult e = MannWhitneyU({19, 22, 16, 29, 24}, {20, 11, 17, 12});
  EXPECT_TRUE(e.exact);
  EXPECT_DOUBLE_EQ(e.p_value, 14.0 / 126.0);
}

TEST(MannWhitneyU, LargeSamplesUseTheNormalApproximation) {
  std::vector<double> x, y;
  for (int i = 0; i < 30; ++i) {
    x.push_back(i);
    y.push_back(i + 0.5);
  }
  MannWhitneyResult r = MannWhitneyU(x, y);
  EXPECT_FALSE(r.exact);
  EXPECT_EQ(r.u_x, 435);                              // sum over i of i (x_i beats y_0 .. y_{i-1})
  EXPECT_NEAR(r.p_value, 0.8302552839111963, 1e-12);  // z = 14.5 / sqrt(900 * 61 / 12)
}

TEST(MannWhitneyU, NaNIsRefusedInsteadOfHanging) {
  // A NaN run time (inf - inf ms) never compared equal to itself: the tie scan did not advance.
  const double nan = std::nan("");
  EXPECT_FALSE(MannWhitneyU({1, nan, 3}, {2, 4}).ok);
  EXPECT_FALSE(MannWhitneyU({1, 3}, {nan}).ok);
  EXPECT_TRUE(MannWhitneyU({1, kInf}, {2, kInf}).ok);
}

TEST(MannWhitneyU, EmptySampleHasNoTest) {
  EXPECT_FALSE(MannWhitneyU({}, {1, 2}).ok);
  EXPECT_FALSE(MannWhitneyU({1}, {}).ok);
}

}  // namespace
}  // namespace trainbench::summary

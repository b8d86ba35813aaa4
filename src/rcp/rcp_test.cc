// The RCP arithmetic on hand-computed cases (the expected bounds were checked against
// mlperf_logging's rcp_checker at commit 7bbf792, which computes them the same way).
#include "rcp/rcp.h"

#include <gtest/gtest.h>

#include <cmath>

namespace trainbench::rcp {
namespace {

RcpRecord Record(const std::string& name, double bs, std::vector<double> epochs,
                 const std::string& benchmark = "resnet") {
  RcpRecord r;
  r.name = name;
  r.benchmark = benchmark;
  r.bs = bs;
  r.epochs = std::move(epochs);
  return r;
}

TEST(RcpStatsTest, OlympicMeanDropsFastestAndSlowest) {
  EXPECT_DOUBLE_EQ(OlympicMean({6, 5, 4, 6, 6}, "resnet"), 17.0 / 3);
  EXPECT_DOUBLE_EQ(OlympicMean({1, 2, 3}, "ssd"), 2.0);
  // unet3d drops four at each end.
  EXPECT_DOUBLE_EQ(OlympicMean({1, 1, 1, 1, 5, 9, 9, 9, 9}, "unet3d"), 5.0);
  // A run that did not converge counts as 1e9 and is the slowest, dropped.
  EXPECT_DOUBLE_EQ(OlympicMean({kNotConverged, 4, 5, 6, 7}, "resnet"), 6.0);
  EXPECT_TRUE(std::isnan(OlympicMean({1, 2}, "resnet")));  // Python's empty slice
}

TEST(RcpStatsTest, StdevIsPopulationStdevOfAllRuns) {
  // mean 5.4; squared deviations 1.96 + 0.16 + 3 * 0.36 = 3.2; 3.2 / 5 = 0.64.
  EXPECT_NEAR(NumpyStd({4, 5, 6, 6, 6}), 0.8, 1e-15);
  EXPECT_EQ(NumpyStd({4, 5, 6, 6, 6}), 0.7999999999999999);  // numpy's bits
  EXPECT_EQ(NumpyStd({5, 5, 5}), 0.0);
}

TEST(RcpStatsTest, NumpySumIsPairwise) {
  std::vector<double> v(9, 0.1);
  // numpy: 8 partial sums, then the ninth: differs from a left-to-right sum in the last bit.
  double r = ((0.1 + 0.1) + (0.1 + 0.1)) + ((0.1 + 0.1) + (0.1 + 0.1));
  EXPECT_EQ(NumpySum(v), 0.0 + (r + 0.1));
}

TEST(RcpStatsTest, StudentTCdf) {
  EXPECT_NEAR(StudentTCdf(1, -1), 0.25, 1e-15);  // Cauchy
  EXPECT_NEAR(StudentTCdf(2, -1), 0.5 - 1 / (2 * std::sqrt(3.0)), 1e-15);
  EXPECT_NEAR(StudentTCdf(4, -2.131847), 0.049999987986196814, 1e-13);  // t(0.95, 4)
  EXPECT_NEAR(StudentTCdf(7.5, -0.3), 0.38616132928438907, 1e-13);
  EXPECT_NEAR(StudentTCdf(4, 2.131847), 1 - 0.049999987986196814, 1e-13);
  EXPECT_EQ(StudentTCdf(3, 0), 0.5);
  EXPECT_TRUE(std::isnan(StudentTCdf(0, -1)));
}

TEST(RcpStatsTest, MinAcceptableMeanIsTheOneSidedBound) {
  RcpOptions o;  // 5 submission runs: 3 on the submission side
  // mean 17/3, stdev 0.8, 3 reference runs: df 4, se 0.8 * sqrt(2/3) = 0.6532;
  // 17/3 - 2.131847 * 0.6532 = 4.2741 (bisection to 1e-4).
  EXPECT_NEAR(MinAcceptableMean(17.0 / 3, 0.7999999999999999, 3, o), 4.27416737874349, 1e-12);
  EXPECT_NEAR(MinAcceptableMean(5.5, 1.0, 10, o), 4.317813873291016, 1e-12);
  o.submission_runs = 10;
  EXPECT_NEAR(MinAcceptableMean(5.5, 1.0, 20, o), 4.786525726318359, 1e-12);
  // No spread: the bound is the mean itself.
  EXPECT_EQ(MinAcceptableMean(25, 0, 3, o), 25);
}

TEST(RcpStatsTest, ComputeStats) {
  RcpOptions o;
  RcpRecord r = Record("resnet_ref_128", 128, {6, 5, 4, 6, 6});
  ComputeStats(r, o);
  EXPECT_EQ(r.epochs, (std::vector<double>{4, 5, 6, 6, 6}));
  EXPECT_DOUBLE_EQ(r.mean, 17.0 / 3);
  EXPECT_NEAR(r.stdev, 0.8, 1e-15);
  EXPECT_NEAR(r.min_epochs, 4.27416737874349, 1e-12);
  EXPECT_DOUBLE_EQ(r.max_speedup, r.mean / r.min_epochs);
}

TEST(RcpStatsTest, InterpolationIsLinearInBatchSize) {
  RcpOptions o;
  RcpRecord lo = Record("a", 64, {4, 4, 4}), hi = Record("b", 256, {8, 8, 8});
  ComputeStats(lo, o);
  ComputeStats(hi, o);
  RcpRecord r = Interpolate(128, lo, hi, o);
  EXPECT_DOUBLE_EQ(r.mean, 4 + 4.0 * 64 / 192);  // 5.333
  EXPECT_EQ(r.stdev, 0);
  EXPECT_EQ(r.min_epochs, r.mean);
  EXPECT_EQ(r.name, "resnet_interp_128.0");  // Python's str of a float batch size
  EXPECT_TRUE(r.interpolated);
  EXPECT_DOUBLE_EQ(NumpyInterp(96, 64, 128, 1.0, 3.0), 2.0);
}

TEST(RcpStatsTest, PruningKeepsTheLowerConvergence) {
  RcpOptions o;
  // 32 converges slower than the fastest (64): dropped; 128 slower than the interpolation of
  // 64 and 256 (5 + 3 * 64 / 192 = 6 < 9): dropped.
  RcpSet s = MakeRcpSet({Record("r256", 256, {8, 8, 8}), Record("r32", 32, {6, 6, 6}),
                         Record("r64", 64, {5, 5, 5}), Record("r128", 128, {9, 9, 9})},
                        o);
  ASSERT_EQ(s.all.size(), 4u);
  EXPECT_EQ(s.all[0].name, "r32");  // sorted by batch size
  ASSERT_EQ(s.pruned.size(), 2u);
  EXPECT_EQ(s.pruned[0].name, "r64");
  EXPECT_EQ(s.pruned[1].name, "r256");
}

RcpSet TwoPoints(const RcpOptions& o) {
  return MakeRcpSet(
      {Record("resnet_ref_64", 64, {4, 4, 4}), Record("resnet_ref_256", 256, {8, 8, 8})}, o);
}

TEST(RcpEvaluateTest, RcpFoundPassAndFail) {
  RcpOptions o;
  RcpSet s = MakeRcpSet({Record("resnet_ref_128", 128, {6, 5, 4, 6, 6})}, o);
  Verdict v = Evaluate(s, 128, "128", {5, 5, 5, 5, 9}, o);  // mean 5 >= 4.274
  EXPECT_EQ(v.outcome, Outcome::kPass);
  EXPECT_EQ(v.message, "RCP found");
  EXPECT_DOUBLE_EQ(v.norm_factor, (17.0 / 3) / 5);  // faster than the mean: normalized
  v = Evaluate(s, 128, "128", {4, 4, 4, 4, 4}, o);  // mean 4 < 4.274
  EXPECT_EQ(v.outcome, Outcome::kFail);
  EXPECT_EQ(v.message, "RCP found");
  v = Evaluate(s, 128, "128", {6, 6, 7, 7, 7}, o);  // slower: no normalization
  EXPECT_EQ(v.outcome, Outcome::kPass);
  EXPECT_EQ(v.norm_factor, 1.0);
}

TEST(RcpEvaluateTest, Interpolation) {
  RcpOptions o;
  RcpSet s = TwoPoints(o);
  Verdict v = Evaluate(s, 128, "128", {6, 6, 6, 6, 6}, o);
  EXPECT_EQ(v.outcome, Outcome::kPass);
  EXPECT_EQ(v.message, "RCP Interpolation");
  ASSERT_TRUE(v.rcp);
  EXPECT_DOUBLE_EQ(v.rcp->mean, 4 + 4.0 * 64 / 192);
  v = Evaluate(s, 128, "128", {5, 5, 5, 5, 5}, o);  // 5 < 5.333
  EXPECT_EQ(v.outcome, Outcome::kFail);
  EXPECT_EQ(v.message, "RCP Interpolation");
}

TEST(RcpEvaluateTest, OutsideTheRange) {
  RcpOptions o;
  RcpSet s = TwoPoints(o);
  // Above the largest batch size: missing, not judged.
  Verdict v = Evaluate(s, 512, "512", {100, 100, 100}, o);
  EXPECT_EQ(v.outcome, Outcome::kMissing);
  EXPECT_EQ(v.message, "Missing RCP, please submit RCP with BS = 512");
  // Below the smallest: judged against the smallest.
  v = Evaluate(s, 32, "32", {4, 4, 4}, o);
  EXPECT_EQ(v.outcome, Outcome::kPass);
  EXPECT_EQ(v.message, "RCP not found but slower convergence on smaller batch size");
  v = Evaluate(s, 32, "32", {3, 3, 3}, o);
  EXPECT_EQ(v.outcome, Outcome::kMissing);
  EXPECT_EQ(v.message, "Missing RCP, please submit RCP with BS = 32");
  v = Evaluate(RcpSet{}, 32, "32", {3, 3, 3}, o);
  EXPECT_EQ(v.outcome, Outcome::kMissing);
  EXPECT_EQ(v.message, "Cannot find any RCPs");
}

TEST(RcpEvaluateTest, FullVersusPrunedRcps) {
  RcpOptions o;
  std::vector<RcpRecord> recs = {Record("r64", 64, {5, 5, 5}), Record("r128", 128, {9, 9, 9}),
                                 Record("r256", 256, {8, 8, 8})};
  RcpSet s = MakeRcpSet(recs, o);
  // Pruned: 128 is interpolated (mean 6); full: judged against its own record (mean 9).
  EXPECT_EQ(Evaluate(s, 128, "128", {7, 7, 7}, o).outcome, Outcome::kPass);
  o.pruned = false;
  Verdict v = Evaluate(s, 128, "128", {7, 7, 7}, o);
  EXPECT_EQ(v.outcome, Outcome::kFail);
  EXPECT_EQ(v.message, "RCP found");
}

TEST(RcpVersionTest, Rulesets) {
  EXPECT_TRUE(IsKnownRuleset("1.0.0"));
  EXPECT_TRUE(IsKnownRuleset("6.1.0"));
  EXPECT_FALSE(IsKnownRuleset("0.7.0"));
  EXPECT_TRUE(IsVersionAtLeast("5.1.0", "5.0.0"));
  EXPECT_FALSE(IsVersionAtLeast("4.1.0", "5.0.0"));
  EXPECT_TRUE(IsVersionAtLeast("6", "5.0.0"));
  EXPECT_EQ(OfficialSubmissionRuns("resnet"), 5);
  EXPECT_EQ(OfficialSubmissionRuns("bert"), 10);
  EXPECT_FALSE(OfficialSubmissionRuns("gnmt"));
}

}  // namespace
}  // namespace trainbench::rcp

#include "summary/stats.h"

#include <gtest/gtest.h>

#include <cmath>

namespace trainbench::summary {
namespace {

constexpr RunSample F{0, false};  // a run that did not converge
RunSample T(double t) { return {t, true}; }

TEST(OlympicMean, DropsFastestAndSlowest) {
  ScoreResult r = OlympicMean({5, 1, 3, 2, 4}, 0);
  ASSERT_TRUE(r.ok) << r.reason;
  EXPECT_DOUBLE_EQ(r.mean, 3.0);  // (2 + 3 + 4) / 3
  EXPECT_TRUE(r.note.empty());

  r = OlympicMean({10, 100, 11, 13, 1}, 0);
  ASSERT_TRUE(r.ok);
  EXPECT_DOUBLE_EQ(r.mean, (10 + 11 + 13) / 3.0);
}

TEST(OlympicMean, OneFailedRunIsTheSlowestAndIsDropped) {
  // Four converged runs and one failure: drop the fastest (1) and the failure; keep 2, 3, 40.
  ScoreResult r = OlympicMean({40, 1, 3, 2}, 1);
  ASSERT_TRUE(r.ok) << r.reason;
  EXPECT_DOUBLE_EQ(r.mean, (2 + 3 + 40) / 3.0);
  EXPECT_NE(r.note.find("did not converge"), std::string::npos);
}

TEST(OlympicMean, TwoFailuresGiveNoResult) {
  ScoreResult r = OlympicMean({1, 2, 3}, 2);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.reason, "2 runs did not converge (at most 1 allowed)");
}

TEST(OlympicMean, FewerThanThreeRuns) {
  ScoreResult r = OlympicMean({4, 6}, 0);
  ASSERT_TRUE(r.ok);
  EXPECT_DOUBLE_EQ(r.mean, 5.0);
  EXPECT_NE(r.note.find("plain mean"), std::string::npos);

  r = OlympicMean({4}, 1);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.reason.find("fewer than 3 runs"), std::string::npos);

  r = OlympicMean({}, 0);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.reason, "no runs");

  // Three runs: exactly one is kept.
  r = OlympicMean({9, 7, 8}, 0);
  ASSERT_TRUE(r.ok);
  EXPECT_DOUBLE_EQ(r.mean, 8.0);
  r = OlympicMean({9, 7}, 1);
  ASSERT_TRUE(r.ok);
  EXPECT_DOUBLE_EQ(r.mean, 9.0);
}

TEST(ScoreRuns, CountsNonConvergedRunsAsFailures) {
  std::vector<RunSample> runs = {T(3), F, T(1), T(2), T(4)};
  std::vector<size_t> used;
  ScoreResult r = ScoreRuns(runs, 0, runs.size(), 0, &used);
  ASSERT_TRUE(r.ok);
  EXPECT_DOUBLE_EQ(r.mean, 3.0);  // drop 1 and the failure: (2 + 3 + 4) / 3
  EXPECT_EQ(used, (std::vector<size_t>{0, 2, 3, 4}));
}

TEST(ScoreRuns, NcfUsesTheFirstConvergingRuns) {
  // K = 3: the failures are discarded, the first three converged runs (1, 2, 3) are used and
  // the later 100 is not.
  std::vector<RunSample> runs = {F, T(1), F, T(2), T(3), T(100)};
  std::vector<size_t> used;
  ScoreResult r = ScoreRuns(runs, 0, runs.size(), 3, &used);
  ASSERT_TRUE(r.ok) << r.reason;
  EXPECT_DOUBLE_EQ(r.mean, 2.0);
  EXPECT_EQ(used, (std::vector<size_t>{1, 3, 4}));

  r = ScoreRuns(runs, 0, 5, 4);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.reason, "only 3 converged runs, 4 needed");
}

TEST(MedianWindow, AtMostNRunsIsOneWindow) {
  std::vector<RunSample> runs = {T(5), T(1), T(3)};
  WindowChoice w = MedianWindow(runs, 5, 0);
  EXPECT_EQ(w.first, 0u);
  EXPECT_EQ(w.size, 3u);
  EXPECT_EQ(w.windows, 1u);
  ASSERT_TRUE(w.score.ok);
  EXPECT_DOUBLE_EQ(w.score.mean, 3.0);
}

TEST(MedianWindow, OddNumberOfWindowsTakesTheMedian) {
  // N = 3 over 10, 20, 30, 40, 50: windows score 20, 30, 40; the median is the second window.
  std::vector<RunSample> runs = {T(10), T(20), T(30), T(40), T(50)};
  WindowChoice w = MedianWindow(runs, 3, 0);
  EXPECT_EQ(w.windows, 3u);
  EXPECT_EQ(w.first, 1u);
  EXPECT_EQ(w.size, 3u);
  ASSERT_TRUE(w.score.ok);
  EXPECT_DOUBLE_EQ(w.score.mean, 30.0);
  EXPECT_EQ(w.used, (std::vector<size_t>{1, 2, 3}));
}

TEST(MedianWindow, OrdersWindowsByScoreNotPosition) {
  // Windows: [30 10 50] -> 30, [10 50 20] -> 20, [50 20 40] -> 40. Sorted: 20 (w1), 30 (w0),
  // 40 (w2): the median is the first window, not the middle one.
  std::vector<RunSample> runs = {T(30), T(10), T(50), T(20), T(40)};
  WindowChoice w = MedianWindow(runs, 3, 0);
  EXPECT_EQ(w.first, 0u);
  EXPECT_DOUBLE_EQ(w.score.mean, 30.0);
}

TEST(MedianWindow, EvenNumberOfWindowsTakesTheLowerMedian) {
  // Windows: [10 20 30] -> 20, [20 30 40] -> 30: the lower (faster) of the two middle windows.
  std::vector<RunSample> runs = {T(10), T(20), T(30), T(40)};
  WindowChoice w = MedianWindow(runs, 3, 0);
  EXPECT_EQ(w.windows, 2u);
  EXPECT_EQ(w.first, 0u);
  EXPECT_DOUBLE_EQ(w.score.mean, 20.0);

  // Four windows: [4 1 9] -> 4, [1 9 2] -> 2, [9 2 8] -> 8, [2 8 3] -> 3; sorted 2 (w1), 3 (w3),
  // 4 (w0), 8 (w2); position (4 - 1) / 2 = 1 -> w3.
  runs = {T(4), T(1), T(9), T(2), T(8), T(3)};
  w = MedianWindow(runs, 3, 0);
  EXPECT_EQ(w.windows, 4u);
  EXPECT_EQ(w.first, 3u);
  EXPECT_DOUBLE_EQ(w.score.mean, 3.0);
}

TEST(MedianWindow, TiesGoToTheEarlierWindow) {
  std::vector<RunSample> runs = {T(7), T(7), T(7), T(7), T(7)};
  WindowChoice w = MedianWindow(runs, 3, 0);
  EXPECT_EQ(w.first, 1u);  // order w0, w1, w2; median position 1
}

TEST(MedianWindow, WindowsWithoutAResultRankAsSlowest) {
  // Windows: [F F 5] none, [F 5 6] -> 6, [5 6 7] -> 6. Order: w1, w2 (tie, earlier first), w0.
  std::vector<RunSample> runs = {F, F, T(5), T(6), T(7)};
  WindowChoice w = MedianWindow(runs, 3, 0);
  EXPECT_EQ(w.first, 2u);
  ASSERT_TRUE(w.score.ok);
  EXPECT_DOUBLE_EQ(w.score.mean, 6.0);

  // Windows: [F F F] none, [F F 5] none, [F 5 6] -> 6. Order: w2, w0, w1: the median has none.
  runs = {F, F, F, T(5), T(6)};
  w = MedianWindow(runs, 3, 0);
  EXPECT_EQ(w.first, 0u);
  EXPECT_FALSE(w.score.ok);
  EXPECT_EQ(w.score.reason,
            "the median window (runs 1..3) has no result: 3 runs did not converge (at most 1 "
            "allowed)");
}

TEST(Stats, MeanStddevAndCoefficientOfVariation) {
  std::vector<double> v = {2, 4, 4, 4, 5, 5, 7, 9};
  EXPECT_DOUBLE_EQ(Mean(v), 5.0);
  ASSERT_TRUE(SampleStddev(v).has_value());
  EXPECT_DOUBLE_EQ(*SampleStddev(v), std::sqrt(32.0 / 7.0));
  ASSERT_TRUE(CoefficientOfVariation(v).has_value());
  EXPECT_DOUBLE_EQ(*CoefficientOfVariation(v), std::sqrt(32.0 / 7.0) / 5.0);
  EXPECT_NEAR(*CoefficientOfVariation({10, 11, 12}), 1.0 / 11.0, 1e-12);

  EXPECT_FALSE(SampleStddev({3}).has_value());
  EXPECT_FALSE(CoefficientOfVariation({3}).has_value());
  EXPECT_FALSE(CoefficientOfVariation({-1, 1}).has_value());  // zero mean
  EXPECT_EQ(Mean({}), 0.0);
}

}  // namespace
}  // namespace trainbench::summary

#include "summary/summarize.h"

#include <gtest/gtest.h>

#include <cmath>

#include "summary/test_logs.h"

namespace trainbench::summary {
namespace {

// Definitions are passed explicitly: tests never read configs/benchmarks.
std::vector<core::BenchmarkDef> Defs() {
  return {test_logs::TestDef(
              "image_classification", "resnet", "/x/configs/benchmarks/image_classification.yaml",
              {{"mini", 5, 30}, {"full", 5, 0}}),  // full: reference time not measured
          test_logs::TestDef("translation", "transformer", "", {{"mini", 3, 8}})};
}

RunResult MakeRun(double minutes, bool converged = true, double start_ms = 0) {
  RunResult r;
  r.format = core::LogFormat::kMllog;
  r.log_name = "resnet";
  r.trainbench_benchmark = "image_classification";
  r.scale = "mini";
  r.system = "host-a";
  r.division = "closed";
  r.minutes = minutes;
  r.converged = converged;
  r.status = converged ? "success" : "aborted";
  r.start_ms = start_ms;
  r.epochs = 10;
  return r;
}

// Runs with the given times, started one hour apart in this order. 0 = did not converge.
std::vector<RunResult> Runs(const std::vector<double>& minutes) {
  std::vector<RunResult> out;
  for (size_t i = 0; i < minutes.size(); ++i) {
    out.push_back(MakeRun(minutes[i], minutes[i] > 0, 3600000.0 * static_cast<double>(i)));
    out.back().path = "r" + std::to_string(i);
  }
  return out;
}

TEST(Summarize, CompleteResultWithScore) {
  auto runs = Runs({12, 10, 14, 11, 13});
  for (size_t i = 0; i < runs.size(); ++i) runs[i].epochs = 10 + static_cast<double>(i);
  auto results = Summarize(runs, Defs());
  ASSERT_EQ(results.size(), 1u);
  const BenchmarkSummary& s = results[0];
  EXPECT_EQ(s.benchmark, "image_classification");
  EXPECT_EQ(s.log_name, "resnet");
  EXPECT_EQ(s.scale, "mini");
  EXPECT_EQ(s.system, "host-a");
  EXPECT_EQ(s.division, "closed");
  EXPECT_EQ(s.rule.source, "image_classification.yaml (mini)");
  EXPECT_EQ(s.rule.runs_required, 5);
  EXPECT_TRUE(s.has_result);
  EXPECT_FALSE(s.incomplete);
  EXPECT_EQ(s.Status(), "ok");
  EXPECT_EQ(s.converged_runs, 5);
  ASSERT_TRUE(s.olympic_mean_minutes);
  EXPECT_DOUBLE_EQ(*s.olympic_mean_minutes, 12.0);
  EXPECT_DOUBLE_EQ(*s.min_minutes, 10.0);
  EXPECT_DOUBLE_EQ(*s.max_minutes, 14.0);
  EXPECT_DOUBLE_EQ(*s.cv, std::sqrt(2.5) / 12.0);
  EXPECT_DOUBLE_EQ(*s.mean_epochs, 12.0);
  ASSERT_TRUE(s.score);
  EXPECT_DOUBLE_EQ(*s.score, 30.0 / 12.0);
  EXPECT_EQ(s.windows, 1u);
  EXPECT_TRUE(s.notes.empty());
}

TEST(Summarize, OneFailureIsDroppedTwoGiveNoResult) {
  auto results = Summarize(Runs({12, 0, 14, 11, 13}), Defs());
  ASSERT_EQ(results.size(), 1u);
  EXPECT_TRUE(results[0].has_result);
  EXPECT_DOUBLE_EQ(*results[0].olympic_mean_minutes, (12 + 13 + 14) / 3.0);
  EXPECT_EQ(results[0].converged_runs, 4);
  EXPECT_DOUBLE_EQ(*results[0].min_minutes, 11.0);  // converged runs only
  EXPECT_EQ(results[0].used, (std::vector<bool>{true, false, true, true, true}));

  results = Summarize(Runs({12, 0, 14, 0, 13}), Defs());
  ASSERT_EQ(results.size(), 1u);
  EXPECT_FALSE(results[0].has_result);
  EXPECT_FALSE(results[0].olympic_mean_minutes);
  EXPECT_FALSE(results[0].score);
  EXPECT_EQ(results[0].Status(), "no result: 2 runs did not converge (at most 1 allowed)");
}

TEST(Summarize, FewerRunsThanRequiredIsFlagged) {
  auto results = Summarize(Runs({12, 10, 14}), Defs());
  ASSERT_EQ(results.size(), 1u);
  EXPECT_TRUE(results[0].has_result);
  EXPECT_TRUE(results[0].incomplete);
  EXPECT_EQ(results[0].Status(), "incomplete (3 of 5 runs)");
  EXPECT_DOUBLE_EQ(*results[0].olympic_mean_minutes, 12.0);

  results = Summarize(Runs({12, 0}), Defs());
  EXPECT_EQ(results[0].Status(),
            "no result: a run did not converge and fewer than 3 runs leave none to drop it "
            "from; incomplete (2 of 5 runs)");
}

TEST(Summarize, MoreRunsThanRequiredUsesTheMedianWindow) {
  // N = 5 over 7 runs: windows [1..5] (10,20,30,40,50) -> 30, [2..6] (20..60) -> 40,
  // [3..7] (30..70) -> 50. The median is the second window. Runs are given out of start order.
  auto runs = Runs({10, 20, 30, 40, 50, 60, 70});
  std::swap(runs[0], runs[6]);
  auto results = Summarize(runs, Defs());
  ASSERT_EQ(results.size(), 1u);
  const BenchmarkSummary& s = results[0];
  EXPECT_EQ(s.runs.size(), 7u);
  EXPECT_EQ(s.runs[0].minutes, 10);  // sorted back by start time
  EXPECT_EQ(s.windows, 3u);
  EXPECT_EQ(s.window_first, 1u);
  EXPECT_EQ(s.window_size, 5u);
  EXPECT_DOUBLE_EQ(*s.olympic_mean_minutes, 40.0);
  EXPECT_DOUBLE_EQ(*s.min_minutes, 20.0);
  EXPECT_DOUBLE_EQ(*s.max_minutes, 60.0);
  EXPECT_EQ(s.Status(), "ok");
  ASSERT_EQ(s.notes.size(), 1u);
  EXPECT_EQ(s.notes[0], "median of 3 windows of 5 runs: runs 2..6 by start time");
}

TEST(Summarize, UnknownScaleOrDefinitionLeavesNUnknown) {
  auto runs = Runs({5, 6, 7});
  for (auto& r : runs) r.scale = "huge";
  auto results = Summarize(runs, Defs());
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].rule.runs_required, 0);
  EXPECT_EQ(results[0].Status(), "runs required unknown");
  EXPECT_DOUBLE_EQ(*results[0].olympic_mean_minutes, 6.0);
  EXPECT_FALSE(results[0].score);
  ASSERT_EQ(results[0].notes.size(), 1u);
  EXPECT_EQ(results[0].notes[0],
            "scale \"huge\" is not defined for image_classification: runs required unknown");

  // Without definitions the log name is the benchmark's name.
  results = Summarize(Runs({5, 6, 7}), {});
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].benchmark, "image_classification");
  EXPECT_EQ(results[0].Status(), "runs required unknown");
}

TEST(Summarize, MatchesByLogNameAndScaleAndSkipsScoreWithoutReference) {
  auto runs = Runs({5, 6, 7, 8, 9});
  for (auto& r : runs) {
    r.trainbench_benchmark.clear();
    r.scale = "full";
  }
  auto results = Summarize(runs, Defs());
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].benchmark, "image_classification");
  EXPECT_EQ(results[0].Status(), "ok");
  EXPECT_FALSE(results[0].score);
  EXPECT_EQ(
      results[0].notes,
      (std::vector<std::string>{"no reference time for image_classification (full): no score"}));
}

TEST(Summarize, GroupsAndOrdersByBenchmarkThenSystem) {
  std::vector<RunResult> runs;
  auto add = [&](const std::string& tb, const std::string& log, const std::string& system) {
    RunResult r = MakeRun(5);
    r.trainbench_benchmark = tb;
    r.log_name = log;
    r.system = system;
    runs.push_back(r);
  };
  add("translation", "transformer", "zeta");
  add("image_classification", "resnet", "zeta");
  add("translation", "transformer", "alpha");
  add("image_classification", "resnet", "alpha");
  add("image_classification", "resnet", "alpha");
  auto results = Summarize(runs, Defs());
  ASSERT_EQ(results.size(), 4u);
  EXPECT_EQ(results[0].benchmark + "/" + results[0].system, "image_classification/alpha");
  EXPECT_EQ(results[0].runs.size(), 2u);
  EXPECT_EQ(results[1].benchmark + "/" + results[1].system, "image_classification/zeta");
  EXPECT_EQ(results[2].benchmark + "/" + results[2].system, "translation/alpha");
  EXPECT_EQ(results[2].rule.runs_required, 3);
  EXPECT_EQ(results[3].benchmark + "/" + results[3].system, "translation/zeta");
}

RunResult Legacy(const std::string& name, double minutes, bool converged, double start_ms) {
  RunResult r;
  r.format = core::LogFormat::kLegacyV05;
  r.log_name = name;
  r.system = "sub/tpu";
  r.minutes = minutes;
  r.converged = converged;
  r.start_ms = start_ms;
  return r;
}

TEST(Summarize, LegacyLogsUseTheV05Table) {
  std::vector<RunResult> runs;
  for (int i = 0; i < 5; ++i) runs.push_back(Legacy("resnet", 100 + i, true, i));
  auto results = Summarize(runs, Defs());  // the trainbench "resnet" definition is not used
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].benchmark, "resnet");
  EXPECT_EQ(results[0].rule.source, "MLPerf v0.5 rules");
  EXPECT_EQ(results[0].rule.runs_required, 5);
  EXPECT_EQ(results[0].Status(), "ok");
  EXPECT_DOUBLE_EQ(*results[0].olympic_mean_minutes, 102.0);
  EXPECT_FALSE(results[0].score);

  runs.clear();
  for (int i = 0; i < 10; ++i) runs.push_back(Legacy("gnmt", 10, true, i));
  results = Summarize(runs, {});
  EXPECT_EQ(results[0].rule.runs_required, 10);
  EXPECT_EQ(results[0].Status(), "ok");
}

TEST(Summarize, LegacyNcfUsesTheFirstFiftyConvergingRuns) {
  // 55 runs, the first 5 fail; the 50 converging runs take 6..55 minutes: drop 6 and 55, the
  // mean of 7..54 is 30.5. Failures are discarded, not counted against the one allowed.
  std::vector<RunResult> runs;
  for (int i = 0; i < 55; ++i) runs.push_back(Legacy("ncf", i + 1, i >= 5, i));
  auto results = Summarize(runs, {});
  ASSERT_EQ(results.size(), 1u);
  const BenchmarkSummary& s = results[0];
  EXPECT_EQ(s.rule.runs_required, 100);
  EXPECT_EQ(s.rule.converged_used, 50);
  EXPECT_EQ(s.Status(), "ok");
  EXPECT_DOUBLE_EQ(*s.olympic_mean_minutes, 30.5);
  EXPECT_DOUBLE_EQ(*s.min_minutes, 6.0);
  EXPECT_DOUBLE_EQ(*s.max_minutes, 55.0);

  // A 56th, converged run is not used: only the first 50 converging runs count.
  runs.push_back(Legacy("ncf", 1000, true, 56));
  results = Summarize(runs, {});
  EXPECT_DOUBLE_EQ(*results[0].olympic_mean_minutes, 30.5);
  EXPECT_FALSE(results[0].used.back());

  // Too few converged runs so far.
  runs.resize(30);
  results = Summarize(runs, {});
  EXPECT_FALSE(results[0].has_result);
  EXPECT_EQ(results[0].Status(),
            "no result: only 25 converged runs, 50 needed; incomplete (25 of 50 converged runs)");
}

}  // namespace
}  // namespace trainbench::summary

#include "report/run_details.h"

#include <gtest/gtest.h>

#include "report/test_util.h"

namespace trainbench::report {
namespace {

TEST(ExtractRunDetails, CurvesTargetConfigAndProvenance) {
  const auto log = core::ReadLogFile(
      test_util::Fixture("results_a/cpu-2core/image_classification/result_1.txt"));
  const RunDetails d = ExtractRunDetails(log);
  ASSERT_EQ(d.eval.size(), 9u);
  EXPECT_NEAR(d.eval.front().minutes, (0.93 * 60000 + 2000) / 60000.0, 1e-9);
  EXPECT_DOUBLE_EQ(d.eval.back().value, 0.912);
  EXPECT_EQ(d.eval.back().epoch, 9.0);
  ASSERT_EQ(d.throughput.size(), 9u);
  EXPECT_GT(d.throughput.front().value, 1000);
  EXPECT_NEAR(d.throughput.front().minutes, 0.93, 1e-9);
  ASSERT_TRUE(d.quality_target);
  EXPECT_DOUBLE_EQ(*d.quality_target, 0.91);
  EXPECT_EQ(d.metric, "top1");
  EXPECT_EQ(d.config_effective["opt_name"], "sgd");
  EXPECT_EQ(d.config_requested["batch_size"], 128);
  EXPECT_EQ(d.provenance["hostname"], "bench-host");
  EXPECT_EQ(d.git_revision, "abc1234");
}

TEST(ExtractRunDetails, LegacyV05Log) {
  std::istringstream in(summary::test_logs::LegacyText({}));
  const RunDetails d = ExtractRunDetails(core::ParseLog(in, "legacy.txt"));
  ASSERT_EQ(d.eval.size(), 1u);
  EXPECT_DOUBLE_EQ(d.eval[0].value, 0.73);
  EXPECT_EQ(d.eval[0].epoch, 3.0);
  ASSERT_TRUE(d.quality_target);
  EXPECT_DOUBLE_EQ(*d.quality_target, 0.749);
  EXPECT_TRUE(d.git_revision.empty());
  EXPECT_TRUE(d.provenance.is_null());
}

TEST(ExtractRunDetails, EmptyAndNonNumericValuesAreLeftOut) {
  std::istringstream empty("");
  EXPECT_TRUE(ExtractRunDetails(core::ParseLog(empty, "e.txt")).eval.empty());
  std::istringstream odd(
      ":::MLLOG {\"namespace\": \"\", \"time_ms\": 1000, \"event_type\": \"INTERVAL_START\", "
      "\"key\": \"run_start\", \"value\": null, \"metadata\": {}}\n"
      ":::MLLOG {\"namespace\": \"\", \"time_ms\": 61000, \"event_type\": \"POINT_IN_TIME\", "
      "\"key\": \"eval_accuracy\", \"value\": \"high\", \"metadata\": {}}\n"
      ":::MLLOG {\"namespace\": \"\", \"time_ms\": 121000, \"event_type\": \"POINT_IN_TIME\", "
      "\"key\": \"eval_accuracy\", \"value\": 0.5, \"metadata\": {}}\n"
      ":::MLLOG {\"namespace\": \"\", \"time_ms\": 121000, \"event_type\": \"POINT_IN_TIME\", "
      "\"key\": \"tracked_stats\", \"value\": {\"steps\": 3}, \"metadata\": {}}\n");
  const RunDetails d = ExtractRunDetails(core::ParseLog(odd, "odd.txt"));
  ASSERT_EQ(d.eval.size(), 1u);
  EXPECT_DOUBLE_EQ(d.eval[0].minutes, 2.0);
  EXPECT_FALSE(d.eval[0].epoch);
  EXPECT_TRUE(d.throughput.empty());
  EXPECT_FALSE(d.quality_target);
}

}  // namespace
}  // namespace trainbench::report

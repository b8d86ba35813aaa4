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

std::string Line(int64_t t, const std::string& key, const std::string& value) {
  return ":::MLLOG {\"namespace\": \"\", \"time_ms\": " + std::to_string(t) +
         ", \"event_type\": \"POINT_IN_TIME\", \"key\": \"" + key + "\", \"value\": " + value +
         ", \"metadata\": {\"epoch_num\": 1}}\n";
}

// Mask R-CNN's object value plots as its box mAP; an older translation log's BLEU in 0-100
// (target 20.0) lands on the fractions of new logs, target included.
TEST(ExtractRunDetails, MaskRcnnObjectsAndOldBleuLogsAsFractions) {
  std::istringstream mask(Line(1000, "submission_benchmark", "\"maskrcnn\"") +
                          Line(2000, "eval_accuracy", "{\"BBOX\": 0.21, \"SEGM\": 0.19}"));
  const RunDetails m = ExtractRunDetails(core::ParseLog(mask, "mask.txt"));
  ASSERT_EQ(m.eval.size(), 1u);
  EXPECT_DOUBLE_EQ(m.eval[0].value, 0.21);
  std::istringstream old(Line(1000, "submission_benchmark", "\"gnmt\"") +
                         Line(1000, "trainbench_quality_target", "20.0") +
                         Line(2000, "eval_accuracy", "0.8") + Line(3000, "eval_accuracy", "21.5"));
  const RunDetails o = ExtractRunDetails(core::ParseLog(old, "old.txt"));
  ASSERT_EQ(o.eval.size(), 2u);
  EXPECT_DOUBLE_EQ(o.eval[0].value, 0.008);
  EXPECT_DOUBLE_EQ(o.eval[1].value, 0.215);
  EXPECT_DOUBLE_EQ(*o.quality_target, 0.2);
  std::istringstream fresh(Line(1000, "submission_benchmark", "\"gnmt\"") +
                           Line(1000, "trainbench_quality_target", "0.2") +
                           Line(2000, "eval_accuracy", "0.215"));
  const RunDetails n = ExtractRunDetails(core::ParseLog(fresh, "new.txt"));
  EXPECT_DOUBLE_EQ(n.eval[0].value, 0.215);
  EXPECT_DOUBLE_EQ(*n.quality_target, 0.2);
}

}  // namespace
}  // namespace trainbench::report

#include "core/eval_accuracy.h"

#include <gtest/gtest.h>

#include <sstream>

namespace trainbench::core {
namespace {

ParsedLog Parse(const std::string& text) {
  std::istringstream in(text);
  return ParseLog(in, "test.log");
}

std::string Line(const std::string& key, const std::string& value) {
  return ":::MLLOG {\"namespace\": \"\", \"time_ms\": 1, \"event_type\": \"POINT_IN_TIME\", "
         "\"key\": \"" +
         key + "\", \"value\": " + value + ", \"metadata\": {\"epoch_num\": 1}}\n";
}

TEST(EvalAccuracy, PrimaryNumberOfEachShape) {
  EXPECT_EQ(PrimaryAccuracy(Json(0.25)), 0.25);
  EXPECT_EQ(PrimaryAccuracy(Json{{"BBOX", 0.21}, {"SEGM", 0.19}}), 0.21);
  EXPECT_EQ(PrimaryAccuracy(Json{{"epoch", 3}, {"value", 0.73}}), 0.73);
  EXPECT_FALSE(PrimaryAccuracy(Json("0.5")).has_value());
  EXPECT_FALSE(PrimaryAccuracy(Json{{"SEGM", 0.19}}).has_value());
  EXPECT_FALSE(PrimaryAccuracy(Json()).has_value());
}

TEST(EvalAccuracy, BleuInPercentIsDecidedPerLogByItsTarget) {
  // New log: fractions. Old log: target 20.0, first evaluation 0.8 (BLEU 0.8, not 80).
  EXPECT_EQ(
      AccuracyUnit(Parse(Line("submission_benchmark", "\"gnmt\"") +
                         Line("trainbench_quality_target", "0.2") + Line("eval_accuracy", "0.25"))),
      1.0);
  EXPECT_EQ(
      AccuracyUnit(Parse(Line("submission_benchmark", "\"gnmt\"") +
                         Line("trainbench_quality_target", "20.0") + Line("eval_accuracy", "0.8"))),
      0.01);
  // No target: any evaluation above 1.
  EXPECT_EQ(AccuracyUnit(Parse(Line("submission_benchmark", "\"transformer\"") +
                               Line("eval_accuracy", "25.3"))),
            0.01);
  // Not a translation benchmark: never scaled.
  EXPECT_EQ(AccuracyUnit(Parse(Line("submission_benchmark", "\"ssd\"") +
                               Line("trainbench_quality_target", "21.0"))),
            1.0);
  // v0.5 lines: the benchmark on the line, eval_target in 0-100.
  EXPECT_EQ(AccuracyUnit(Parse(":::MLPv0.5.0 gnmt 1541000000.5 (train.py:10) eval_target: 21.8\n"
                               ":::MLPv0.5.0 gnmt 1541000001.5 (train.py:20) eval_accuracy: "
                               "{\"epoch\": 0, \"value\": 19.5}\n")),
            0.01);
}

}  // namespace
}  // namespace trainbench::core

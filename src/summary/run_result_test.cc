#include "summary/run_result.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "core/eval_accuracy.h"
#include "summary/test_logs.h"

namespace trainbench::summary {
namespace {

core::ParsedLog Parse(const std::string& text, const std::string& path = "mem/result_0.txt") {
  std::istringstream in(text);
  return core::ParseLog(in, path);
}

std::optional<RunResult> Extract(const std::string& text, FileIssue* skip,
                                 std::vector<FileIssue>* warnings = nullptr) {
  return ExtractRun(Parse(text), skip, warnings);
}

// A hand-written v0.5 log in the format of the published results.
constexpr const char* kLegacyResnet =
    ":::MLPv0.5.0 resnet 1541638787.2339485 (resnet/imagenet_main.py:123) run_start\n"
    ":::MLPv0.5.0 resnet 1541638787.5 (resnet/imagenet_main.py:130) run_set_random_seed: 42\n"
    "I1108 01:00:00.000 mlperf_log.py:134] not a log line\n"
    ":::MLPv0.5.0 resnet 1541638800.0 (x.py:1) train_epoch: 0\n"
    ":::MLPv0.5.0 resnet 1541639500.0 (x.py:1) eval_accuracy: {\"epoch\": 1, \"value\": 0.41}\n"
    ":::MLPv0.5.0 resnet 1541640000.0 (x.py:1) eval_accuracy: {\"epoch\": 3, \"value\": 0.73}\n"
    ":::MLPv0.5.0 resnet 1541640000.1 (x.py:1) eval_target: 0.749\n"
    ":::MLPv0.5.0 resnet 1541640387.2339485 (x.py:9) run_stop: {\"success\": true}\n"
    ":::MLPv0.5.0 resnet 1541640387.3 (x.py:10) run_final\n";

TEST(ExtractRun, LegacyV05Log) {
  FileIssue skip;
  std::vector<FileIssue> warnings;
  auto run = Extract(kLegacyResnet, &skip, &warnings);
  ASSERT_TRUE(run) << skip.ToString();
  EXPECT_EQ(run->format, core::LogFormat::kLegacyV05);
  EXPECT_EQ(run->path, "mem/result_0.txt");
  EXPECT_EQ(run->log_name, "resnet");
  EXPECT_TRUE(run->converged);
  EXPECT_EQ(run->status, "success");
  EXPECT_NEAR(run->minutes, 1600.0 / 60.0, 1e-6);
  EXPECT_NEAR(run->start_ms, 1541638787233.9485, 1e-2);
  ASSERT_TRUE(run->epochs);
  EXPECT_EQ(*run->epochs, 3);
  EXPECT_EQ(run->seed, core::Json(42));
  EXPECT_EQ(run->final_accuracy, core::Json(0.73));
  EXPECT_TRUE(run->division.empty());
  EXPECT_TRUE(run->scale.empty());
  EXPECT_TRUE(warnings.empty());
}

TEST(ExtractRun, LegacySuccessSpellings) {
  auto with_stop = [](const std::string& stop_value) {
    return std::string(":::MLPv0.5.0 ssd 100.0 (a.py:1) run_start\n") +
           ":::MLPv0.5.0 ssd 160.0 (a.py:2) run_stop: " + stop_value + "\n";
  };
  FileIssue skip;
  // Some v0.5 submissions logged the flag as a string.
  auto run = Extract(with_stop("{\"success\": \"true\"}"), &skip);
  ASSERT_TRUE(run);
  EXPECT_TRUE(run->converged);
  EXPECT_DOUBLE_EQ(run->minutes, 1.0);
  // A Python literal the reader keeps as text.
  run = Extract(with_stop("{'success': True}"), &skip);
  ASSERT_TRUE(run);
  EXPECT_TRUE(run->converged);
  run = Extract(with_stop("{\"success\": false}"), &skip);
  ASSERT_TRUE(run);
  EXPECT_FALSE(run->converged);
  EXPECT_EQ(run->status, "aborted");
  run = Extract(with_stop("{'success': False}"), &skip);
  ASSERT_TRUE(run);
  EXPECT_FALSE(run->converged);
  run = Extract(with_stop(""), &skip);
  ASSERT_TRUE(run);
  EXPECT_FALSE(run->converged);
}

TEST(ExtractRun, LegacyEpochsFromTrainEpochAndPrefixedLines) {
  // NCF logged with a prefix before the marker; no eval epoch, so the last train_epoch counts.
  const std::string text =
      "NCF_RAW_:::MLPv0.5.0 ncf 1000.0 (ncf.py:1) run_start\n"
      "NCF_RAW_:::MLPv0.5.0 ncf 1001.0 (ncf.py:2) train_epoch: 0\n"
      "NCF_RAW_:::MLPv0.5.0 ncf 1010.0 (ncf.py:2) train_epoch: 1\n"
      "NCF_RAW_:::MLPv0.5.0 ncf 1020.0 (ncf.py:3) eval_accuracy: 0.6356\n"
      "NCF_RAW_:::MLPv0.5.0 ncf 1030.0 (ncf.py:4) run_stop: {\"success\": true}\n";
  FileIssue skip;
  auto run = Extract(text, &skip);
  ASSERT_TRUE(run) << skip.ToString();
  EXPECT_EQ(run->log_name, "ncf");
  ASSERT_TRUE(run->epochs);
  EXPECT_EQ(*run->epochs, 1);
  EXPECT_EQ(run->final_accuracy, core::Json(0.6356));
  EXPECT_DOUBLE_EQ(run->minutes, 0.5);
}

TEST(ExtractRun, MllogLog) {
  test_logs::MllogRun r;
  r.trainbench_benchmark = "image_classification";
  r.scale = "mini";
  r.minutes = 12.5;
  r.epochs = 4;
  r.seed = 77;
  FileIssue skip;
  auto run = Extract(test_logs::MllogText(r), &skip);
  ASSERT_TRUE(run) << skip.ToString();
  EXPECT_EQ(run->format, core::LogFormat::kMllog);
  EXPECT_EQ(run->log_name, "resnet");
  EXPECT_EQ(run->trainbench_benchmark, "image_classification");
  EXPECT_EQ(run->scale, "mini");
  EXPECT_EQ(run->division, "closed");
  EXPECT_TRUE(run->converged);
  EXPECT_DOUBLE_EQ(run->minutes, 12.5);
  EXPECT_DOUBLE_EQ(run->start_ms, 1700000000000.0);
  ASSERT_TRUE(run->epochs);
  EXPECT_EQ(*run->epochs, 4);
  EXPECT_EQ(run->seed, core::Json(77));
  EXPECT_DOUBLE_EQ(run->final_accuracy.get<double>(), 0.76);

  r.success = false;
  run = Extract(test_logs::MllogText(r), &skip);
  ASSERT_TRUE(run);
  EXPECT_FALSE(run->converged);
  EXPECT_EQ(run->status, "aborted");
}

TEST(ExtractRun, WarnsAboutARunOnABusyMachine) {
  test_logs::MllogRun r;
  r.trainbench_benchmark = "image_classification";
  r.scale = "mini";
  std::string text = test_logs::MllogText(r);
  auto with_share = [&](double other) {
    // The harness logs the share just before run_stop.
    const size_t at = text.find(":::MLLOG {\"namespace\": \"\", \"time_ms\"",
                                text.find("\"key\": \"eval_accuracy\""));
    std::string line =
        ":::MLLOG {\"namespace\": \"\", \"time_ms\": 1700000000000, \"event_type\": "
        "\"POINT_IN_TIME\", "
        "\"key\": \"trainbench_cpu_share\", \"value\": {\"own\": 0.3, \"other\": " +
        std::to_string(other) + "}, \"metadata\": {\"file\": \"harness.cc\", \"lineno\": 1}}\n";
    return at == std::string::npos ? text + line : text.substr(0, at) + line + text.substr(at);
  };
  FileIssue skip;
  std::vector<FileIssue> warnings;
  ASSERT_TRUE(Extract(with_share(0.62), &skip, &warnings)) << skip.ToString();
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].message.find("other processes used 62% of the machine's CPU"),
            std::string::npos)
      << warnings[0].message;
  EXPECT_GT(warnings[0].line, 0);
  warnings.clear();
  ASSERT_TRUE(Extract(with_share(0.02), &skip, &warnings));
  EXPECT_TRUE(warnings.empty());
  // No share at all: an int cast of 1e302 printed "-2147483648%" (#41).
  ASSERT_TRUE(Extract(with_share(1e300), &skip, &warnings));
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0].message,
            "trainbench_cpu_share.other is 1e+300, not a share between 0 and 1; ignored");
}

TEST(ExtractRun, MllogEpochsFromBlocksWhenNoEval) {
  const std::string text =
      R"(:::MLLOG {"namespace": "", "time_ms": 0, "event_type": "INTERVAL_START", "key": "run_start", "value": null, "metadata": {"file": "t.cc", "lineno": 1}})"
      "\n"
      R"(:::MLLOG {"namespace": "", "time_ms": 1, "event_type": "INTERVAL_START", "key": "block_start", "value": null, "metadata": {"file": "t.cc", "lineno": 2, "first_epoch_num": 5, "epoch_count": 4}})"
      "\n"
      R"(:::MLLOG {"namespace": "", "time_ms": 2, "event_type": "INTERVAL_END", "key": "block_stop", "value": null, "metadata": {"file": "t.cc", "lineno": 3, "first_epoch_num": 5}})"
      "\n"
      R"(:::MLLOG {"namespace": "", "time_ms": 120000, "event_type": "INTERVAL_END", "key": "run_stop", "value": null, "metadata": {"file": "t.cc", "lineno": 4, "status": "success"}})"
      "\n";
  FileIssue skip;
  auto run = Extract(text, &skip);
  ASSERT_TRUE(run) << skip.ToString();
  ASSERT_TRUE(run->epochs);
  EXPECT_EQ(*run->epochs, 8);  // epochs 5..8
  EXPECT_DOUBLE_EQ(run->minutes, 2.0);
  EXPECT_TRUE(run->final_accuracy.is_null());
  EXPECT_TRUE(run->seed.is_null());
}

TEST(ExtractRun, SkipsLogsWithoutARun) {
  FileIssue skip;
  EXPECT_FALSE(Extract("", &skip));
  EXPECT_EQ(skip.ToString(), "mem/result_0.txt: no :::MLLOG or :::MLPv0.5.0 lines");

  EXPECT_FALSE(Extract(":::MLPv0.5.0 ssd 100.0 (a.py:1) run_start\n", &skip));
  EXPECT_EQ(skip.message, "no run_stop event");

  EXPECT_FALSE(Extract(":::MLPv0.5.0 ssd 100.0 (a.py:1) run_stop: {\"success\": true}\n", &skip));
  EXPECT_EQ(skip.message, "no run_start event");

  // A run_stop that is malformed: the reason names its line.
  test_logs::MllogRun r;
  std::string text = test_logs::MllogText(r);
  size_t at = text.find("\"key\": \"run_stop\"");
  ASSERT_NE(at, std::string::npos);
  text.insert(at, "{{");
  EXPECT_FALSE(Extract(text, &skip));
  EXPECT_EQ(skip.line, 0);
  const int stop_line = static_cast<int>(std::count(text.begin(), text.begin() + at, '\n')) + 1;
  EXPECT_EQ(skip.message.rfind(
                "no run_stop event (line " + std::to_string(stop_line) + " is malformed: ", 0),
            0u)
      << skip.message;
}

TEST(ExtractRun, SkipsAStopBeforeTheStart) {
  FileIssue skip;
  EXPECT_FALSE(
      Extract(":::MLPv0.5.0 ssd 100.0 (a.py:1) run_start\n"
              ":::MLPv0.5.0 ssd 90.0 (a.py:2) run_stop: {\"success\": true}\n",
              &skip));
  EXPECT_EQ(skip.ToString(), "mem/result_0.txt:2: run_stop is earlier than run_start (line 1)");
}

TEST(ExtractRun, WarnsAboutMalformedLinesInAUsableRun) {
  // Malformed lines of the log's own format (a line of the other format is another warning).
  std::string text = std::string(kLegacyResnet) + ":::MLPv0.5.0 resnet soon (a.py:9) run_final\n";
  FileIssue skip;
  std::vector<FileIssue> warnings;
  auto run = Extract(text, &skip, &warnings);
  ASSERT_TRUE(run);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0].line, 10);
  EXPECT_EQ(warnings[0].message.rfind("malformed line ignored: ", 0), 0u);

  // Many malformed lines make one warning that counts them.
  text += ":::MLPv0.5.0 resnet\n:::MLPv0.5.0 resnet 1e400 (a.py:9) run_final\n";
  warnings.clear();
  ASSERT_TRUE(Extract(text, &skip, &warnings));
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0].line, 10);
  EXPECT_NE(warnings[0].message.find("(and 2 more malformed lines)"), std::string::npos)
      << warnings[0].message;
}

// The shapes eval_accuracy takes: Mask R-CNN's {"BBOX", "SEGM"} object (MLLOG since v0.7) and
// BLEU in 0-100 (trainbench's translation logs before BLEU became a fraction). The summary keeps
// the last value as logged; core::PrimaryAccuracy and core::AccuracyUnit give its one number.
TEST(ExtractRun, ReadsObjectValuesAndOldBleuLogs) {
  test_logs::MllogRun r;
  r.benchmark = "maskrcnn";
  r.epochs = 1;  // one evaluation, of value `accuracy`
  r.accuracy = 0.25;
  std::string text = test_logs::MllogText(r);
  const std::string v = "\"value\": 0.25,";
  ASSERT_NE(text.find(v), std::string::npos);
  text.replace(text.find(v), v.size(), "\"value\": {\"BBOX\": 0.25, \"SEGM\": 0.2},");
  FileIssue skip;
  auto mask = Extract(text, &skip);
  ASSERT_TRUE(mask) << skip.ToString();
  EXPECT_TRUE(mask->converged);
  EXPECT_EQ(mask->epochs, 1.0);
  EXPECT_EQ(mask->final_accuracy, core::Json({{"BBOX", 0.25}, {"SEGM", 0.2}}));
  EXPECT_EQ(core::PrimaryAccuracy(mask->final_accuracy), 0.25);

  r.benchmark = "gnmt";
  r.accuracy = 21.5;
  const core::ParsedLog old = Parse(test_logs::MllogText(r));
  auto bleu = ExtractRun(old, &skip, nullptr);
  ASSERT_TRUE(bleu) << skip.ToString();
  EXPECT_TRUE(bleu->converged);
  EXPECT_EQ(bleu->final_accuracy, core::Json(21.5));
  EXPECT_DOUBLE_EQ(*core::PrimaryAccuracy(bleu->final_accuracy) * core::AccuracyUnit(old), 0.215);
}

}  // namespace
}  // namespace trainbench::summary

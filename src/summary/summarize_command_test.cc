#include "summary/summarize_command.h"

#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <string>

#include "core/json.h"
#include "summary/test_logs.h"

namespace trainbench::summary {
namespace {

std::vector<core::BenchmarkDef> Defs() {
  return {test_logs::TestDef("image_classification", "resnet", "", {{"mini", 3, 12}})};
}

// Writes three resnet mini runs (4, 3 and 5 minutes) under dir/box/image_classification.
void WriteThreeRuns(const std::string& dir) {
  const double minutes[] = {4.0, 3.0, 5.0};
  for (int i = 0; i < 3; ++i) {
    test_logs::MllogRun r;
    r.scale = "mini";
    r.start_ms = 1700000000000 + int64_t{i} * 600000;
    r.minutes = minutes[i];
    test_logs::WriteText(dir + "/box/image_classification/result_" + std::to_string(i) + ".txt",
                         test_logs::MllogText(r));
  }
}

TEST(RunSummarizeCommand, JsonEndToEnd) {
  test_logs::ScopedDir tmp("cmd_json");
  const std::string dir = tmp.path();
  WriteThreeRuns(dir);
  std::ostringstream out, err;
  ASSERT_EQ(RunSummarizeCommand({dir}, "json", Defs(), "test", out, err), 0) << err.str();
  EXPECT_EQ(err.str(), "");
  core::Json doc = core::Json::parse(out.str());
  EXPECT_EQ(doc["schema_version"], 1);
  EXPECT_EQ(doc["context"]["results_dirs"], core::Json::array({dir}));
  EXPECT_EQ(doc["context"]["benchmark_definitions"], "test");
  ASSERT_EQ(doc["results"].size(), 1u);
  const core::Json& r = doc["results"][0];
  EXPECT_EQ(r["benchmark"], "image_classification");  // matched by log name "resnet"
  EXPECT_EQ(r["system"], "box");
  EXPECT_EQ(r["status"], "ok");
  EXPECT_EQ(r["runs"], 3);
  EXPECT_DOUBLE_EQ(r["olympic_mean_minutes"].get<double>(), 4.0);
  EXPECT_DOUBLE_EQ(r["score"].get<double>(), 3.0);
  ASSERT_EQ(r["run_details"].size(), 3u);
  EXPECT_EQ(r["run_details"][1]["file"], dir + "/box/image_classification/result_1.txt");
  EXPECT_DOUBLE_EQ(r["run_details"][1]["minutes"].get<double>(), 3.0);
}

TEST(RunSummarizeCommand, TableAndCsv) {
  test_logs::ScopedDir tmp("cmd_table");
  const std::string dir = tmp.path();
  WriteThreeRuns(dir);
  std::ostringstream out, err;
  ASSERT_EQ(RunSummarizeCommand({dir}, "table", Defs(), "test", out, err), 0);
  EXPECT_NE(out.str().find("image_classification  mini   box"), std::string::npos) << out.str();
  std::ostringstream csv, csv_err;
  ASSERT_EQ(RunSummarizeCommand({dir}, "csv", Defs(), "test", csv, csv_err), 0);
  EXPECT_EQ(csv.str().substr(csv.str().find('\n') + 1),
            "image_classification,mini,box,closed,3,3,3,4.0000,3.0000,5.0000,0.250000,3.00,"
            "12.0000,3.0000,ok\n");
}

TEST(RunSummarizeCommand, MissingDirectoryIsBadInput) {
  test_logs::ScopedDir tmp("cmd_missing");
  const std::string dir = tmp.path();
  WriteThreeRuns(dir);
  std::ostringstream out, err;
  EXPECT_EQ(RunSummarizeCommand({dir, dir + "/nope"}, "table", Defs(), "test", out, err), 2);
  EXPECT_EQ(err.str(), "trainbench summarize: " + dir + "/nope: results directory not found\n");
  EXPECT_EQ(out.str(), "");
}

TEST(RunSummarizeCommand, BadFormatOrNoDirectoryIsBadInput) {
  std::ostringstream out, err;
  EXPECT_EQ(RunSummarizeCommand({"."}, "yaml", Defs(), "test", out, err), 2);
  EXPECT_NE(err.str().find("unknown output format \"yaml\""), std::string::npos);
  std::ostringstream out2, err2;
  EXPECT_EQ(RunSummarizeCommand({}, "table", Defs(), "test", out2, err2), 2);
  EXPECT_EQ(err2.str(), "trainbench summarize: no results directory given\n");
}

TEST(RunSummarizeCommand, EmptyFolderSaysSo) {
  test_logs::ScopedDir tmp("cmd_empty");
  const std::string dir = tmp.path();
  std::ostringstream out, err;
  EXPECT_EQ(RunSummarizeCommand({dir}, "table", Defs(), "test", out, err), 0);
  EXPECT_EQ(err.str(), "trainbench summarize: no result files (result_<i>.txt) found\n");
  EXPECT_NE(out.str().find("0 results from 0 runs, 0 files skipped"), std::string::npos);
}

}  // namespace
}  // namespace trainbench::summary

namespace trainbench::summary {
namespace {

// The RCP test of each closed result, against configs/rcp (the committed calibration runs: the
// reference ResNet set converges as the RCP says; the optimized Transformer's base_lr makes it
// converge in fewer epochs than the RCP allows, as the official rcp_checker judges it too).
TEST(RunSummarizeCommand, RcpOutcomePerClosedResult) {
  const std::string docs = std::string(TRAINBENCH_TEST_SRCDIR) + "/docs/calibration/results/";
  std::ostringstream out, err;
  ASSERT_EQ(RunSummarizeCommand({docs + "image_classification_epyc2_reference",
                                 docs + "translation_epyc2_optimized"},
                                "json", out, err),
            0)
      << err.str();
  const core::Json doc = core::ParseJson(out.str());
  std::map<std::string, core::Json> rcp;
  for (const auto& r : doc["results"]) rcp[r["benchmark"].get<std::string>()] = r["rcp"];
  EXPECT_EQ(rcp["image_classification"]["outcome"], "PASSED");
  EXPECT_EQ(rcp["image_classification"]["detail"],
            "RCP found (olympic mean 5.667 >= min 4.274 epochs)");
  EXPECT_EQ(rcp["translation"]["outcome"], "FAILED");
  EXPECT_EQ(rcp["translation"]["detail"], "RCP found (olympic mean 4 < min 5.059 epochs)");
  // Fewer than 3 runs: no olympic mean yet, so no outcome (the official arithmetic gives NaN).
  std::ostringstream out2, err2;
  ASSERT_EQ(RunSummarizeCommand({docs + "rnn_translation_probe"}, "json", out2, err2), 0)
      << err2.str();
  const core::Json probe = core::ParseJson(out2.str())["results"][0]["rcp"];
  EXPECT_EQ(probe["outcome"], nullptr);
  EXPECT_EQ(probe["detail"], "not judged yet: 1 run(s); the test's olympic mean needs at least 3");
}

}  // namespace
}  // namespace trainbench::summary

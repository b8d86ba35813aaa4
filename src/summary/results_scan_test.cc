#include "summary/results_scan.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdio>
#include <filesystem>

#include "core/error.h"
#include "summary/test_logs.h"

namespace trainbench::summary {
namespace {

namespace fs = std::filesystem;
using test_logs::WriteText;

TEST(IsResultFileName, OnlyResultDigitsTxt) {
  EXPECT_TRUE(IsResultFileName("result_0.txt"));
  EXPECT_TRUE(IsResultFileName("result_17.txt"));
  EXPECT_FALSE(IsResultFileName("result_.txt"));
  EXPECT_FALSE(IsResultFileName("result_1.txt.part"));
  EXPECT_FALSE(IsResultFileName("result_1.txt.tmp.123"));
  EXPECT_FALSE(IsResultFileName("result_a.txt"));
  EXPECT_FALSE(IsResultFileName("results_1.txt"));
  EXPECT_FALSE(IsResultFileName("result_1.log"));
}

TEST(ScanResults, TrainbenchLayout) {
  test_logs::ScopedDir tmp("scan_trainbench");
  const std::string dir = tmp.path();
  test_logs::MllogRun r;
  r.trainbench_benchmark = "image_classification";
  r.scale = "mini";
  for (int i = 0; i < 3; ++i) {
    r.minutes = 10 + i;
    r.start_ms = 1700000000000 + i * 3600000;
    WriteText(dir + "/host-a/image_classification/result_" + std::to_string(i) + ".txt",
              test_logs::MllogText(r));
  }
  // Never read: a run still being written, an atomic-write temporary, other files.
  WriteText(dir + "/host-a/image_classification/result_3.txt.part", "garbage");
  WriteText(dir + "/host-a/image_classification/result_4.txt.tmp.4242", "garbage");
  WriteText(dir + "/host-a/image_classification/notes.txt", "garbage");
  WriteText(dir + "/host-a/image_classification/config.json", "{}");

  ScanResult scan = ScanResults(dir);
  EXPECT_TRUE(scan.skipped.empty());
  EXPECT_TRUE(scan.warnings.empty());
  ASSERT_EQ(scan.runs.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    const RunResult& run = scan.runs[i];
    EXPECT_EQ(run.path, dir + "/host-a/image_classification/result_" + std::to_string(i) + ".txt");
    EXPECT_EQ(run.system, "host-a");
    EXPECT_EQ(run.benchmark_folder, "image_classification");
    EXPECT_EQ(run.trainbench_benchmark, "image_classification");
    EXPECT_EQ(run.scale, "mini");
    EXPECT_EQ(run.division, "closed");
    EXPECT_DOUBLE_EQ(run.minutes, 10 + i);
  }

  // The system folder itself may be given.
  scan = ScanResults(dir + "/host-a");
  ASSERT_EQ(scan.runs.size(), 3u);
  EXPECT_EQ(scan.runs[0].system, "host-a");
}

TEST(ScanResults, PublishedLayouts) {
  test_logs::ScopedDir tmp("scan_published");
  const std::string root = tmp.path();
  test_logs::LegacyRun r;
  // <org>/results/<system>/<benchmark>, division in <org>/systems/<system>.json.
  WriteText(root + "/orgx/results/sys1/resnet/result_0.txt", test_logs::LegacyText(r));
  WriteText(root + "/orgx/systems/sys1.json", R"({"division": "open", "nodes": []})");
  // v0.5: <org>/<submission>/results/<system>/<benchmark>, division in results/<system>/entry.json.
  r.benchmark = "ssd";
  WriteText(root + "/google/ssd-tpuv3-8/results/tpu/ssd/result_0.txt", test_logs::LegacyText(r));
  WriteText(root + "/google/ssd-tpuv3-8/results/tpu/entry.json", R"({"division": "closed"})");
  WriteText(root + "/google/ssd-tpuv3-8/code/ssd/README.md", "code is not a result");

  // A folder of orgs.
  ScanResult scan = ScanResults(root);
  EXPECT_TRUE(scan.skipped.empty());
  ASSERT_EQ(scan.runs.size(), 2u);
  // Sorted by path: google/... before orgx/...
  EXPECT_EQ(scan.runs[0].system, "google/ssd-tpuv3-8/tpu");
  EXPECT_EQ(scan.runs[0].log_name, "ssd");
  EXPECT_EQ(scan.runs[0].benchmark_folder, "ssd");
  EXPECT_EQ(scan.runs[0].division, "closed");
  EXPECT_EQ(scan.runs[0].format, core::LogFormat::kLegacyV05);
  EXPECT_EQ(scan.runs[1].system, "orgx/sys1");
  EXPECT_EQ(scan.runs[1].log_name, "resnet");
  EXPECT_EQ(scan.runs[1].division, "open");

  // The org folder: the system keeps the org prefix.
  scan = ScanResults(root + "/orgx");
  ASSERT_EQ(scan.runs.size(), 1u);
  EXPECT_EQ(scan.runs[0].system, "orgx/sys1");
  EXPECT_EQ(scan.runs[0].division, "open");

  // A v0.5 org folder.
  scan = ScanResults(root + "/google");
  ASSERT_EQ(scan.runs.size(), 1u);
  EXPECT_EQ(scan.runs[0].system, "ssd-tpuv3-8/tpu");

  // Its results/ folder: systems are named as they are.
  scan = ScanResults(root + "/orgx/results");
  ASSERT_EQ(scan.runs.size(), 1u);
  EXPECT_EQ(scan.runs[0].system, "sys1");
  EXPECT_EQ(scan.runs[0].division, "open");
}

TEST(ScanResults, ReportsSkippedFilesWithReasons) {
  test_logs::ScopedDir tmp("scan_skipped");
  const std::string dir = tmp.path();
  const std::string b = dir + "/host/ssd/";
  WriteText(b + "result_0.txt", test_logs::LegacyText({}));
  WriteText(b + "result_1.txt", "");
  WriteText(b + "result_2.txt", ":::MLPv0.5.0 ssd 100.0 (a.py:1) run_start\n");
  WriteText(b + "result_3.txt",
            ":::MLPv0.5.0 ssd 100.0 (a.py:1) run_start\n"
            ":::MLPv0.5.0 ssd 90.0 (a.py:2) run_stop: {\"success\": true}\n");
  fs::create_symlink(b + "missing.txt", b + "result_4.txt");  // unreadable

  ScanResult scan = ScanResults(dir);
  ASSERT_EQ(scan.runs.size(), 1u);
  EXPECT_EQ(scan.runs[0].path, b + "result_0.txt");
  ASSERT_EQ(scan.skipped.size(), 4u);
  EXPECT_EQ(scan.skipped[0].ToString(), b + "result_1.txt: no :::MLLOG or :::MLPv0.5.0 lines");
  EXPECT_EQ(scan.skipped[1].ToString(), b + "result_2.txt: no run_stop event");
  EXPECT_EQ(scan.skipped[2].ToString(),
            b + "result_3.txt:2: run_stop is earlier than run_start (line 1)");
  EXPECT_EQ(scan.skipped[3].ToString(), b + "result_4.txt: cannot open log file");
}

TEST(ScanResults, HostileFilesAreSkippedByNameAndTheOthersAreRead) {
  test_logs::ScopedDir tmp("scan_hostile");
  const std::string b = tmp.path() + "/host/resnet/";
  WriteText(b + "result_0.txt", test_logs::LegacyText({}));
  ASSERT_EQ(mkfifo((b + "result_1.txt").c_str(), 0600), 0);  // blocked the scan in open()
  fs::create_directories(b + "result_2.txt");
  // A stray byte in a value kept as text: type_error.316 on a later dump aborted the folder.
  WriteText(b + "result_3.txt", test_logs::LegacyText({}) +
                                    ":::MLPv0.5.0 resnet 1541638790.0 (x.py:9) opt_name: '\xff'\n");
  // 1e306 s is inf ms: the run time was NaN (compare hung on it, summarize printed -nan).
  std::string overflow = test_logs::LegacyText({});
  overflow.replace(overflow.find("1541638787.25"), 13, "1e306");
  WriteText(b + "result_4.txt", overflow);
  // Finite times whose difference is not.
  const std::string mllog =
      ":::MLLOG {\"namespace\": \"\", \"time_ms\": %s, \"event_type\": \"%s\", \"key\": "
      "\"%s\", \"value\": null, \"metadata\": {\"status\": \"success\"}}\n";
  char start[256], stop[256];
  std::snprintf(start, sizeof(start), mllog.c_str(), "-1.7e308", "INTERVAL_START", "run_start");
  std::snprintf(stop, sizeof(stop), mllog.c_str(), "1.7e308", "INTERVAL_END", "run_stop");
  WriteText(b + "result_5.txt", std::string(start) + stop);

  ScanResult scan = ScanResults(tmp.path());
  ASSERT_EQ(scan.runs.size(), 2u);
  EXPECT_EQ(scan.runs[0].path, b + "result_0.txt");
  EXPECT_EQ(scan.runs[1].path, b + "result_3.txt");
  ASSERT_EQ(scan.warnings.size(), 1u);
  EXPECT_EQ(scan.warnings[0].line, 9);
  EXPECT_NE(scan.warnings[0].message.find("value of opt_name is not valid UTF-8"),
            std::string::npos)
      << scan.warnings[0].ToString();
  ASSERT_EQ(scan.skipped.size(), 4u);
  EXPECT_EQ(scan.skipped[0].ToString(), b + "result_1.txt: is a FIFO, not a regular file; skipped");
  EXPECT_EQ(scan.skipped[1].ToString(),
            b + "result_2.txt: is a directory, not a regular file; skipped");
  EXPECT_EQ(scan.skipped[2].ToString(),
            b + "result_4.txt: no run_start event (line 2 is malformed: legacy timestamp "
                "\"1e306\" is out of range)");
  EXPECT_EQ(scan.skipped[3].ToString(),
            b + "result_5.txt:2: the run time is not a finite number (run_start time_ms -1.7e+308 "
                "at line 1, run_stop time_ms 1.7e+308)");
}

TEST(ScanResults, MissingDirectoryIsAnError) {
  test_logs::ScopedDir tmp("scan_missing");
  const std::string missing = tmp.path() + "/nope";
  try {
    ScanResults(missing);
    FAIL() << "expected core::Error";
  } catch (const core::Error& e) {
    EXPECT_EQ(std::string(e.what()), missing + ": results directory not found");
  }
}

}  // namespace
}  // namespace trainbench::summary

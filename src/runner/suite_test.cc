#include "runner/suite.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>

#include "core/atomic_file.h"
#include "core/error.h"
#include "runner/test_util.h"

namespace trainbench::runner {
namespace {

namespace fs = std::filesystem;
using test_util::ScopedDir;

// A finished log whose run_stop has `status` and, when not empty, `error`.
void WriteLog(const std::string& path, const std::string& status, const std::string& error = "") {
  std::string md = "{\"status\": \"" + status + "\"" +
                   (error.empty() ? "" : ", \"error\": \"" + error + "\"") + "}";
  core::WriteFileAtomically(
      path,
      ":::MLLOG {\"namespace\": \"\", \"time_ms\": 1700000000000, \"event_type\": "
      "\"INTERVAL_START\", \"key\": \"run_start\", \"value\": null, \"metadata\": {}}\n"
      ":::MLLOG {\"namespace\": \"\", \"time_ms\": 1700000060000, \"event_type\": "
      "\"INTERVAL_END\", \"key\": \"run_stop\", \"value\": null, \"metadata\": " +
          md + "}\n");
}

TEST(Suite, ScanCountsFinishedRunsAndSetsInterruptedOnesApart) {
  ScopedDir d("suite_scan");
  EXPECT_TRUE(ScanResultsFolder(d.path() + "/absent").counted.empty());
  WriteLog(d.path() + "/result_1.txt", "success");
  WriteLog(d.path() + "/result_2.txt", "aborted", "epoch limit reached");  // a failed run counts
  WriteLog(d.path() + "/result_10.txt", "success");
  WriteLog(d.path() + "/result_3.txt", "aborted", "interrupted");
  WriteLog(d.path() + "/result_4.txt", "aborted",
           "worker process killed by signal 15 (Terminated)");
  WriteLog(d.path() + "/result_5.txt", "aborted", "worker process killed by signal 9 (Killed)");
  core::WriteFileAtomically(d.path() + "/result_6.txt.part", "");
  core::WriteFileAtomically(d.path() + "/notes.txt", "not a result");
  const FolderRuns f = ScanResultsFolder(d.path());
  const std::string p = d.path() + "/result_";
  EXPECT_EQ(f.counted,
            (std::vector<std::string>{p + "1.txt", p + "2.txt", p + "5.txt", p + "10.txt"}));
  EXPECT_EQ(f.succeeded, 2);
  EXPECT_EQ(f.interrupted, (std::vector<std::string>{p + "3.txt", p + "4.txt"}));
  EXPECT_EQ(f.unfinished, (std::vector<std::string>{p + "6.txt.part"}));

  // Set aside under names no results reader takes; a name already taken gets a suffix, nothing
  // is replaced.
  core::WriteFileAtomically(p + "3.interrupted.txt", "an earlier one");
  const auto moved = SetAsideInterrupted(f.interrupted);
  EXPECT_EQ(moved, (std::vector<std::string>{p + "3.interrupted.2.txt", p + "4.interrupted.txt"}));
  EXPECT_FALSE(fs::exists(p + "3.txt"));
  EXPECT_FALSE(fs::exists(p + "4.txt"));
  EXPECT_EQ(core::ReadFile(p + "3.interrupted.txt"), "an earlier one");
  const FolderRuns again = ScanResultsFolder(d.path());
  EXPECT_EQ(again.counted.size(), 4u);
  EXPECT_TRUE(again.interrupted.empty());
}

TEST(Suite, EstimateScalesTheReferenceTimesByWhatWasMeasured) {
  std::vector<SuiteItem> items = {{"a", 5, 5, 10.0}, {"b", 5, 2, 4.0}, {"c", 10, 0, 1.5}};
  // Nothing measured: the reference times, 3 * 4 + 10 * 1.5.
  EXPECT_DOUBLE_EQ(EstimateMinutesLeft(items, 0, 0), 27.0);
  // This machine took 30 min for runs the reference did in 20: 1.5x.
  EXPECT_DOUBLE_EQ(EstimateMinutesLeft(items, 30, 20), 40.5);
  items[2].reference_minutes = 0;  // unknown
  EXPECT_TRUE(std::isnan(EstimateMinutesLeft(items, 30, 20)));
  items[2].done = 10;  // ... but nothing left of it
  EXPECT_DOUBLE_EQ(EstimateMinutesLeft(items, 0, 0), 12.0);
}

TEST(Suite, LineSaysWhereTheSuiteIsAndWhatIsLeft) {
  const std::vector<SuiteItem> items = {{"image_classification", 5, 5, 9},
                                        {"object_detection", 5, 1, 9}};
  EXPECT_EQ(SuiteLine("mini", items, 1, 62.4, 130.0),
            "suite mini: 6/10 runs done; now 2/2 object_detection, run 2/5; 1:02 elapsed, about "
            "2:10 left");
  EXPECT_EQ(SuiteLine("full", items, 2, 0, NAN),
            "suite full: 6/10 runs done; 0:00 elapsed, time left unknown (no reference time)");
}

}  // namespace
}  // namespace trainbench::runner

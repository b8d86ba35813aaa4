#include "report/report_command.h"

#include <gtest/gtest.h>

#include <sstream>

#include "core/atomic_file.h"
#include "report/history_db.h"
#include "report/test_util.h"

namespace trainbench::report {
namespace {

using test_util::Fixture;

struct Outcome {
  int rc;
  std::string out, err;
};

Outcome RunCmd(const ReportOptions& o) {
  std::ostringstream out, err;
  const int rc = RunReportCommand(o, {}, "none", out, err);
  return {rc, out.str(), err.str()};
}

TEST(RunReportCommand, WritesTheReportAndImportsTheRuns) {
  test_util::ScopedDir dir("report_cmd");
  ReportOptions o;
  o.dirs = {Fixture("results_a"), Fixture("results_broken")};
  o.output = dir.path() + "/report.html";
  o.db_path = dir.path() + "/history.sqlite";
  Outcome r = RunCmd(o);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("wrote " + o.output + ": 2 results from 6 runs, 3 files skipped"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.err.find("skipped: "), std::string::npos);
  EXPECT_NE(r.err.find("history: 6 new runs, 0 already known"), std::string::npos) << r.err;
  const std::string html = core::ReadFile(o.output);
  EXPECT_NE(html.find("history: 6 new runs"), std::string::npos);
  // Again: the same logs are known.
  r = RunCmd(o);
  ASSERT_EQ(r.rc, 0);
  EXPECT_NE(r.err.find("history: 0 new runs, 6 already known"), std::string::npos) << r.err;
  EXPECT_EQ(HistoryDb(o.db_path).Runs().size(), 6u);
}

TEST(RunReportCommand, NoHistoryWhenToldSo) {
  test_util::ScopedDir dir("report_cmd_nohist");
  ReportOptions o;
  o.dirs = {Fixture("results_a")};
  o.output = dir.path() + "/r.html";
  o.db_path = dir.path() + "/history.sqlite";
  o.record_history = false;
  ASSERT_EQ(RunCmd(o).rc, 0);
  EXPECT_FALSE(std::filesystem::exists(o.db_path));
}

TEST(RunReportCommand, HistoryFailureIsAWarning) {
  test_util::ScopedDir dir("report_cmd_badhist");
  test_util::WriteText(dir.path() + "/file", "x");
  ReportOptions o;
  o.dirs = {Fixture("results_a")};
  o.output = dir.path() + "/r.html";
  o.db_path = dir.path() + "/file/history.sqlite";  // its folder is a file
  const Outcome r = RunCmd(o);
  EXPECT_EQ(r.rc, 0);
  EXPECT_NE(r.err.find("warning: results history not updated"), std::string::npos) << r.err;
  EXPECT_TRUE(std::filesystem::exists(o.output));
}

TEST(RunReportCommand, BadInput) {
  test_util::ScopedDir dir("report_cmd_bad");
  ReportOptions o;
  o.output = dir.path() + "/r.html";
  o.record_history = false;
  EXPECT_EQ(RunCmd(o).rc, 2);  // no folder
  o.dirs = {dir.path() + "/missing"};
  Outcome r = RunCmd(o);
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find(dir.path() + "/missing"), std::string::npos);
  o.dirs = {Fixture("results_a")};
  o.output = "";
  EXPECT_EQ(RunCmd(o).rc, 2);  // no output
  o.output = dir.path() + "/no/such/dir/r.html";
  r = RunCmd(o);
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("r.html"), std::string::npos) << r.err;
}

TEST(RunReportCommand, NeverWritesOverAResultLogOrIntoAResultsTree) {
  // `report V -o V/sys/image_classification/result_1.txt` replaced the log with HTML and
  // exited 0 (#41).
  test_util::ScopedDir dir("report_cmd_output");
  const std::string results = dir.path() + "/results";
  const std::string log = results + "/sys/resnet/result_1.txt";
  const std::string text = summary::test_logs::MllogText({});
  test_util::WriteText(log, text);
  test_util::WriteText(dir.path() + "/copy.log", text);
  test_util::WriteText(results + "/notes.md", "mine");
  ReportOptions o;
  o.dirs = {results};
  o.record_history = false;
  for (const std::string& bad :
       {log, results + "/sys/resnet/result_2.txt", results + "/sys/resnet/result_1.txt.part",
        dir.path() + "/copy.log", results + "/notes.md", results + "/sys/../sys/resnet"}) {
    o.output = bad;
    const Outcome r = RunCmd(o);
    EXPECT_EQ(r.rc, 2) << bad;
    EXPECT_NE(r.err.find("trainbench report: " + bad + ": refusing to write the report there: "),
              std::string::npos)
        << r.err;
  }
  EXPECT_EQ(core::ReadFile(log), text);
  EXPECT_EQ(core::ReadFile(dir.path() + "/copy.log"), text);
  EXPECT_EQ(core::ReadFile(results + "/notes.md"), "mine");
  EXPECT_FALSE(std::filesystem::exists(results + "/sys/resnet/result_2.txt"));
  // The report itself may live in the results folder, and be written again.
  o.output = results + "/report.html";
  ASSERT_EQ(RunCmd(o).rc, 0);
  EXPECT_EQ(RunCmd(o).rc, 0);
}

TEST(RunReportCommand, EmptyFolderGivesAnEmptyReport) {
  test_util::ScopedDir dir("report_cmd_empty");
  std::filesystem::create_directories(dir.path() + "/results");
  ReportOptions o;
  o.dirs = {dir.path() + "/results"};
  o.output = dir.path() + "/r.html";
  o.record_history = false;
  const Outcome r = RunCmd(o);
  EXPECT_EQ(r.rc, 0);
  EXPECT_NE(r.err.find("no result files"), std::string::npos);
  EXPECT_NE(core::ReadFile(o.output).find("No usable runs"), std::string::npos);
}

}  // namespace
}  // namespace trainbench::report

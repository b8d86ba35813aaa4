#include "report/history_command.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "core/atomic_file.h"
#include "core/error.h"
#include "report/history_import.h"
#include "report/test_util.h"
#include "summary/test_logs.h"

namespace trainbench::report {
namespace {

using summary::test_logs::TestDef;
using test_util::Fixture;

std::vector<core::BenchmarkDef> Defs() {
  return {TestDef("image_classification", "resnet", "test", {{"mini", 5, 8.94}})};
}

HistoryRun MakeRun(const std::string& system, const std::string& revision, double start_ms,
                   double minutes, bool converged = true) {
  HistoryRun h;
  h.content_hash = system + revision + std::to_string(start_ms);
  h.git_revision = revision;
  h.run.path = "/r/" + h.content_hash;
  h.run.format = core::LogFormat::kMllog;
  h.run.log_name = "resnet";
  h.run.trainbench_benchmark = "image_classification";
  h.run.scale = "mini";
  h.run.system = system;
  h.run.division = "closed";
  h.run.start_ms = start_ms;
  h.run.stop_ms = start_ms + minutes * 60000;
  h.run.minutes = minutes;
  h.run.converged = converged;
  h.run.status = converged ? "success" : "aborted";
  return h;
}

std::vector<HistoryRun> ThreeRevisions() {
  std::vector<HistoryRun> runs;
  const double day = 86400000;
  for (int i = 0; i < 5; ++i) runs.push_back(MakeRun("a", "r1", 1e12 + i, 9 + 0.1 * i));
  for (int i = 0; i < 5; ++i) runs.push_back(MakeRun("a", "r2", 1e12 + day + i, 8 + 0.1 * i));
  for (int i = 0; i < 5; ++i) runs.push_back(MakeRun("a", "r3", 1e12 + 2 * day + i, 10 + 0.1 * i));
  runs.push_back(MakeRun("b", "r3", 1e12, 5));
  return runs;
}

TEST(BuildHistory, OlympicMeanPerRevisionWithChangeAndRegression) {
  const auto entries = BuildHistory(ThreeRevisions(), Defs());
  ASSERT_EQ(entries.size(), 4u);
  EXPECT_EQ(entries[0].git_revision, "r1");
  EXPECT_NEAR(*entries[0].olympic_mean_minutes, 9.2, 1e-9);
  EXPECT_FALSE(entries[0].change);
  EXPECT_EQ(entries[1].git_revision, "r2");
  EXPECT_NEAR(*entries[1].change, 8.2 / 9.2 - 1, 1e-9);
  EXPECT_FALSE(entries[1].regression);
  EXPECT_EQ(entries[2].git_revision, "r3");
  EXPECT_TRUE(entries[2].regression);  // 10.2 after 8.2
  EXPECT_EQ(entries[2].status, "ok");
  EXPECT_EQ(entries[3].system, "b");
  EXPECT_FALSE(entries[3].change);  // another system starts its own series
  EXPECT_EQ(entries[3].status, "incomplete (1 of 5 runs)");
}

TEST(PrintHistory, ATableWithTheRegressionFlagged) {
  std::ostringstream out;
  PrintHistory(BuildHistory(ThreeRevisions(), Defs()), out);
  const std::string s = out.str();
  EXPECT_NE(s.find("benchmark             scale  system  division  revision"), std::string::npos)
      << s;
  EXPECT_NE(s.find("+24.4% SLOWER"), std::string::npos) << s;
  EXPECT_NE(s.find("-10.9%"), std::string::npos) << s;
  EXPECT_NE(s.find("2001-09-09 01:46"), std::string::npos) << s;  // 1e12 ms, UTC
}

TEST(RunHistoryCommand, FiltersByBenchmarkAndSystem) {
  test_util::ScopedDir dir("history_cmd");
  const std::string db = dir.path() + "/h.sqlite";
  HistoryDb(db).Import(ThreeRevisions(), 1);
  auto run = [&](const HistoryOptions& o) {
    std::ostringstream out, err;
    EXPECT_EQ(RunHistoryCommand(o, Defs(), out, err), 0) << err.str();
    return out.str();
  };
  HistoryOptions o;
  o.db_path = db;
  EXPECT_EQ(test_util::Count(run(o), "\nimage_classification "), 4u);
  o.system = "b";
  EXPECT_EQ(test_util::Count(run(o), "\nimage_classification "), 1u);
  o.system = "";
  o.benchmark = "resnet";  // the MLPerf name works too
  EXPECT_EQ(test_util::Count(run(o), "\nimage_classification "), 4u);
  o.benchmark = "translation";
  EXPECT_NE(run(o).find("no runs"), std::string::npos);
}

TEST(RunHistoryCommand, MissingHistorySaysSoAndCreatesNothing) {
  test_util::ScopedDir dir("history_cmd_missing");
  HistoryOptions o;
  o.db_path = dir.path() + "/none.sqlite";
  std::ostringstream out, err;
  EXPECT_EQ(RunHistoryCommand(o, Defs(), out, err), 0);
  EXPECT_NE(out.str().find("no results history at"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(o.db_path));
}

TEST(RunHistoryCommand, UnreadableHistoryIsBadInput) {
  test_util::ScopedDir dir("history_cmd_bad");
  HistoryOptions o;
  o.db_path = dir.path() + "/h.sqlite";
  test_util::WriteText(o.db_path, std::string(4096, 'x'));
  std::ostringstream out, err;
  EXPECT_EQ(RunHistoryCommand(o, Defs(), out, err), 2);
  EXPECT_NE(err.str().find(o.db_path), std::string::npos);
}

TEST(RunHistoryCommand, ReadsWithoutWritingAndAnEmptyFileIsNoHistory) {
  // `history` created its tables, index and meta row in whatever it opened: an empty file
  // became a history (#41). It only reads now.
  test_util::ScopedDir dir("history_cmd_readonly");
  HistoryOptions o;
  o.db_path = dir.path() + "/empty.sqlite";
  test_util::WriteText(o.db_path, "");
  std::ostringstream out, err;
  EXPECT_EQ(RunHistoryCommand(o, Defs(), out, err), 2);
  EXPECT_NE(err.str().find(o.db_path + ": not a trainbench results history"), std::string::npos)
      << err.str();
  EXPECT_EQ(std::filesystem::file_size(o.db_path), 0u);

  o.db_path = dir.path() + "/h.sqlite";
  { HistoryDb(o.db_path).Import(ThreeRevisions(), 1); }
  const std::string before = core::ReadFile(o.db_path);
  EXPECT_EQ(RunHistoryCommand(o, Defs(), out, err), 0) << err.str();
  EXPECT_EQ(core::ReadFile(o.db_path), before);
  EXPECT_THROW(HistoryDb(o.db_path, HistoryDb::Access::kReadOnly).Import(ThreeRevisions(), 2),
               core::Error);
}

TEST(RecordHistory, ImportsTheFixturesOnceAndFilesThemByRevision) {
  test_util::ScopedDir dir("history_record");
  const std::string db = dir.path() + "/h.sqlite";
  std::ostringstream err;
  RecordHistory({Fixture("results_a"), Fixture("results_b")}, db, err);
  RecordHistory({Fixture("results_a")}, db, err);
  EXPECT_NE(err.str().find("history: 10 new runs, 0 already known"), std::string::npos)
      << err.str();
  EXPECT_NE(err.str().find("history: 0 new runs, 5 already known"), std::string::npos);
  const auto entries = BuildHistory(HistoryDb(db).Runs(), Defs());
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].git_revision, "abc1234");
  EXPECT_EQ(entries[1].git_revision, "def5678");
  RecordHistory({dir.path() + "/missing"}, db, err);
  EXPECT_NE(err.str().find("warning: results history not updated"), std::string::npos);
}

}  // namespace
}  // namespace trainbench::report

#include "report/history_db.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <stdlib.h>

#include <cmath>

#include "core/error.h"
#include "report/test_util.h"

namespace trainbench::report {
namespace {

HistoryRun MakeRun(const std::string& hash, double minutes, const std::string& revision) {
  HistoryRun h;
  h.content_hash = hash;
  h.git_revision = revision;
  h.run.path = "/r/" + hash + ".txt";
  h.run.format = core::LogFormat::kMllog;
  h.run.log_name = "resnet";
  h.run.trainbench_benchmark = "image_classification";
  h.run.scale = "mini";
  h.run.system = "sys";
  h.run.division = "closed";
  h.run.start_ms = 1700000000000 + minutes;
  h.run.stop_ms = h.run.start_ms + minutes * 60000;
  h.run.minutes = minutes;
  h.run.converged = true;
  h.run.status = "success";
  h.run.epochs = 9;
  h.run.seed = 42;
  h.run.final_accuracy = 0.912;
  return h;
}

TEST(HistoryDb, ImportingTheSameRunTwiceStoresOne) {
  test_util::ScopedDir dir("history_dedupe");
  const std::string path = dir.path() + "/sub/history.sqlite";  // the folder is created
  {
    HistoryDb db(path);
    auto c = db.Import({MakeRun("h1", 9, "r1"), MakeRun("h2", 8, "r1")}, 1000);
    EXPECT_EQ(c.added, 2);
    EXPECT_EQ(c.known, 0);
  }
  HistoryDb db(path);
  auto c =
      db.Import({MakeRun("h2", 8, "r1"), MakeRun("h3", 7, "r2"), MakeRun("h3", 7, "r2")}, 2000);
  EXPECT_EQ(c.added, 1);
  EXPECT_EQ(c.known, 2);
  const auto runs = db.Runs();
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[0].content_hash, "h3");  // by start time
  EXPECT_EQ(runs[0].imported_at_ms, 2000);
  EXPECT_EQ(runs[2].imported_at_ms, 1000);
}

TEST(HistoryDb, RoundTripsEveryField) {
  test_util::ScopedDir dir("history_roundtrip");
  HistoryDb db(dir.path() + "/h.sqlite");
  HistoryRun in = MakeRun("abc", 9.5, "rev<1>");
  in.run.epochs.reset();
  in.run.seed = nullptr;
  in.run.org = "o'rg";
  db.Import({in}, 5);
  const HistoryRun out = db.Runs().at(0);
  EXPECT_EQ(out.run.path, in.run.path);
  EXPECT_EQ(out.run.format, core::LogFormat::kMllog);
  EXPECT_EQ(out.run.log_name, "resnet");
  EXPECT_EQ(out.run.trainbench_benchmark, "image_classification");
  EXPECT_EQ(out.run.scale, "mini");
  EXPECT_EQ(out.run.system, "sys");
  EXPECT_EQ(out.run.org, "o'rg");
  EXPECT_DOUBLE_EQ(out.run.start_ms, in.run.start_ms);
  EXPECT_DOUBLE_EQ(out.run.minutes, 9.5);
  EXPECT_TRUE(out.run.converged);
  EXPECT_FALSE(out.run.epochs);
  EXPECT_TRUE(out.run.seed.is_null());
  EXPECT_EQ(out.run.final_accuracy, 0.912);
  EXPECT_EQ(out.git_revision, "rev<1>");
}

TEST(HistoryDb, AFailedImportStoresNothing) {
  test_util::ScopedDir dir("history_rollback");
  const std::string path = dir.path() + "/h.sqlite";
  HistoryDb db(path);
  db.Import({MakeRun("keep", 9, "r")}, 1);
  sqlite3* other = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &other), SQLITE_OK);
  // A trigger that fails the second insert of a batch rolls back the first.
  ASSERT_EQ(sqlite3_exec(other,
                         "CREATE TRIGGER fail_bad BEFORE INSERT ON runs WHEN NEW.content_hash = "
                         "'bad' BEGIN SELECT RAISE(ABORT, 'refused'); END",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(other);
  EXPECT_THROW(db.Import({MakeRun("new", 8, "r"), MakeRun("bad", 7, "r")}, 2), core::Error);
  const auto runs = db.Runs();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].content_hash, "keep");
}

TEST(HistoryDb, NonFiniteRunTimesAreRefusedNotCountedAsKnown) {
  // A NaN minutes bound as NULL broke NOT NULL, which INSERT OR IGNORE skipped as if the run
  // were already stored.
  test_util::ScopedDir dir("history_nan");
  HistoryDb db(dir.path() + "/h.sqlite");
  HistoryRun nan_run = MakeRun("nan", 1, "r");
  nan_run.run.minutes = std::nan("");
  HistoryRun inf_run = MakeRun("inf", 1, "r");
  inf_run.run.stop_ms = INFINITY;
  auto c = db.Import({nan_run, inf_run, MakeRun("ok", 2, "r")}, 1);
  EXPECT_EQ(c.added, 1);
  EXPECT_EQ(c.known, 0);
  EXPECT_EQ(c.refused, (std::vector<std::string>{"/r/nan.txt: run time not finite",
                                                 "/r/inf.txt: run time not finite"}));
  ASSERT_EQ(db.Runs().size(), 1u);
}

TEST(HistoryDb, NotADatabaseIsAnErrorNamingTheFile) {
  test_util::ScopedDir dir("history_garbage");
  const std::string path = dir.path() + "/h.sqlite";
  test_util::WriteText(path, std::string(4096, 'x'));
  try {
    HistoryDb db(path);
    FAIL() << "no error";
  } catch (const core::Error& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
}

TEST(HistoryDb, NewerSchemaIsRefused) {
  test_util::ScopedDir dir("history_newer");
  const std::string path = dir.path() + "/h.sqlite";
  { HistoryDb db(path); }
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &raw), SQLITE_OK);
  sqlite3_exec(raw, "UPDATE meta SET value = '99' WHERE key = 'schema_version'", nullptr, nullptr,
               nullptr);
  sqlite3_close(raw);
  EXPECT_THROW(HistoryDb db(path), core::Error);
}

TEST(DefaultHistoryPath, FollowsXdgThenHome) {
  const char* old_xdg = getenv("XDG_DATA_HOME");
  const char* old_home = getenv("HOME");
  const std::string xdg = old_xdg ? old_xdg : "", home = old_home ? old_home : "";
  setenv("XDG_DATA_HOME", "/data", 1);
  EXPECT_EQ(DefaultHistoryPath(), "/data/trainbench/history.sqlite");
  setenv("XDG_DATA_HOME", "relative", 1);  // ignored, as the XDG spec says
  setenv("HOME", "/home/u", 1);
  EXPECT_EQ(DefaultHistoryPath(), "/home/u/.local/share/trainbench/history.sqlite");
  unsetenv("XDG_DATA_HOME");
  unsetenv("HOME");
  EXPECT_THROW(DefaultHistoryPath(), core::Error);
  if (old_xdg) setenv("XDG_DATA_HOME", xdg.c_str(), 1);
  if (old_home) setenv("HOME", home.c_str(), 1);
}

}  // namespace
}  // namespace trainbench::report

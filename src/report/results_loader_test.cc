#include "report/results_loader.h"

#include <gtest/gtest.h>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/sha256.h"
#include "report/test_util.h"

namespace trainbench::report {
namespace {

using test_util::Fixture;

TEST(LoadResults, ReadsDetailsAndHashesOfEveryRun) {
  const LoadedResults r = LoadResults({Fixture("results_a"), Fixture("results_b")}, {});
  ASSERT_EQ(r.runs.size(), 10u);
  EXPECT_EQ(r.runs[0].dir_index, 0u);
  EXPECT_EQ(r.runs[9].dir_index, 1u);
  EXPECT_EQ(r.runs[0].result.system, "cpu-2core");
  EXPECT_EQ(r.runs[9].result.system, "cpu-8core");
  EXPECT_EQ(r.runs[0].content_hash, core::Sha256Hex(core::ReadFile(r.runs[0].result.path)));
  EXPECT_EQ(r.runs[9].details.git_revision, "def5678");
  ASSERT_EQ(r.summary.results.size(), 2u);
  EXPECT_TRUE(r.summary.skipped.empty());
  EXPECT_EQ(FindRun(r, r.runs[3].result.path), &r.runs[3]);
  EXPECT_EQ(FindRun(r, "nope"), nullptr);
}

TEST(LoadResults, SameSystemInTwoFoldersStaysApart) {
  const LoadedResults r = LoadResults({Fixture("results_a"), Fixture("results_broken")}, {});
  ASSERT_EQ(r.summary.results.size(), 2u);
  for (const auto& run : r.runs) {
    EXPECT_EQ(run.found_system, "cpu-2core");
    EXPECT_EQ(run.result.system,
              std::string(run.dir_index == 0 ? "results_a" : "results_broken") + ":cpu-2core");
  }
}

TEST(LoadResults, RepeatedFolderNamesAreShownInFull) {
  const std::string a = Fixture("results_a"), a2 = Fixture("../testdata/results_a");
  const LoadedResults r = LoadResults({a, a2}, {});
  ASSERT_EQ(r.runs.size(), 10u);
  EXPECT_EQ(r.runs[0].result.system, a + ":cpu-2core");
  EXPECT_EQ(r.runs[9].result.system, a2 + ":cpu-2core");
}

TEST(LoadResults, BrokenFilesAreSkippedWithTheReason) {
  const LoadedResults r = LoadResults({Fixture("results_broken")}, {});
  EXPECT_EQ(r.runs.size(), 1u);
  ASSERT_EQ(r.summary.skipped.size(), 3u);
  EXPECT_NE(r.summary.skipped[0].ToString().find("result_2.txt"), std::string::npos);
  EXPECT_NE(r.summary.skipped[0].message.find("no run_stop"), std::string::npos);
  EXPECT_NE(r.summary.skipped[2].message.find("no :::MLLOG"), std::string::npos);
}

TEST(LoadResults, MissingFolderThrowsNamingIt) {
  try {
    LoadResults({"/no/such/folder"}, {});
    FAIL() << "no error";
  } catch (const core::Error& e) {
    EXPECT_NE(std::string(e.what()).find("/no/such/folder"), std::string::npos);
  }
}

}  // namespace
}  // namespace trainbench::report

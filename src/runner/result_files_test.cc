#include "runner/result_files.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/log_reader.h"
#include "core/mllog_keys.h"
#include "runner/test_util.h"

namespace trainbench::runner {
namespace {

namespace fs = std::filesystem;
using test_util::ScopedDir;

// A wait status as waitpid reports it, from a child that ends as `how` says.
template <typename Fn>
int StatusOf(Fn how) {
  pid_t pid = ::fork();
  if (pid == 0) {
    how();
    ::_exit(0);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return status;
}

TEST(DescribeExit, ExitCodeOrSignal) {
  EXPECT_EQ(DescribeExit(StatusOf([] { ::_exit(3); })), "exited with code 3");
  EXPECT_EQ(DescribeExit(StatusOf([] { ::raise(SIGKILL); })), "killed by signal 9 (Killed)");
  EXPECT_EQ(DescribeExit(StatusOf([] { test_util::AbortQuietly(); })),
            "killed by signal 6 (Aborted)");
}

TEST(NextFreeIndex, SkipsResultsAndPartFiles) {
  ScopedDir d("next_free");
  EXPECT_EQ(NextFreeIndex(d.path()), 1);
  core::WriteFileAtomically(d.path() + "/result_1.txt", "x");
  core::WriteFileAtomically(d.path() + "/result_2.txt.part", "x");
  core::WriteFileAtomically(d.path() + "/result_4.txt", "x");
  EXPECT_EQ(NextFreeIndex(d.path()), 3);
  PartFile f = CreatePartFile(d.path());
  ::close(f.fd);
  EXPECT_EQ(f.index, 3);
  EXPECT_EQ(f.path, d.path() + "/result_3.txt");
  EXPECT_EQ(f.part, d.path() + "/result_3.txt.part");
  EXPECT_TRUE(fs::exists(f.part));
  EXPECT_EQ(CreatePartFile(d.path()).index, 5);
}

TEST(CreatePartFile, AMissingFolderIsAnErrorNamingTheFile) {
  ScopedDir d("no_folder");
  try {
    CreatePartFile(d.path() + "/missing");
    FAIL();
  } catch (const core::Error& e) {
    EXPECT_NE(std::string(e.what()).find("missing/result_1.txt.part"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("cannot create"), std::string::npos) << e.what();
  }
}

TEST(FinalizeLog, AFinishedLogIsRenamedAndRead) {
  ScopedDir d("finalize_ok");
  PartFile f = CreatePartFile(d.path());
  test_util::WriteFakeLog(f.fd, "success");
  ::close(f.fd);
  Finished r = FinalizeLog(f.part, f.path, 0, 42);
  EXPECT_FALSE(fs::exists(f.part));
  EXPECT_TRUE(fs::exists(f.path));
  EXPECT_EQ(r.path, f.path);
  EXPECT_EQ(r.status, "success");
  EXPECT_DOUBLE_EQ(r.minutes, 2.0);
  EXPECT_EQ(r.epochs, 3);
  EXPECT_DOUBLE_EQ(r.last_eval, 0.75);
  EXPECT_EQ(r.seed, 42u);
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(core::ReadLogFile(f.path).FindAll(core::keys::kRunStop).size(), 1u);
}

TEST(FinalizeLog, AWorkerThatDiedGetsAnAbortedRunStop) {
  ScopedDir d("finalize_died");
  PartFile f = CreatePartFile(d.path());
  test_util::WriteFakeLog(f.fd, "");
  ::close(f.fd);
  Finished r = FinalizeLog(f.part, f.path, StatusOf([] { ::raise(SIGKILL); }), 1);
  EXPECT_EQ(r.status, "aborted");
  EXPECT_EQ(r.error, "worker process killed by signal 9 (Killed)");
  EXPECT_EQ(r.epochs, 3);
  EXPECT_FALSE(std::isnan(r.minutes));
  core::ParsedLog log = core::ReadLogFile(f.path);
  ASSERT_EQ(log.FindAll(core::keys::kRunStop).size(), 1u);
  EXPECT_EQ(log.records.back().key, core::keys::kRunStop);
  EXPECT_EQ(log.records.back().metadata.value("status", ""), "aborted");
  EXPECT_EQ(log.records.back().metadata.value("error", ""),
            "worker process killed by signal 9 (Killed)");
}

TEST(FinalizeLog, AnEmptyLogOfAWorkerThatExited) {
  ScopedDir d("finalize_empty");
  PartFile f = CreatePartFile(d.path());
  ::close(f.fd);
  Finished r = FinalizeLog(f.part, f.path, StatusOf([] { ::_exit(1); }), 1);
  EXPECT_EQ(r.status, "aborted");
  EXPECT_EQ(r.error, "worker process exited with code 1 without ending the run");
  EXPECT_EQ(r.epochs, 0);
  EXPECT_TRUE(std::isnan(r.minutes));  // no run_start
  EXPECT_TRUE(std::isnan(r.last_eval));
}

}  // namespace
}  // namespace trainbench::runner

#include "runner/runner.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "core/atomic_file.h"
#include "core/log_reader.h"
#include "core/mllog_keys.h"
#include "core/strings.h"
#include "runner/test_util.h"

namespace trainbench::runner {
namespace {

namespace fs = std::filesystem;
using test_util::ScopedDir;

SeriesOptions Options(const ScopedDir& d, int runs) {
  SeriesOptions o;
  o.dir = d.path() + "/s/bench";
  o.runs = runs;
  o.base_seed = 10;
  o.benchmark = "bench";
  o.scale = "mini";
  o.metric = "top1";
  o.quality_target = 0.75;
  o.results_root = d.path();
  core::MakeDirs(o.dir);
  return o;
}

// The file a descriptor is open on.
std::string PathOf(int fd) {
  return fs::read_symlink("/proc/self/fd/" + std::to_string(fd)).string();
}

// A worker that logs a successful run, after checking that it writes to the .part of a result
// file that does not exist yet and got its run's seed.
int SuccessfulWorker(const WorkerContext& c) {
  const std::string part = PathOf(c.log_fd);
  const std::string final_path = part.substr(0, part.size() - 5);
  if (!core::EndsWith(part, ".txt.part") || fs::exists(final_path)) return 10;
  if (c.seed != 10 + static_cast<uint64_t>(c.run) - 1) return 11;
  test_util::WriteFakeLog(c.log_fd, core::keys::kStatusSuccess);
  return kWorkerOk;
}

std::vector<std::string> Files(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

TEST(RunSeries, EachRunGetsItsResultFileAndItsLine) {
  ScopedDir d("series");
  SeriesOptions o = Options(d, 3);
  std::ostringstream err, out;
  SeriesResult r = RunSeries(o, SuccessfulWorker, err);
  EXPECT_FALSE(r.interrupted);
  ASSERT_EQ(r.finished.size(), 3u);
  EXPECT_EQ(Files(o.dir),
            (std::vector<std::string>{"result_1.txt", "result_2.txt", "result_3.txt"}));
  EXPECT_EQ(err.str(), "run 1/3: success in 2.00 min (3 epochs, top1 0.7500, seed 10) -> " + o.dir +
                           "/result_1.txt\n"
                           "run 2/3: success in 2.00 min (3 epochs, top1 0.7500, seed 11) -> " +
                           o.dir +
                           "/result_2.txt\n"
                           "run 3/3: success in 2.00 min (3 epochs, top1 0.7500, seed 12) -> " +
                           o.dir + "/result_3.txt\n");
  EXPECT_EQ(Summarize(o, r, out), kWorkerOk);
  EXPECT_EQ(out.str(),
            "bench mini: 3 of 3 run(s) reached top1 >= 0.75; mean time to train 2.00 min\n"
            "logs: " +
                o.dir + "/result_*.txt (summarize with: trainbench summarize " + d.path() + ")\n");
}

TEST(RunSeries, AnExistingResultIsNeverOverwritten) {
  ScopedDir d("existing");
  SeriesOptions o = Options(d, 1);
  core::WriteFileAtomically(o.dir + "/result_1.txt", "an earlier run\n");
  std::ostringstream err;
  SeriesResult r = RunSeries(o, SuccessfulWorker, err);
  ASSERT_EQ(r.finished.size(), 1u);
  EXPECT_EQ(r.finished[0].path, o.dir + "/result_2.txt");
  EXPECT_EQ(core::ReadFile(o.dir + "/result_1.txt"), "an earlier run\n");
  EXPECT_EQ(Files(o.dir), (std::vector<std::string>{"result_1.txt", "result_2.txt"}));
}

TEST(RunSeries, ACrashedWorkersLogEndsWithAnAbortedRunStopAndTheSeriesGoesOn) {
  ScopedDir d("crash");
  SeriesOptions o = Options(d, 2);
  std::ostringstream err, out;
  SeriesResult r = RunSeries(
      o,
      [](const WorkerContext& c) {
        if (c.run == 2) return SuccessfulWorker(c);
        test_util::WriteFakeLog(c.log_fd, "");
        test_util::AbortQuietly();
      },
      err);
  ASSERT_EQ(r.finished.size(), 2u);
  EXPECT_FALSE(r.interrupted);
  EXPECT_EQ(r.finished[0].status, "aborted");
  EXPECT_EQ(r.finished[0].error, "worker process killed by signal 6 (Aborted)");
  core::ParsedLog log = core::ReadLogFile(o.dir + "/result_1.txt");
  ASSERT_FALSE(log.records.empty());
  EXPECT_EQ(log.records.back().key, core::keys::kRunStop);
  EXPECT_EQ(log.records.back().metadata.value("status", ""), "aborted");
  EXPECT_EQ(log.records.back().metadata.value("error", ""),
            "worker process killed by signal 6 (Aborted)");
  const std::string line1 = err.str().substr(0, err.str().find('\n') + 1);
  EXPECT_EQ(line1.rfind("run 1/2: aborted after ", 0), 0u) << line1;
  EXPECT_NE(line1.find(" min (3 epochs, last top1 0.7500, seed 10): worker process killed by "
                       "signal 6 (Aborted) -> " +
                       o.dir + "/result_1.txt\n"),
            std::string::npos)
      << line1;
  EXPECT_EQ(r.finished[1].status, "success");
  EXPECT_EQ(Summarize(o, r, out), kWorkerFailed);
  EXPECT_EQ(out.str().substr(0, out.str().find('\n')),
            "bench mini: 1 of 2 run(s) reached top1 >= 0.75; mean time to train 2.00 min");
}

TEST(RunSeries, AWorkerThatExitsWithoutRunStop) {
  ScopedDir d("no_run_stop");
  SeriesOptions o = Options(d, 1);
  std::ostringstream err, out;
  SeriesResult r = RunSeries(
      o, [](const WorkerContext&) { return kWorkerFailed; }, err);
  EXPECT_EQ(err.str(),
            "run 1/1: aborted before its first epoch (seed 10): worker process exited with code 1 "
            "without ending the run -> " +
                o.dir + "/result_1.txt\n");
  EXPECT_EQ(Summarize(o, r, out), kWorkerFailed);
  EXPECT_EQ(out.str(), "bench mini: 0 of 1 run(s) reached top1 >= 0.75\nlogs: " + o.dir +
                           "/result_*.txt (summarize with: trainbench summarize " + d.path() +
                           ")\n");
}

volatile sig_atomic_t g_interrupt = 0;
void SetInterrupt(int) { g_interrupt = 1; }

TEST(RunSeries, AnInterruptStopsTheSeriesAfterTheCurrentRun) {
  ScopedDir d("interrupt");
  SeriesOptions o = Options(d, 3);
  g_interrupt = 0;
  o.interrupt = &g_interrupt;
  struct sigaction sa {
  }, old{};
  sa.sa_handler = SetInterrupt;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGUSR1, &sa, &old);
  std::ostringstream err, out;
  // The worker is what the user's Ctrl-C reaches through the launcher: it ignores the SIGINT
  // passed on (a real worker ends its run) and ends the run.
  SeriesResult r = RunSeries(
      o,
      [](const WorkerContext& c) {
        ::signal(SIGINT, SIG_IGN);
        ::kill(::getppid(), SIGUSR1);
        return SuccessfulWorker(c);
      },
      err);
  ::sigaction(SIGUSR1, &old, nullptr);
  EXPECT_TRUE(r.interrupted);
  ASSERT_EQ(r.finished.size(), 1u);
  EXPECT_EQ(Files(o.dir), std::vector<std::string>{"result_1.txt"});
  EXPECT_NE(err.str().find("trainbench: interrupted; run 1 recorded as aborted, earlier runs "
                           "kept\n"),
            std::string::npos)
      << err.str();
  EXPECT_EQ(Summarize(o, r, out), kWorkerInterrupted);
}

TEST(RunSeries, AWorkerEndedByTheInterruptStopsTheSeries) {
  ScopedDir d("worker_interrupted");
  SeriesOptions o = Options(d, 2);
  std::ostringstream err;
  SeriesResult r = RunSeries(
      o,
      [](const WorkerContext& c) {
        test_util::WriteFakeLog(c.log_fd, core::keys::kStatusAborted);
        return kWorkerInterrupted;
      },
      err);
  EXPECT_TRUE(r.interrupted);
  EXPECT_EQ(Files(o.dir), std::vector<std::string>{"result_1.txt"});
}

TEST(RunSeries, ARankThatHangsIsKilledAndTheRunEnds) {
  ScopedDir d("hang");
  SeriesOptions o = Options(d, 1);
  o.ranks = {0, 1};
  o.timeout_s = 0.2;
  o.grace_s = 0.1;
  std::ostringstream err;
  SeriesResult r = RunSeries(
      o,
      [](const WorkerContext& c) {
        if (c.rank == 0) return SuccessfulWorker(c);
        ::sleep(5);  // hangs, as far as a 0.3 s bound is concerned
        return kWorkerOk;
      },
      err);
  ASSERT_EQ(r.finished.size(), 1u);
  EXPECT_EQ(r.finished[0].status, "success");
  const std::string e = err.str();
  EXPECT_EQ(e.rfind("run 1/1: worker processes (rank=pid): 0=", 0), 0u) << e;
  EXPECT_NE(e.find(") did not end within 0 s of another rank ending; killing it\n"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find(") killed by signal 9 (Killed)\n"), std::string::npos) << e;
}

TEST(RunSeries, AMemberThatWritesNoResults) {
  ScopedDir d("member");
  SeriesOptions o = Options(d, 2);
  fs::remove_all(o.dir);
  o.writes_results = false;
  o.rank = 1;
  o.ranks = {1};
  std::ostringstream err, out;
  SeriesResult r = RunSeries(
      o,
      [](const WorkerContext& c) {
        if (c.log_fd != -1 || c.rank != 1) return 10;
        return c.run == 1 ? kWorkerOk : kWorkerFailed;
      },
      err);
  EXPECT_FALSE(fs::exists(o.dir));
  EXPECT_TRUE(r.finished.empty());
  EXPECT_EQ(r.member_failures, 1);
  EXPECT_EQ(err.str(),
            "rank 1: run 1/2 ended: success\n"
            "rank 1: run 2/2 ended: aborted, worker exited with code 1\n");
  EXPECT_EQ(Summarize(o, r, out), kWorkerFailed);
  EXPECT_EQ(out.str(),
            "rank 1: 2 run(s) done, 1 aborted; the results are in rank 0's " + d.path() + "\n");
}

}  // namespace
}  // namespace trainbench::runner

// `run` and `gtp` in the LibTorch-free `trainbench`: in a LibTorch build they are handed over to
// trainbench-torch (ExecTorchBinary, called by main.cc before these); in a build configured with
// -DTRAINBENCH_WITH_TORCH=OFF the checker, summarizer and listings work, training does not.
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>

#include "cli/commands.h"
#include "core/benchmark_def.h"
#include "core/cpu_share.h"
#include "core/error.h"
#include "core/paths.h"
#include "core/tuning.h"

namespace trainbench::cli {

namespace {

// OpenMP threads that spin at a barrier while their partner waits for a core make a 2-thread
// run on a machine with one core taken 3x slower, not 2x (measured: docs/performance.md). When
// other processes use 10% of the CPUs or more at launch, the trainbench-torch process and its
// workers get OMP_WAIT_POLICY=PASSIVE (libgomp reads it when it is loaded, so it is set here,
// before the exec); on an idle machine the library's default stays (its spinning is what the
// reference times were measured with). A policy the user set is kept. The choice and why go to
// TRAINBENCH_OMP_WAIT, which the run logs in trainbench_provenance.
void ChooseOmpWaitPolicy() {
  if (const char* set = std::getenv("OMP_WAIT_POLICY")) {
    ::setenv("TRAINBENCH_OMP_WAIT",
             ("OMP_WAIT_POLICY=" + std::string(set) + ", set by the user").c_str(), 1);
    return;
  }
  const auto before = core::ReadCpuTimes();
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // 20 ticks of 2 cores
  const auto after = core::ReadCpuTimes();
  const auto share =
      before && after ? core::CpuShareBetween(*before, *after) : std::optional<core::CpuShare>();
  if (!share) return;
  char why[200];
  if (share->other >= 0.10) {
    ::setenv("OMP_WAIT_POLICY", "PASSIVE", 1);
    std::snprintf(why, sizeof(why),
                  "OMP_WAIT_POLICY=PASSIVE: other processes used %.0f%% of the CPUs at launch",
                  100 * share->other);
  } else {
    std::snprintf(why, sizeof(why),
                  "the OpenMP default: other processes used %.0f%% of the CPUs at launch",
                  100 * share->other);
  }
  ::setenv("TRAINBENCH_OMP_WAIT", why, 1);
}

}  // namespace

void ExecTorchBinary(char** argv) {
  ChooseOmpWaitPolicy();
  char self[PATH_MAX] = {0};
  const ssize_t n = ::readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (n <= 0)
    throw core::Error("cannot find this executable (/proc/self/exe) to start trainbench-torch");
  const std::string torch =
      (std::filesystem::path(std::string(self, static_cast<size_t>(n))).parent_path() /
       "trainbench-torch")
          .string();
  std::fflush(stdout);
  std::fflush(stderr);
  argv[0] = const_cast<char*>(torch.c_str());
  ::execv(torch.c_str(), argv);
  throw core::Error(torch + ": cannot start it (" + std::strerror(errno) +
                    "); `run` and `gtp` need trainbench-torch next to trainbench");
}

int RunRun(const RunOptions& o) {
  // The checks of the LibTorch build's RunRun come first, in its order (an unknown benchmark,
  // scale or division, then the tuning file), so that bad input gets the same error here.
  const core::BenchmarkDef def = core::FindBenchmark(core::BenchmarksDir(), o.benchmark);
  def.Scale(o.scale);
  core::ParseDivision(o.division);
  if (!o.tuning.empty()) core::LoadTuning(o.tuning, def.name, o.scale);
  throw core::Error(
      "this trainbench was built without LibTorch (TRAINBENCH_WITH_TORCH=OFF): `run` is "
      "unavailable");
}

int RunGtp(const GtpOptions&) {
  throw core::Error(
      "this trainbench was built without LibTorch (TRAINBENCH_WITH_TORCH=OFF): `gtp` is "
      "unavailable");
}

}  // namespace trainbench::cli

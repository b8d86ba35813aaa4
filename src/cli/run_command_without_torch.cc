// `run` and `gtp` in the LibTorch-free `trainbench`: in a LibTorch build they are handed over to
// trainbench-torch (ExecTorchBinary, called by main.cc before these); in a build configured with
// -DTRAINBENCH_WITH_TORCH=OFF the checker, summarizer and listings work, training does not.
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>

#include "cli/commands.h"
#include "core/benchmark_def.h"
#include "core/error.h"
#include "core/paths.h"
#include "core/tuning.h"

namespace trainbench::cli {

void ExecTorchBinary(char** argv) {
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

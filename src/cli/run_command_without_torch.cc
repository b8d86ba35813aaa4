// `trainbench run` in a build configured with -DTRAINBENCH_WITH_TORCH=OFF: the checker,
// summarizer and listings work, training does not.
#include "cli/commands.h"
#include "core/benchmark_def.h"
#include "core/error.h"
#include "core/paths.h"

namespace trainbench::cli {

int RunRun(const RunOptions& o) {
  core::FindBenchmark(core::BenchmarksDir(), o.benchmark);  // an unknown name is the first error, as with LibTorch
  throw core::Error("this trainbench was built without LibTorch (TRAINBENCH_WITH_TORCH=OFF): `run` is unavailable");
}

int RunGtp(const GtpOptions&) {
  throw core::Error("this trainbench was built without LibTorch (TRAINBENCH_WITH_TORCH=OFF): `gtp` is unavailable");
}

}  // namespace trainbench::cli

// `trainbench run` in a build configured with -DTRAINBENCH_WITH_TORCH=OFF: the checker,
// summarizer and listings work, training does not.
#include "cli/commands.h"
#include "core/benchmark_def.h"
#include "core/error.h"
#include "core/paths.h"
#include "core/tuning.h"

namespace trainbench::cli {

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

// What the workload options tests share: a definition's reference configuration and the text
// of the error a call throws.
#pragma once

#include <functional>
#include <string>

#include "core/benchmark_def.h"
#include "core/error.h"

namespace trainbench::workloads {

// The effective configuration of `benchmark` at `scale` with no overrides (closed division), as
// `trainbench run` resolves it without --set.
inline core::Json ReferenceConfig(const std::string& benchmark, const std::string& scale) {
  const core::BenchmarkDef def =
      core::FindBenchmark(std::string(TRAINBENCH_TEST_SRCDIR) + "/configs/benchmarks", benchmark);
  return core::ResolveConfig(def.Scale(scale), {}, core::Division::kClosed).effective;
}

// The preset of `benchmark` at `scale` (core::ScaleDef::preset: model shape, dataset facts).
inline core::Json Preset(const std::string& benchmark, const std::string& scale) {
  return core::FindBenchmark(std::string(TRAINBENCH_TEST_SRCDIR) + "/configs/benchmarks", benchmark)
      .Scale(scale)
      .preset;
}

// The core::Error `f` throws, or "(no error)".
inline std::string ErrorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const core::Error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace trainbench::workloads

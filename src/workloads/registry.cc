#include "workloads/registry.h"

#include "core/error.h"
#include "workloads/benchmark_table.h"
#include "workloads/translation.h"

namespace trainbench::workloads {

// The factories the table names (defined in each workload's file).
#define TRAINBENCH_DECLARE_FACTORY(name, dataset, factory) \
  std::unique_ptr<train::Workload> factory(const core::ScaleDef& scale);
TRAINBENCH_BENCHMARKS(TRAINBENCH_DECLARE_FACTORY)
#undef TRAINBENCH_DECLARE_FACTORY

// translation.cc serves two benchmarks, one architecture each.
std::unique_ptr<train::Workload> MakeTransformer(const core::ScaleDef& scale) {
  return MakeTranslation("transformer", scale);
}
std::unique_ptr<train::Workload> MakeGnmt(const core::ScaleDef& scale) {
  return MakeTranslation("gnmt", scale);
}

std::unique_ptr<train::Workload> CreateWorkload(const std::string& benchmark,
                                                const core::ScaleDef& scale) {
#define TRAINBENCH_CREATE(name, dataset, factory) \
  if (benchmark == #name) return factory(scale);
  TRAINBENCH_BENCHMARKS(TRAINBENCH_CREATE)
#undef TRAINBENCH_CREATE
  throw core::Error("benchmark \"" + benchmark + "\" has no implementation in this build yet");
}

std::vector<std::string> ImplementedBenchmarks() {
  std::vector<std::string> names;
  for (const BenchmarkRow& r : kBenchmarks) names.emplace_back(r.name);
  return names;
}

}  // namespace trainbench::workloads

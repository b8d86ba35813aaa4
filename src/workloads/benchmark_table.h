// Every benchmark trainbench implements, one line each: X(name, dataset, factory).
//   name     its definition (configs/benchmarks/<name>.yaml) and the name `run` takes;
//   dataset  what `trainbench prepare` makes or checks for it (cli/prepare_command.cc's table;
//            `prepare <name>` and `prepare <dataset>` both work);
//   factory  the function of namespace trainbench::workloads that makes its train::Workload
//            for a scale (declared from this table in workloads/registry.cc).
// Adding a benchmark: its workload files, its YAML definition, its rule files, and one line
// here. This header is LibTorch-free: `prepare`, `list` and the LibTorch-free build read it too.
#pragma once

#include <string_view>

#define TRAINBENCH_BENCHMARKS(X)                                         \
  X(image_classification, image_classification, MakeImageClassification) \
  X(object_detection, detection, MakeObjectDetection)                    \
  X(instance_segmentation, detection, MakeInstanceSegmentation)          \
  X(recommendation, recommendation, MakeRecommendation)                  \
  X(translation, translation, MakeTransformer)                           \
  X(rnn_translation, translation, MakeGnmt)                              \
  X(reinforcement_learning, go, MakeMiniGo)

namespace trainbench::workloads {

struct BenchmarkRow {
  std::string_view name;
  std::string_view dataset;
};

#define TRAINBENCH_BENCHMARK_ROW(name, dataset, factory) BenchmarkRow{#name, #dataset},
inline constexpr BenchmarkRow kBenchmarks[] = {TRAINBENCH_BENCHMARKS(TRAINBENCH_BENCHMARK_ROW)};
#undef TRAINBENCH_BENCHMARK_ROW

// The row of benchmark `name`; null when trainbench implements no such benchmark.
inline const BenchmarkRow* FindBenchmarkRow(std::string_view name) {
  for (const BenchmarkRow& r : kBenchmarks) {
    if (r.name == name) return &r;
  }
  return nullptr;
}

// The first benchmark (in table order) trained on `dataset`; null when none is.
inline const BenchmarkRow* FirstBenchmarkOn(std::string_view dataset) {
  for (const BenchmarkRow& r : kBenchmarks) {
    if (r.dataset == dataset) return &r;
  }
  return nullptr;
}

}  // namespace trainbench::workloads

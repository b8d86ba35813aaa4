// The benchmarks trainbench can run: benchmark name + scale -> a fresh Workload.
// This header is LibTorch-free so the CLI can include it cheaply.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/benchmark_def.h"
#include "train/workload.h"

namespace trainbench::workloads {

// `scale`: the benchmark's definition at the scale to run (its preset fixes the model and the
// data files). Throws core::Error when no workload implements `benchmark`.
std::unique_ptr<train::Workload> CreateWorkload(const std::string& benchmark,
                                                const core::ScaleDef& scale);

// Names of the benchmarks with an implementation.
std::vector<std::string> ImplementedBenchmarks();

}  // namespace trainbench::workloads

// The benchmarks trainbench can run: benchmark name + scale -> a fresh Workload.
// This header is LibTorch-free so the CLI can include it cheaply.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "train/workload.h"

namespace trainbench::workloads {

// Throws core::Error when no workload implements `benchmark` at `scale`.
std::unique_ptr<train::Workload> CreateWorkload(const std::string& benchmark,
                                                const std::string& scale);

// Names of the benchmarks with an implementation.
std::vector<std::string> ImplementedBenchmarks();

}  // namespace trainbench::workloads

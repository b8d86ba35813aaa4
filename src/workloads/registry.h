// The benchmarks trainbench can run: benchmark name + scale -> a fresh Workload.
// This header is LibTorch-free so the CLI can include it cheaply.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "train/workload.h"

namespace trainbench::workloads {

// Throws core::Error when no workload implements `benchmark` at `scale`.
std::unique_ptr<train::Workload> CreateWorkload(const std::string& benchmark, const std::string& scale);

// Throws core::Error unless `device` is cpu, cuda or cuda:N and, for CUDA, this LibTorch has it
// and the device exists ("cudafoo", and "cuda" on a CPU-only build, went on to a LibTorch
// backtrace inside the run).
void CheckDevice(const std::string& device);

// Names of the benchmarks with an implementation.
std::vector<std::string> ImplementedBenchmarks();

}  // namespace trainbench::workloads

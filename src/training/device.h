// The check of a `--device` name. LibTorch-free header so that the CLI can check the flag before
// it forks the workers without compiling LibTorch's headers; SetUpTorch checks it again for
// library callers.
#pragma once

#include <string>

namespace trainbench::training {

// Throws core::Error unless `device` is cpu, cuda or cuda:N and, for CUDA, this LibTorch has it
// and the device exists ("cudafoo", and "cuda" on a CPU-only build, went on to a LibTorch
// backtrace inside the run).
void CheckDevice(const std::string& device);

}  // namespace trainbench::training

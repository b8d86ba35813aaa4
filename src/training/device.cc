#include "training/device.h"

#include <torch/cuda.h>

#include "core/error.h"

namespace trainbench::training {

void CheckDevice(const std::string& device) {
  if (device == "cpu") return;
  const std::string index = device.rfind("cuda:", 0) == 0 ? device.substr(5) : "";
  const bool digits = !index.empty() && index.size() <= 3 &&
                      index.find_first_not_of("0123456789") == std::string::npos;
  if (device != "cuda" && !digits)
    throw core::Error("--device \"" + device + "\": expected cpu, cuda or cuda:N");
  if (!torch::cuda::is_available()) {
    throw core::Error("--device " + device +
                      ": this LibTorch build has no CUDA, or no CUDA device is visible");
  }
  const int n = static_cast<int>(torch::cuda::device_count());
  if (digits && std::stoi(index) >= n) {
    throw core::Error("--device " + device + ": this machine has " + std::to_string(n) +
                      " CUDA device(s)");
  }
}

}  // namespace trainbench::training

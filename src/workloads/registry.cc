#include "workloads/registry.h"

#include <torch/cuda.h>

#include "core/error.h"
#include "workloads/image_classification.h"
#include "workloads/instance_segmentation.h"
#include "workloads/minigo.h"
#include "workloads/object_detection.h"
#include "workloads/recommendation.h"
#include "workloads/translation.h"

namespace trainbench::workloads {

void CheckDevice(const std::string& device) {
  if (device == "cpu") return;
  const std::string index = device.rfind("cuda:", 0) == 0 ? device.substr(5) : "";
  const bool digits = !index.empty() && index.size() <= 3 &&
                      index.find_first_not_of("0123456789") == std::string::npos;
  if (device != "cuda" && !digits) throw core::Error("--device \"" + device + "\": expected cpu, cuda or cuda:N");
  if (!torch::cuda::is_available()) {
    throw core::Error("--device " + device + ": this LibTorch build has no CUDA, or no CUDA device is visible");
  }
  const int n = static_cast<int>(torch::cuda::device_count());
  if (digits && std::stoi(index) >= n) {
    throw core::Error("--device " + device + ": this machine has " + std::to_string(n) + " CUDA device(s)");
  }
}

std::unique_ptr<train::Workload> CreateWorkload(const std::string& benchmark, const std::string& scale) {
  if (benchmark == "image_classification") return MakeImageClassification(scale);
  if (benchmark == "recommendation") return MakeRecommendation(scale);
  if (benchmark == "object_detection") return MakeObjectDetection(scale);
  if (benchmark == "instance_segmentation") return MakeInstanceSegmentation(scale);
  if (benchmark == "translation") return MakeTranslation("transformer", scale);
  if (benchmark == "rnn_translation") return MakeTranslation("gnmt", scale);
  if (benchmark == "reinforcement_learning") return MakeMiniGo(scale);
  throw core::Error("benchmark \"" + benchmark + "\" has no implementation in this build yet");
}

std::vector<std::string> ImplementedBenchmarks() { return {"image_classification", "object_detection", "instance_segmentation", "recommendation", "translation", "rnn_translation", "reinforcement_learning"}; }

}  // namespace trainbench::workloads

#include "workloads/registry.h"

#include "core/error.h"
#include "workloads/image_classification.h"
#include "workloads/instance_segmentation.h"
#include "workloads/minigo.h"
#include "workloads/object_detection.h"
#include "workloads/recommendation.h"
#include "workloads/translation.h"

namespace trainbench::workloads {

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

// libFuzzer target: a COCO instances file and a results file (the input split at its first NUL
// byte, which JSON text cannot hold), read and validated as `trainbench score coco` does, then
// evaluated with iouType bbox and segm (docs/fuzzing.md).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "coco/coco_dataset.h"
#include "coco/coco_eval.h"
#include "fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trainbench;
  const std::vector<std::string> parts = fuzz::Split(data, size, '\0', 2);
  fuzz::ExpectOnlyCoreErrors([&] {
    coco::CocoDataset gt = coco::ParseCocoDataset(parts[0], "gt.json");
    (void)coco::CocoDatasetToJson(gt);
    if (parts.size() < 2) return;
    std::vector<coco::Detection> dets = coco::ParseCocoResults(parts[1], "results.json", gt);
    (void)coco::CocoResultsToJson(dets);
    for (coco::IouType t : {coco::IouType::kBbox, coco::IouType::kSegm}) {
      fuzz::ExpectOnlyCoreErrors([&] {
        coco::CocoStats stats = coco::EvaluateDetections(gt, dets, t);
        (void)coco::FormatCocoSummary(stats);
      });
    }
  });
  return 0;
}

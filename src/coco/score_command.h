// `trainbench score coco GT.json DETECTIONS.json [--iou-type bbox|segm] [--json]`: the COCO
// detection metrics (coco_eval.h, docs/coco_eval.md) of a results file against a COCO instances
// file, printed as pycocotools' summarize() prints them or as one JSON object.
#pragma once

#include <ostream>
#include <string>

#include "coco/coco_eval.h"
#include "core/json.h"

namespace trainbench::coco {

// Bumped whenever a field of the JSON output changes meaning or goes away.
inline constexpr int kScoreCocoSchemaVersion = 1;

struct ScoreCocoOptions {
  std::string gt_file;            // COCO instances JSON (instances_val2017.json)
  std::string results_file;       // COCO results JSON (a list of detections)
  std::string iou_type = "bbox";  // bbox or segm
  bool json = false;
};

// {"schema_version", "iou_type", "stats": {"AP": ..., ..., "ARl": ...}, "stats_list": [12],
// "images", "annotations", "detections", "summary": [the 12 text lines]}.
core::Json CocoScoreToJson(const CocoStats& s, IouType t, long long images, long long annotations,
                           long long detections);

// Reads both files, evaluates, writes the result to `out`. Returns 0; bad input (unreadable or
// malformed file, an unknown image or category id in the results, an unknown iou type) throws
// core::Error naming the file and the element, which the CLI maps to exit code 2. Detection
// boxes pycocotools scores but that look like mistakes (ReadCocoResults) are warned about on
// `err`, the first 10 by name and the rest counted.
int RunScoreCocoCommand(const ScoreCocoOptions& o, std::ostream& out, std::ostream& err);

}  // namespace trainbench::coco

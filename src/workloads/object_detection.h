// Light-weight object detection (MLPerf `ssd`): SSD with a ResNet trunk (models/ssd.h) on
// COCO-format data, evaluated by the official COCO protocol (coco/coco_eval.h), the quality
// metric being bbox mAP@[.50:.95] (stats[0]).
// - mini: the shapes dataset of `trainbench prepare detection` (docs/datasets/detection_mini.md),
//   a narrow SSD at a small input size.
// - full: COCO 2017 (train2017/, val2017/, annotations/instances_{train,val}2017.json), SSD300
//   with the ResNet-34 trunk, 80 classes + background.
// Both: the v0.5 reference's input pipeline (workloads/detection_data.h), SGD with momentum and
// weight decay, linear warmup then step decay (x0.1 at two epoch boundaries), the loss with 3:1
// hard negative mining, decoding with NMS 0.5 and at most 200 detections per image.
#pragma once

#include <memory>
#include <string>

#include "core/benchmark_def.h"
#include "train/workload.h"

namespace trainbench::workloads {

// scale: the definition's scale (its preset fixes the model and the data files).
std::unique_ptr<train::Workload> MakeObjectDetection(const core::ScaleDef& scale);

}  // namespace trainbench::workloads

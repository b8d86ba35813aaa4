// Heavy-weight object detection and instance segmentation (MLPerf `maskrcnn`): Mask R-CNN with a
// ResNet + FPN trunk (models/mask_rcnn.h) on COCO-format data, evaluated by the official COCO
// protocol twice, on boxes and on masks (coco/coco_eval.h). The quality metric is the box
// mAP@[.50:.95]; the mask mAP is a secondary target the same evaluation must reach
// (core::ScaleDef::secondary_targets), as MLPerf's 0.377 box / 0.339 mask.
// - mini: the shapes dataset of `trainbench prepare detection` (docs/datasets/detection_mini.md),
//   a narrow Mask R-CNN at the images' 128 pixels.
// - full: COCO 2017 (train2017/, val2017/, annotations/instances_{train,val}2017.json), the
//   R-50-FPN of maskrcnn-benchmark's e2e_mask_rcnn_R_50_FPN_1x, 80 classes + background.
// Both: the reference's input (workloads/detection_data.h: resize to a shorter side, flip, BGR
// minus the Caffe means, batches padded to a multiple of 32), SGD with momentum and weight decay
// (biases at twice the learning rate and without weight decay, as the reference), linear warmup
// from warmup_factor over warmup_steps iterations, x0.1 at two epoch boundaries; inference as the
// reference's post-processors, masks pasted into the original image (threshold 0.5) and
// RLE-encoded for the segm evaluation.
#pragma once

#include <memory>
#include <string>

#include "core/benchmark_def.h"
#include "train/workload.h"

namespace trainbench::workloads {

// scale: the definition's scale (its preset fixes the model and the data files).
std::unique_ptr<train::Workload> MakeInstanceSegmentation(const core::ScaleDef& scale);

}  // namespace trainbench::workloads

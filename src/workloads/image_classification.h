// Image classification (MLPerf `resnet`):
// - mini: Fashion-MNIST (Debian dataset-fashion-mnist), a small ResNet, top-1 on the whole
//   10k test set.
// - full: ResNet-50 v1.5 on ImageNet in the standard folder layout (train/<wnid>/*.JPEG,
//   val/<wnid>/*.JPEG), random-resized-crop 224 + flip for training, resize 256 + center crop
//   224 for evaluation, top-1 on the whole validation set.
// Both: SGD with momentum or LARS, linear warmup then polynomial (power 2) decay, as the
// closed division allows; logged with the keys the official checker expects for `resnet`.
#pragma once

#include <memory>
#include <string>

#include "core/benchmark_def.h"
#include "train/workload.h"

namespace trainbench::workloads {

// scale: the definition's scale (its preset fixes the model and the data files).
std::unique_ptr<train::Workload> MakeImageClassification(const core::ScaleDef& scale);

}  // namespace trainbench::workloads

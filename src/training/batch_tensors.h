// The data loader's batches (data::Batch, LibTorch-free buffers) as tensors on a device.
#pragma once

#include <torch/torch.h>

#include "data/batch_loader.h"

namespace trainbench::training {

// [B, C, H, W] float tensor on `device` holding a copy of the batch's images.
torch::Tensor BatchImages(const data::Batch& batch, const torch::Device& device);
// [B] int64 tensor on `device` of the batch's labels.
torch::Tensor BatchLabels(const data::Batch& batch, const torch::Device& device);

}  // namespace trainbench::training

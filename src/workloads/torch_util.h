// Small LibTorch helpers shared by the workloads: device and thread set-up, seeding, batch
// buffers to tensors, and runtime provenance.
#pragma once

#include <torch/torch.h>

#include "core/json.h"
#include "data/batch_loader.h"
#include "train/workload.h"

namespace trainbench::workloads {

// Sets intra-op threads and seeds LibTorch from the run seed (stream "model"); returns the
// device named by ctx.device. Throws core::Error for an unavailable device.
torch::Device SetUpTorch(const train::RunContext& ctx);

// [B, C, H, W] float tensor on `device` holding a copy of the batch's images.
torch::Tensor BatchImages(const data::Batch& batch, const torch::Device& device);
// [B] int64 tensor on `device` of the batch's labels.
torch::Tensor BatchLabels(const data::Batch& batch, const torch::Device& device);

// {libtorch_version, intra_op_threads, device, mkldnn, openmp, ...}
core::Json TorchProvenance(const torch::Device& device);

}  // namespace trainbench::workloads

// Small LibTorch helpers shared by the workloads: device and thread set-up, seeding, batch
// buffers to tensors, and runtime provenance.
#pragma once

#include <torch/torch.h>

#include "core/json.h"
#include "data/batch_loader.h"
#include "dist/gradient_reducer.h"
#include "dist/process_group.h"
#include "train/workload.h"

namespace trainbench::workloads {

// Sets intra-op threads and seeds LibTorch from the run seed (stream "model"); returns the
// device named by ctx.device. Throws core::Error for an unavailable device.
torch::Device SetUpTorch(const train::RunContext& ctx);

// [B, C, H, W] float tensor on `device` holding a copy of the batch's images.
torch::Tensor BatchImages(const data::Batch& batch, const torch::Device& device);
// [B] int64 tensor on `device` of the batch's labels.
torch::Tensor BatchLabels(const data::Batch& batch, const torch::Device& device);

// The run's data-parallel group: ctx.group, or the local group for one process.
std::shared_ptr<dist::ProcessGroup> RunGroup(const train::RunContext& ctx);

// Data-parallel set-up of a freshly built model: rank 0's parameters and buffers go to every
// rank, and for world size > 1 a GradientReducer over its parameters (`sparse`: the ones with
// sparse gradients) is returned; null for one process.
std::unique_ptr<dist::GradientReducer> MakeDataParallel(const std::shared_ptr<dist::ProcessGroup>& group,
                                                        torch::nn::Module& model,
                                                        std::vector<torch::Tensor> sparse = {});

// Before a data-parallel evaluation: throws core::Error if the ranks' parameters differ (they
// must be identical after every step), then gives every rank rank 0's buffers (BatchNorm's
// running statistics are per rank during training, as MLPerf's model_bn_span says).
void SyncForEvaluation(dist::ProcessGroup& group, torch::nn::Module& model);

// Sets the BLAS library's own thread count (OpenBLAS's openblas_set_num_threads, found at run
// time in the loaded libraries; no link dependency). Returns false when no such BLAS is loaded.
// OpenBLAS's pthreads and LibTorch's OpenMP threads spin against each other on a small machine:
// with both at 2 threads on 2 cores, small GEMMs run ~2x slower (docs/performance.md).
bool SetBlasThreads(int threads);
// The BLAS thread count last set by SetBlasThreads (0: never set).
int BlasThreads();

// After an optimizer step (the run's `step`-th): reads the loss only every `every` steps
// (reading it synchronises a GPU), throws core::Error("training diverged: ...") when that value
// is infinite or NaN, and returns control.OnStep(samples, loss) with NaN for an unread loss.
bool ReportStep(train::TrainControl& control, const torch::Tensor& loss, int64_t step, int64_t every, int64_t samples);

// {libtorch_version, intra_op_threads, device, mkldnn, openmp, ...}
core::Json TorchProvenance(const torch::Device& device);

}  // namespace trainbench::workloads

// Small LibTorch helpers shared by the workloads: device and thread set-up, seeding, batch
// buffers to tensors, and runtime provenance.
#pragma once

#include <torch/torch.h>

#include "core/json.h"
#include "data/batch_loader.h"
#include "dist/gradient_reducer.h"
#include "dist/process_group.h"
#include "train/workload.h"

namespace trainbench::training {

// Sets intra-op threads, turns on core::EnableMallocReuse when the configuration's
// `malloc_reuse` is true (every definition has the key; process-wide), and seeds LibTorch from
// the run seed (stream "model"); returns the device named by ctx.device. Throws core::Error for
// an unavailable device.
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

// For a phase in which several threads each run their own small GEMMs (concurrent self-play):
// the BLAS library's thread count set to `threads` for the scope's life and the previous count
// restored after (0, or no OpenBLAS loaded: nothing changes). With OpenBLAS's default of one
// thread per core, two such callers share OpenBLAS's worker threads and wait for them in
// sched_yield.
class BlasThreadsScope {
 public:
  explicit BlasThreadsScope(int threads);
  ~BlasThreadsScope();
  BlasThreadsScope(const BlasThreadsScope&) = delete;
  BlasThreadsScope& operator=(const BlasThreadsScope&) = delete;

 private:
  int previous_ = 0, previous_set_ = 0;
};

// Mixed precision: the compute dtype a benchmark's `precision` option (or another key, named by
// `key`) names ("fp32", "bf16", "fp16"). Throws core::Error naming the key for another value, and
// for fp16 on a CPU (LibTorch's CPU autocast has bf16 only).
torch::Dtype ParsePrecision(const std::string& value, const torch::Device& device,
                            const std::string& key = "precision");
const char* PrecisionName(torch::Dtype dtype);

// For the forward pass and the loss: LibTorch's autocast for `device` in `dtype` (CPU: bf16;
// CUDA: fp16 or bf16). Eligible operations (convolutions, matrix products, ...) run in `dtype`
// from fp32 weights, which stay the master copy; the rest keep their input types. Nothing
// happens for kFloat32. The previous autocast state is restored on destruction.
class AutocastScope {
 public:
  AutocastScope(const torch::Device& device, torch::Dtype dtype);
  ~AutocastScope();
  AutocastScope(const AutocastScope&) = delete;
  AutocastScope& operator=(const AutocastScope&) = delete;

 private:
  bool active_ = false, cuda_ = false, prev_enabled_ = false;
  at::ScalarType prev_dtype_ = at::kFloat;
};

// Dynamic loss scaling for fp16 (as torch.cuda.amp.GradScaler): the loss is multiplied by the
// scale before backward; the gradients are divided by it before the step, and a step whose
// gradients hold an inf or NaN is skipped and halves the scale; `growth_interval` good steps in
// a row double it. Device-agnostic; for bf16 and fp32 it is not needed (scale 1, never skips).
class LossScaler {
 public:
  explicit LossScaler(double init_scale = 65536.0, int64_t growth_interval = 2000);
  torch::Tensor Scale(const torch::Tensor& loss) const { return loss * scale_; }
  // Unscales the parameters' gradients in place; returns false (skip the step) when any is not
  // finite, and updates the scale either way.
  bool UnscaleAndUpdate(const std::vector<torch::Tensor>& params);
  double scale() const { return scale_; }
  int64_t skipped() const { return skipped_; }

 private:
  double scale_;
  int64_t growth_interval_, good_steps_ = 0, skipped_ = 0;
};

// Converts a model's 4-D parameters and buffers (convolution weights) to channels-last memory
// order in place; inputs given as channels-last then keep convolutions in NHWC end to end.
void ToChannelsLast(torch::nn::Module& model);

// After an optimizer step (the run's `step`-th): reads the loss only every `every` steps
// (reading it synchronises a GPU), throws core::Error("training diverged: ...") when that value
// is infinite or NaN, and returns control.OnStep(samples, loss) with NaN for an unread loss.
bool ReportStep(train::TrainControl& control, const torch::Tensor& loss, int64_t step, int64_t every, int64_t samples);

// {libtorch_version, intra_op_threads, device, mkldnn, openmp, ...}
core::Json TorchProvenance(const torch::Device& device);

}  // namespace trainbench::training

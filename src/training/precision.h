// Mixed precision: the compute dtype a configuration names, LibTorch's autocast for a scope,
// and dynamic loss scaling for fp16.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <string>
#include <vector>

namespace trainbench::training {

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

}  // namespace trainbench::training

#include "training/precision.h"

#include <ATen/autocast_mode.h>

#include "core/error.h"

namespace trainbench::training {

torch::Dtype ParsePrecision(const std::string& value, const torch::Device& device,
                            const std::string& key) {
  if (value == "fp32") return torch::kFloat32;
  if (value == "bf16") return torch::kBFloat16;
  if (value == "fp16") {
    if (!device.is_cuda()) {
      throw core::Error("configuration key \"" + key +
                        "\": fp16 needs a CUDA device (CPU autocast is bf16 only)");
    }
    return torch::kFloat16;
  }
  throw core::Error("configuration key \"" + key + "\": expected fp32, bf16 or fp16, got \"" +
                    value + "\"");
}

const char* PrecisionName(torch::Dtype dtype) {
  return dtype == torch::kBFloat16 ? "bf16" : dtype == torch::kFloat16 ? "fp16" : "fp32";
}

AutocastScope::AutocastScope(const torch::Device& device, torch::Dtype dtype) {
  if (dtype == torch::kFloat32) return;
  active_ = true;
  cuda_ = device.is_cuda();
  if (cuda_) {
    prev_enabled_ = at::autocast::is_enabled();
    prev_dtype_ = at::autocast::get_autocast_gpu_dtype();
    at::autocast::set_autocast_gpu_dtype(dtype);
    at::autocast::set_enabled(true);
  } else {
    prev_enabled_ = at::autocast::is_cpu_enabled();
    prev_dtype_ = at::autocast::get_autocast_cpu_dtype();
    at::autocast::set_autocast_cpu_dtype(dtype);
    at::autocast::set_cpu_enabled(true);
  }
  at::autocast::increment_nesting();
}

AutocastScope::~AutocastScope() {
  if (!active_) return;
  // The cast weights are cached for the scope; the outermost scope frees them.
  if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
  if (cuda_) {
    at::autocast::set_enabled(prev_enabled_);
    at::autocast::set_autocast_gpu_dtype(prev_dtype_);
  } else {
    at::autocast::set_cpu_enabled(prev_enabled_);
    at::autocast::set_autocast_cpu_dtype(prev_dtype_);
  }
}

LossScaler::LossScaler(double init_scale, int64_t growth_interval)
    : scale_(init_scale), growth_interval_(growth_interval) {}

bool LossScaler::UnscaleAndUpdate(const std::vector<torch::Tensor>& params) {
  torch::NoGradGuard g;
  bool finite = true;
  for (const auto& p : params) {
    if (!p.grad().defined()) continue;
    torch::Tensor grad = p.grad();
    grad.mul_(1.0 / scale_);
    if (finite && !torch::isfinite(grad).all().item<bool>()) finite = false;
  }
  if (!finite) {
    scale_ *= 0.5;
    good_steps_ = 0;
    ++skipped_;
    return false;
  }
  if (++good_steps_ >= growth_interval_) {
    scale_ *= 2.0;
    good_steps_ = 0;
  }
  return true;
}

}  // namespace trainbench::training

#include "training/fused_adam.h"

#include <ATen/Parallel.h>

#include <algorithm>
#include <cmath>

#include "training/adam_update.h"
#include "training/fused_adam_kernel.h"

namespace trainbench::training {

namespace {

struct Segment {
  float* p;
  const float* g;
  float* m;
  float* v;
  int64_t begin;  // offset of the segment's first element in the flat range
  int64_t size;
};

bool Fusable(const torch::Tensor& p, const torch::Tensor& g) {
  return p.is_cpu() && p.scalar_type() == torch::kFloat32 && p.is_contiguous() && g.defined() &&
         !g.is_sparse() && g.scalar_type() == torch::kFloat32 && g.is_contiguous() &&
         g.sizes() == p.sizes();
}

}  // namespace

FusedAdam::FusedAdam(std::vector<torch::Tensor> params, FusedAdamOptions options)
    : params_(std::move(params)), options_(options) {
  for (const auto& p : params_) {
    m_.push_back(torch::zeros_like(p, torch::MemoryFormat::Contiguous));
    v_.push_back(torch::zeros_like(p, torch::MemoryFormat::Contiguous));
  }
}

void FusedAdam::ZeroGrad() {
  for (auto& p : params_) {
    if (p.grad().defined()) {
      p.mutable_grad().detach_();
      p.mutable_grad().zero_();
    }
  }
}

void FusedAdam::Step() {
  torch::NoGradGuard no_grad;
  ++step_;
  const double b1 = options_.beta1, b2 = options_.beta2;
  const AdamStepScalars scalars = AdamBiasCorrection(options_.lr, b1, b2, step_);
  std::vector<Segment> segs;
  int64_t total = 0;
  for (size_t k = 0; k < params_.size(); ++k) {
    torch::Tensor& p = params_[k];
    const torch::Tensor& g0 = p.grad();
    if (!g0.defined()) continue;
    if (Fusable(p, g0) && m_[k].is_contiguous()) {
      segs.push_back({p.data_ptr<float>(), g0.data_ptr<float>(), m_[k].data_ptr<float>(),
                      v_[k].data_ptr<float>(), total, p.numel()});
      total += p.numel();
      continue;
    }
    // The same update with tensor operations.
    torch::Tensor g = g0.is_sparse() ? g0.to_dense() : g0;
    if (options_.weight_decay != 0) g = g.add(p, options_.weight_decay);
    AdamDenseUpdate(p, g, m_[k], v_[k], b1, b2, options_.eps, scalars.bc2_sqrt, scalars.step_size);
  }
  if (segs.empty()) return;
  const AdamCoefficients c{static_cast<float>(b1),
                           static_cast<float>(1.0 - b1),
                           static_cast<float>(b2),
                           static_cast<float>(1.0 - b2),
                           static_cast<float>(1.0 / scalars.bc2_sqrt),
                           static_cast<float>(options_.eps),
                           static_cast<float>(-scalars.step_size),
                           static_cast<float>(options_.weight_decay)};
  at::parallel_for(0, total, 16384, [&](int64_t lo, int64_t hi) {
    // The segment holding `lo`, then on through the segments until `hi`.
    auto it = std::upper_bound(segs.begin(), segs.end(), lo,
                               [](int64_t x, const Segment& s) { return x < s.begin; });
    for (--it; it != segs.end() && it->begin < hi; ++it) {
      const int64_t a = std::max(lo, it->begin) - it->begin,
                    b = std::min(hi, it->begin + it->size) - it->begin;
      if (b > a) AdamKernel(it->p + a, it->g + a, it->m + a, it->v + a, b - a, c);
    }
  });
}

}  // namespace trainbench::training

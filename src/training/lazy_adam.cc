#include "training/lazy_adam.h"

#include "training/adam_update.h"

namespace trainbench::training {

LazyAdam::LazyAdam(std::vector<torch::Tensor> params, LazyAdamOptions options)
    : params_(std::move(params)), options_(options) {
  for (const auto& p : params_) {
    m_.push_back(torch::zeros_like(p, torch::MemoryFormat::Preserve));
    v_.push_back(torch::zeros_like(p, torch::MemoryFormat::Preserve));
  }
}

void LazyAdam::ZeroGrad() {
  for (auto& p : params_) {
    if (p.grad().defined()) p.mutable_grad() = torch::Tensor();
  }
}

void LazyAdam::Step() {
  torch::NoGradGuard no_grad;
  ++step_;
  const double b1 = options_.beta1, b2 = options_.beta2;
  const AdamStepScalars scalars = AdamBiasCorrection(options_.lr, b1, b2, step_);
  for (size_t k = 0; k < params_.size(); ++k) {
    torch::Tensor& p = params_[k];
    const torch::Tensor& g = p.grad();
    if (!g.defined()) continue;
    if (!g.is_sparse()) {
      AdamDenseUpdate(p, g, m_[k], v_[k], b1, b2, options_.eps, scalars.bc2_sqrt,
                      scalars.step_size);
      continue;
    }
    // Sparse rows: coalesce (sums repeated rows), then update just those rows.
    torch::Tensor sg = g.coalesce();
    torch::Tensor rows = sg.indices()[0];
    torch::Tensor grad_rows = sg.values();
    torch::Tensor m = m_[k].index_select(0, rows);
    AdamFirstMoment(m, grad_rows, b1);
    torch::Tensor v = v_[k].index_select(0, rows);
    AdamSecondMoment(v, grad_rows, b2);
    m_[k].index_copy_(0, rows, m);
    v_[k].index_copy_(0, rows, v);
    torch::Tensor denom = AdamDenominator(v, scalars.bc2_sqrt, options_.eps);
    p.index_add_(0, rows, m.div(denom).mul_(-scalars.step_size));
  }
}

}  // namespace trainbench::training

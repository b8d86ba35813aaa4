#include "training/lazy_adam.h"

#include <cmath>

namespace trainbench::training {

void AdamDenseUpdate(torch::Tensor& p, const torch::Tensor& g, torch::Tensor& m, torch::Tensor& v, double beta1,
                     double beta2, double eps, double bc2_sqrt, double step_size) {
  m.mul_(beta1).add_(g, 1.0 - beta1);
  v.mul_(beta2).addcmul_(g, g, 1.0 - beta2);
  torch::Tensor denom = (v.sqrt() / bc2_sqrt).add_(eps);
  p.addcdiv_(m, denom, -step_size);
}

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
  const double bc1 = 1.0 - std::pow(b1, static_cast<double>(step_));
  const double bc2_sqrt = std::sqrt(1.0 - std::pow(b2, static_cast<double>(step_)));
  const double step_size = options_.lr / bc1;
  for (size_t k = 0; k < params_.size(); ++k) {
    torch::Tensor& p = params_[k];
    const torch::Tensor& g = p.grad();
    if (!g.defined()) continue;
    if (!g.is_sparse()) {
      AdamDenseUpdate(p, g, m_[k], v_[k], b1, b2, options_.eps, bc2_sqrt, step_size);
      continue;
    }
    // Sparse rows: coalesce (sums repeated rows), then update just those rows.
    torch::Tensor sg = g.coalesce();
    torch::Tensor rows = sg.indices()[0];
    torch::Tensor grad_rows = sg.values();
    torch::Tensor m = m_[k].index_select(0, rows).mul_(b1).add_(grad_rows, 1.0 - b1);
    torch::Tensor v = v_[k].index_select(0, rows).mul_(b2).addcmul_(grad_rows, grad_rows, 1.0 - b2);
    m_[k].index_copy_(0, rows, m);
    v_[k].index_copy_(0, rows, v);
    torch::Tensor denom = (v.sqrt() / bc2_sqrt).add_(options_.eps);
    p.index_add_(0, rows, m.div(denom).mul_(-step_size));
  }
}

}  // namespace trainbench::training

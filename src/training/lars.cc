#include "training/lars.h"

namespace trainbench::training {

Lars::Lars(std::vector<torch::Tensor> params, LarsOptions options)
    : params_(std::move(params)), options_(options) {
  for (auto& p : params_) momentum_.push_back(torch::zeros_like(p));
}

void Lars::ZeroGrad() {
  for (auto& p : params_) {
    if (p.grad().defined()) p.mutable_grad().zero_();
  }
}

void Lars::Step() {
  torch::NoGradGuard no_grad;
  for (size_t i = 0; i < params_.size(); ++i) {
    auto& p = params_[i];
    if (!p.grad().defined()) continue;
    torch::Tensor g = p.grad();
    double scale = options_.lr;
    if (p.dim() > 1) {
      g = g.add(p, options_.weight_decay);
      double wn = p.norm().item<double>();
      double gn = p.grad().norm().item<double>();
      double denom = gn + options_.weight_decay * wn + options_.epsilon;
      if (wn > 0 && denom > 0) scale *= options_.eta * wn / denom;
    }
    momentum_[i].mul_(options_.momentum).add_(g, scale);
    p.sub_(momentum_[i]);
  }
}

}  // namespace trainbench::training

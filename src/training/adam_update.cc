#include "training/adam_update.h"

#include <cmath>

namespace trainbench::training {

AdamStepScalars AdamBiasCorrection(double lr, double beta1, double beta2, int64_t step) {
  const double bc1 = 1.0 - std::pow(beta1, static_cast<double>(step));
  const double bc2_sqrt = std::sqrt(1.0 - std::pow(beta2, static_cast<double>(step)));
  const double step_size = lr / bc1;
  return {bc2_sqrt, step_size};
}

void AdamFirstMoment(torch::Tensor& m, const torch::Tensor& g, double beta1) {
  m.mul_(beta1).add_(g, 1.0 - beta1);
}

void AdamSecondMoment(torch::Tensor& v, const torch::Tensor& g, double beta2) {
  v.mul_(beta2).addcmul_(g, g, 1.0 - beta2);
}

torch::Tensor AdamDenominator(const torch::Tensor& v, double bc2_sqrt, double eps) {
  return (v.sqrt() / bc2_sqrt).add_(eps);
}

void AdamDenseUpdate(torch::Tensor& p, const torch::Tensor& g, torch::Tensor& m, torch::Tensor& v,
                     double beta1, double beta2, double eps, double bc2_sqrt, double step_size) {
  AdamFirstMoment(m, g, beta1);
  AdamSecondMoment(v, g, beta2);
  torch::Tensor denom = AdamDenominator(v, bc2_sqrt, eps);
  p.addcdiv_(m, denom, -step_size);
}

}  // namespace trainbench::training

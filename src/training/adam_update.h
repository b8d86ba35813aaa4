// Adam's update in tensor operations (PyTorch's formula, no amsgrad), written once for the
// optimizers built on it: LazyAdam (dense gradients, and the rows a sparse gradient holds) and
// FusedAdam (the tensors its fused element loop, fused_adam_kernel.h, does not take). At step t:
//   m = beta1 * m + (1 - beta1) * g
//   v = beta2 * v + (1 - beta2) * g^2
//   p -= lr / (1 - beta1^t) * m / (sqrt(v) / sqrt(1 - beta2^t) + eps)
// Device-agnostic. Each operation and its order is part of the optimizers' results to the last
// bit (the benchmark logs are compared byte for byte across changes).
#pragma once

#include <torch/torch.h>

#include <cstdint>

namespace trainbench::training {

// The step's bias corrections, in double.
struct AdamStepScalars {
  double bc2_sqrt;   // sqrt(1 - beta2^t)
  double step_size;  // lr / (1 - beta1^t)
};
AdamStepScalars AdamBiasCorrection(double lr, double beta1, double beta2, int64_t step);

// m = beta1 * m + (1 - beta1) * g, in place.
void AdamFirstMoment(torch::Tensor& m, const torch::Tensor& g, double beta1);
// v = beta2 * v + (1 - beta2) * g^2, in place.
void AdamSecondMoment(torch::Tensor& v, const torch::Tensor& g, double beta2);
// sqrt(v) / bc2_sqrt + eps, a new tensor.
torch::Tensor AdamDenominator(const torch::Tensor& v, double bc2_sqrt, double eps);

// One dense Adam update of `p` from gradient `g` with moments `m`, `v` (the formula above;
// `bc2_sqrt` and `step_size` from AdamBiasCorrection).
void AdamDenseUpdate(torch::Tensor& p, const torch::Tensor& g, torch::Tensor& m, torch::Tensor& v,
                     double beta1, double beta2, double eps, double bc2_sqrt, double step_size);

}  // namespace trainbench::training

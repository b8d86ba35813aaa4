// FusedAdam: torch::optim::Adam's update (PyTorch's formula, no amsgrad) in one pass over memory
// per step, as Apex's FusedAdam does on GPUs: for every element it reads the weight, gradient and
// both moments once and writes the weight and moments once, instead of torch::optim::Adam's five
// element-wise operations (each a pass over the parameter's memory, some with a temporary).
// All the parameters are walked as one flat index range, so a step is one parallel region
// (at::parallel_for) however many tensors the model has. The kernel is compiled for AVX-512, AVX2
// and the base ISA, picked at load time.
//   g' = g + weight_decay * p
//   m  = beta1 * m + (1 - beta1) * g'
//   v  = beta2 * v + (1 - beta2) * g'^2
//   p -= lr / (1 - beta1^t) * m / (sqrt(v) / sqrt(1 - beta2^t) + eps)
// CPU float32 contiguous parameters take the fused kernel; anything else (CUDA, other dtypes,
// sparse gradients) the same formula with tensor operations (adam_update.h, shared with
// LazyAdam). Parameters without a gradient are left alone. Threading: call from the training
// thread.
#pragma once

#include <torch/torch.h>

#include <vector>

namespace trainbench::training {

struct FusedAdamOptions {
  double lr = 1e-3;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  double weight_decay = 0;
};

class FusedAdam {
 public:
  FusedAdam(std::vector<torch::Tensor> params, FusedAdamOptions options);

  void ZeroGrad();  // sets the gradients to zero (keeps their storage)
  void Step();

  int64_t steps() const { return step_; }
  void set_lr(double lr) { options_.lr = lr; }
  const torch::Tensor& exp_avg(size_t k) const { return m_[k]; }
  const torch::Tensor& exp_avg_sq(size_t k) const { return v_[k]; }

 private:
  std::vector<torch::Tensor> params_, m_, v_;
  FusedAdamOptions options_;
  int64_t step_ = 0;
};

}  // namespace trainbench::training

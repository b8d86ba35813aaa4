// LARS (You, Gitman, Ginsburg 2017) as MLPerf's ResNet submissions use it: SGD with momentum
// where each parameter tensor's step is scaled by the trust ratio
//   eta * ||w|| / (||g|| + weight_decay * ||w|| + epsilon)
// Parameters of BatchNorm and biases (1-D tensors) are excluded from the trust ratio and from
// weight decay, as in the MLPerf reference ("model_bn_span" / LARS skip list).
#pragma once

#include <torch/torch.h>

#include <vector>

namespace trainbench::training {

struct LarsOptions {
  double lr = 0.1;
  double momentum = 0.9;
  double weight_decay = 5e-5;
  double eta = 0.001;
  double epsilon = 0.0;
};

class Lars {
 public:
  Lars(std::vector<torch::Tensor> params, LarsOptions options);
  void set_lr(double lr) { options_.lr = lr; }
  void ZeroGrad();
  void Step();

 private:
  std::vector<torch::Tensor> params_;
  std::vector<torch::Tensor> momentum_;
  LarsOptions options_;
};

}  // namespace trainbench::training

// LazyAdam (TensorFlow's LazyAdamOptimizer, legal for MLPerf NCF and Transformer): Adam whose
// moments and weights are updated only where the gradient has entries. A dense gradient gets
// the ordinary Adam update (PyTorch's convention: step = lr / (1 - b1^t) * m /
// (sqrt(v) / sqrt(1 - b2^t) + eps)); a sparse gradient (an nn::Embedding with sparse(true))
// updates only the rows it holds, with the same formula and the global step t, so the rows a
// batch did not touch keep their weights and moments. For a large embedding table this costs
// O(rows in the batch) instead of O(table) per step. The update's operations are adam_update.h's,
// shared with FusedAdam.
// Threading: call from the training thread. Device-agnostic.
#pragma once

#include <torch/torch.h>

#include <vector>

namespace trainbench::training {

struct LazyAdamOptions {
  double lr = 1e-3;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
};

class LazyAdam {
 public:
  LazyAdam(std::vector<torch::Tensor> params, LazyAdamOptions options);

  // Clears the gradients (sets them undefined, so sparse gradients do not accumulate).
  void ZeroGrad();
  // One update of every parameter that has a gradient.
  void Step();

  int64_t steps() const { return step_; }
  void set_lr(double lr) { options_.lr = lr; }
  // The moments of parameter k (for tests).
  const torch::Tensor& exp_avg(size_t k) const { return m_[k]; }
  const torch::Tensor& exp_avg_sq(size_t k) const { return v_[k]; }

 private:
  std::vector<torch::Tensor> params_, m_, v_;
  LazyAdamOptions options_;
  int64_t step_ = 0;
};

}  // namespace trainbench::training

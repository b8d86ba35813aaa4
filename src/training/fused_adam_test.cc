#include "training/fused_adam.h"

#include <ATen/Parallel.h>
#include <gtest/gtest.h>

namespace trainbench::training {
namespace {

// FusedAdam gives torch::optim::Adam's weights step by step: several tensors walked as one
// flat range (sizes around the parallel grain, so ranges split inside and across tensors), with
// L2 weight decay, a double tensor (the tensor-operation path) and a parameter without a gradient.
TEST(FusedAdamTest, MatchesTorchAdamOnEveryPath) {
  at::set_num_threads(2);
  torch::manual_seed(5);
  const std::vector<std::vector<int64_t>> shapes = {{7, 5}, {40000}, {3}, {129, 257}};
  std::vector<torch::Tensor> a, b;
  for (const auto& s : shapes) {
    a.push_back(torch::randn(s, torch::requires_grad()));
    b.push_back(a.back().detach().clone().requires_grad_(true));
  }
  a.push_back(torch::randn({4, 4}, torch::dtype(torch::kFloat64).requires_grad(true)));
  b.push_back(a.back().detach().clone().requires_grad_(true));
  a.push_back(torch::randn({6}, torch::requires_grad()));  // never used: no gradient
  b.push_back(a.back().detach().clone().requires_grad_(true));
  torch::optim::Adam ref(
      a, torch::optim::AdamOptions(0.01).betas({0.8, 0.95}).eps(1e-6).weight_decay(0.01));
  FusedAdam fused(b, FusedAdamOptions{0.01, 0.8, 0.95, 1e-6, 0.01});
  auto loss = [](const std::vector<torch::Tensor>& p, const std::vector<torch::Tensor>& t) {
    torch::Tensor l = torch::zeros({}, torch::kFloat64);
    for (size_t k = 0; k + 1 < p.size(); ++k)
      l = l + (p[k] - t[k]).pow(2).sum().to(torch::kFloat64);
    return l;
  };
  for (int s = 0; s < 6; ++s) {
    std::vector<torch::Tensor> target;
    for (size_t k = 0; k + 1 < a.size(); ++k) target.push_back(torch::randn_like(a[k]));
    ref.zero_grad();
    loss(a, target).backward();
    ref.step();
    fused.ZeroGrad();
    loss(b, target).backward();
    fused.Step();
    for (size_t k = 0; k < a.size(); ++k) {
      ASSERT_TRUE(torch::allclose(a[k], b[k], 1e-5, 1e-6))
          << "step " << s << ", tensor " << k << ": " << (a[k] - b[k]).abs().max().item<double>();
    }
  }
  EXPECT_EQ(fused.steps(), 6);
  EXPECT_FALSE(b.back().grad().defined());
  EXPECT_GT(fused.exp_avg_sq(1).min().item<double>(),
            0.0);  // every element of the big tensor updated
}

}  // namespace
}  // namespace trainbench::training

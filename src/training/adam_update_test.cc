// The shared Adam operations give, bit for bit, the tensor operations LazyAdam and FusedAdam's
// fallback wrote inline before they shared them: the benchmark logs depend on every rounding.
#include "training/adam_update.h"

#include <gtest/gtest.h>

#include <cmath>

#include "training/lazy_adam.h"

namespace trainbench::training {
namespace {

TEST(AdamUpdate, BiasCorrectionIsTheDoubleFormula) {
  for (int64_t t : {1, 2, 7, 1000}) {
    const AdamStepScalars s = AdamBiasCorrection(0.01, 0.9, 0.999, t);
    const double bc1 = 1.0 - std::pow(0.9, static_cast<double>(t));
    EXPECT_EQ(s.bc2_sqrt, std::sqrt(1.0 - std::pow(0.999, static_cast<double>(t)))) << t;
    EXPECT_EQ(s.step_size, 0.01 / bc1) << t;
  }
}

// 1037 elements: the vectorised loops and their scalar tails.
TEST(AdamUpdate, DenseUpdateIsTheInlineOperations) {
  torch::manual_seed(11);
  torch::Tensor p = torch::randn({1037}), g = torch::randn({1037});
  torch::Tensor m = torch::randn({1037}), v = torch::rand({1037});
  torch::Tensor p2 = p.clone(), m2 = m.clone(), v2 = v.clone();
  const AdamStepScalars s = AdamBiasCorrection(1e-3, 0.9, 0.98, 3);
  AdamDenseUpdate(p, g, m, v, 0.9, 0.98, 1e-8, s.bc2_sqrt, s.step_size);
  m2.mul_(0.9).add_(g, 1.0 - 0.9);
  v2.mul_(0.98).addcmul_(g, g, 1.0 - 0.98);
  torch::Tensor denom = (v2.sqrt() / s.bc2_sqrt).add_(1e-8);
  p2.addcdiv_(m2, denom, -s.step_size);
  EXPECT_TRUE(torch::equal(m, m2));
  EXPECT_TRUE(torch::equal(v, v2));
  EXPECT_TRUE(torch::equal(p, p2));
}

// LazyAdam's sparse rows: the update it computed with inline operations, on a copy.
TEST(AdamUpdate, LazyAdamSparseRowsAreTheInlineOperations) {
  torch::manual_seed(12);
  torch::nn::Embedding e(torch::nn::EmbeddingOptions(50, 19).sparse(true));
  torch::Tensor p2 = e->weight.detach().clone();
  torch::Tensor m2 = torch::zeros_like(p2), v2 = torch::zeros_like(p2);
  LazyAdam lazy({e->weight}, LazyAdamOptions{0.05, 0.9, 0.999, 1e-8});
  for (int64_t step = 1; step <= 3; ++step) {
    lazy.ZeroGrad();
    e(torch::tensor({3, 17, 3, 40}, torch::kInt64)).pow(2).sum().backward();
    torch::NoGradGuard no_grad;
    torch::Tensor sg = e->weight.grad().coalesce();
    lazy.Step();
    const double bc1 = 1.0 - std::pow(0.9, static_cast<double>(step));
    const double bc2_sqrt = std::sqrt(1.0 - std::pow(0.999, static_cast<double>(step)));
    const double step_size = 0.05 / bc1;
    torch::Tensor rows = sg.indices()[0];
    torch::Tensor grad_rows = sg.values();
    torch::Tensor m = m2.index_select(0, rows).mul_(0.9).add_(grad_rows, 1.0 - 0.9);
    torch::Tensor v =
        v2.index_select(0, rows).mul_(0.999).addcmul_(grad_rows, grad_rows, 1.0 - 0.999);
    m2.index_copy_(0, rows, m);
    v2.index_copy_(0, rows, v);
    torch::Tensor denom = (v.sqrt() / bc2_sqrt).add_(1e-8);
    p2.index_add_(0, rows, m.div(denom).mul_(-step_size));
    ASSERT_TRUE(torch::equal(e->weight.detach(), p2)) << "step " << step;
    ASSERT_TRUE(torch::equal(lazy.exp_avg(0), m2)) << "step " << step;
    ASSERT_TRUE(torch::equal(lazy.exp_avg_sq(0), v2)) << "step " << step;
  }
}

}  // namespace
}  // namespace trainbench::training

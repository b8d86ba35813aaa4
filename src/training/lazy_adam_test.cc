#include "training/lazy_adam.h"

#include <gtest/gtest.h>

namespace trainbench::training {
namespace {

// With dense gradients LazyAdam is Adam: the same weights as torch::optim::Adam, step by step.
TEST(LazyAdamTest, DenseGradientsMatchTorchAdam) {
  torch::manual_seed(3);
  torch::Tensor a = torch::randn({6, 4}, torch::requires_grad());
  torch::Tensor b = a.detach().clone().requires_grad_(true);
  torch::optim::Adam ref({a}, torch::optim::AdamOptions(0.01).betas({0.9, 0.99}).eps(1e-8));
  LazyAdam lazy({b}, LazyAdamOptions{0.01, 0.9, 0.99, 1e-8});
  for (int s = 0; s < 5; ++s) {
    torch::Tensor target = torch::randn({6, 4});
    ref.zero_grad();
    (a - target).pow(2).sum().backward();
    ref.step();
    lazy.ZeroGrad();
    (b - target).pow(2).sum().backward();
    lazy.Step();
    ASSERT_TRUE(torch::allclose(a, b, 1e-6, 1e-7))
        << "step " << s << ": " << (a - b).abs().max().item<double>();
  }
}

// A sparse embedding gradient updates only the rows in the batch; those rows get exactly the
// update a dense Adam gives when every row is in every batch.
TEST(LazyAdamTest, SparseGradientsTouchOnlyTheBatchRows) {
  torch::manual_seed(4);
  torch::nn::Embedding sparse(torch::nn::EmbeddingOptions(10, 3).sparse(true));
  torch::nn::Embedding dense(torch::nn::EmbeddingOptions(10, 3));
  {
    torch::NoGradGuard g;
    dense->weight.copy_(sparse->weight);
  }
  const torch::Tensor before = sparse->weight.detach().clone();
  LazyAdam lazy({sparse->weight}, LazyAdamOptions{0.05, 0.9, 0.999, 1e-8});
  torch::optim::Adam ref({dense->weight}, torch::optim::AdamOptions(0.05));
  torch::Tensor rows = torch::tensor({2, 7, 2}, torch::kInt64);  // row 2 twice: gradients add
  for (int s = 0; s < 3; ++s) {
    lazy.ZeroGrad();
    sparse(rows).pow(2).sum().backward();
    ASSERT_TRUE(sparse->weight.grad().is_sparse());
    lazy.Step();
    ref.zero_grad();
    dense(rows).pow(2).sum().backward();
    ref.step();
  }
  // Touched rows: as dense Adam (which sees zero gradients elsewhere and also leaves other
  // rows unchanged, since its moments there stay 0).
  for (int64_t r : {2, 7}) {
    EXPECT_TRUE(torch::allclose(sparse->weight[r], dense->weight[r], 1e-6, 1e-7)) << "row " << r;
  }
  for (int64_t r : {0, 1, 3, 4, 5, 6, 8, 9}) {
    EXPECT_TRUE(torch::equal(sparse->weight[r], before[r])) << "row " << r << " moved";
    EXPECT_EQ(lazy.exp_avg(0)[r].abs().sum().item<double>(), 0.0);
    EXPECT_EQ(lazy.exp_avg_sq(0)[r].abs().sum().item<double>(), 0.0);
  }
  EXPECT_FALSE(torch::equal(sparse->weight[2], before[2]));
  EXPECT_EQ(lazy.steps(), 3);
}

// Lazy differs from dense Adam once a row skips a batch: its moments do not decay meanwhile.
TEST(LazyAdamTest, SkippedRowsKeepTheirMoments) {
  torch::nn::Embedding e(torch::nn::EmbeddingOptions(4, 2).sparse(true));
  LazyAdam lazy({e->weight}, LazyAdamOptions{0.1, 0.9, 0.999, 1e-8});
  lazy.ZeroGrad();
  e(torch::tensor({1}, torch::kInt64)).sum().backward();
  lazy.Step();
  const torch::Tensor m1 = lazy.exp_avg(0)[1].clone();
  lazy.ZeroGrad();
  e(torch::tensor({3}, torch::kInt64)).sum().backward();
  lazy.Step();
  EXPECT_TRUE(torch::equal(lazy.exp_avg(0)[1], m1));  // dense Adam would have decayed it by 0.9
}

}  // namespace
}  // namespace trainbench::training

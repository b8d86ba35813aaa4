#include "training/lars.h"

#include <gtest/gtest.h>

#include <cmath>

#include "training/lr_schedule.h"

namespace trainbench::training {
namespace {

TEST(Lars, StepMatchesTheHandComputedUpdate) {
  // w = [3, 4] (||w|| = 5) as a 2-D weight; g = [0.6, 0.8] (||g|| = 1).
  torch::Tensor w = torch::tensor({{3.0f, 4.0f}}).set_requires_grad(true);
  // A 1-D parameter (bias / BatchNorm): no trust ratio, no weight decay.
  torch::Tensor b = torch::tensor({1.0f}).set_requires_grad(true);
  LarsOptions o;
  o.lr = 0.5;
  o.momentum = 0.9;
  o.weight_decay = 0.1;
  o.eta = 0.01;
  Lars opt({w, b}, o);
  auto set_grads = [&] {
    w.mutable_grad() = torch::tensor({{0.6f, 0.8f}});
    b.mutable_grad() = torch::tensor({2.0f});
  };
  set_grads();
  opt.Step();
  // trust = eta * ||w|| / (||g|| + wd * ||w||) = 0.01 * 5 / (1 + 0.5) = 1/30
  // update = lr * trust * (g + wd * w) = 0.5/30 * [0.9, 1.2]
  const double t = 0.5 / 30.0;
  EXPECT_NEAR(w[0][0].item<double>(), 3.0 - t * 0.9, 1e-6);
  EXPECT_NEAR(w[0][1].item<double>(), 4.0 - t * 1.2, 1e-6);
  EXPECT_NEAR(b[0].item<double>(), 1.0 - 0.5 * 2.0, 1e-6);
  // Second step: momentum carries 0.9 of the first update.
  double w0 = w[0][0].item<double>(), w1 = w[0][1].item<double>();
  set_grads();
  opt.Step();
  double wn = std::sqrt(w0 * w0 + w1 * w1);
  double t2 = 0.5 * 0.01 * wn / (1.0 + 0.1 * wn);
  EXPECT_NEAR(w[0][0].item<double>(), w0 - (0.9 * t * 0.9 + t2 * (0.6 + 0.1 * w0)), 1e-6);
  EXPECT_NEAR(b[0].item<double>(), 0.0 - (0.9 * 1.0 + 1.0), 1e-6);
}

TEST(PolyWarmupSchedule, WarmupThenPolynomialDecayThenEnd) {
  PolyWarmupSchedule s;
  s.base_lr = 1.0;
  s.end_lr = 0.1;
  s.power = 2.0;
  s.warmup_steps = 4;
  s.decay_steps = 10;
  EXPECT_DOUBLE_EQ(s(0), 0.25);
  EXPECT_DOUBLE_EQ(s(3), 1.0);
  EXPECT_DOUBLE_EQ(s(4), 1.0);                    // decay starts at base
  EXPECT_DOUBLE_EQ(s(9), 0.1 + 0.9 * 0.5 * 0.5);  // halfway: (1 - 5/10)^2
  EXPECT_DOUBLE_EQ(s(14), 0.1);                   // end of decay
  EXPECT_DOUBLE_EQ(s(100), 0.1);                  // and after
}

}  // namespace
}  // namespace trainbench::training

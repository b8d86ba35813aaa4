// Precision names and refusals, the autocast scope and the fp16 loss scaler.
#include "training/precision.h"

#include <ATen/autocast_mode.h>
#include <gtest/gtest.h>

#include <limits>

#include "core/error.h"

namespace trainbench::training {
namespace {

TEST(Precision, NamesAndRefusals) {
  const torch::Device cpu(torch::kCPU);
  EXPECT_EQ(ParsePrecision("fp32", cpu), torch::kFloat32);
  EXPECT_EQ(ParsePrecision("bf16", cpu), torch::kBFloat16);
  EXPECT_STREQ(PrecisionName(torch::kBFloat16), "bf16");
  EXPECT_STREQ(PrecisionName(torch::kFloat16), "fp16");
  try {
    ParsePrecision("fp16", cpu);
    FAIL() << "fp16 accepted on the CPU";
  } catch (const core::Error& e) {
    EXPECT_NE(std::string(e.what()).find("\"precision\": fp16 needs a CUDA device"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(ParsePrecision("fp8", cpu), core::Error);
  try {
    ParsePrecision("fp16", cpu, "search_precision");
    FAIL() << "fp16 accepted on the CPU";
  } catch (const core::Error& e) {
    EXPECT_NE(std::string(e.what()).find("\"search_precision\": fp16 needs a CUDA device"),
              std::string::npos)
        << e.what();
  }
}

// Inside the scope eligible CPU operations compute in bf16 from fp32 inputs; outside, and in an
// fp32 scope, they stay fp32; nesting restores the state of the enclosing scope.
TEST(AutocastScope, Bf16InsideFp32OutsideAndRestored) {
  const torch::Device cpu(torch::kCPU);
  torch::Tensor a = torch::randn({8, 8}), b = torch::randn({8, 8});
  ASSERT_FALSE(at::autocast::is_cpu_enabled());
  {
    AutocastScope outer(cpu, torch::kBFloat16);
    EXPECT_TRUE(at::autocast::is_cpu_enabled());
    EXPECT_EQ(torch::mm(a, b).scalar_type(), torch::kBFloat16);
    {
      AutocastScope inner(cpu, torch::kFloat32);  // fp32: no change
      EXPECT_EQ(torch::mm(a, b).scalar_type(), torch::kBFloat16);
    }
    EXPECT_TRUE(at::autocast::is_cpu_enabled());
    torch::Tensor loss =
        torch::cross_entropy_loss(torch::mm(a, b), torch::tensor({0, 1, 2, 3, 4, 5, 6, 7}));
    EXPECT_EQ(loss.scalar_type(), torch::kFloat32);  // the loss computes in fp32
  }
  EXPECT_FALSE(at::autocast::is_cpu_enabled());
  EXPECT_EQ(torch::mm(a, b).scalar_type(), torch::kFloat32);
  {
    AutocastScope off(cpu, torch::kFloat32);
    EXPECT_FALSE(at::autocast::is_cpu_enabled());
  }
}

// Gradients are divided by the scale; an inf gradient skips the step and halves the scale;
// growth_interval good steps double it.
TEST(LossScaler, UnscalesSkipsAndGrows) {
  torch::Tensor p = torch::ones({3}, torch::requires_grad());
  LossScaler s(8.0, 2);
  s.Scale((p * torch::tensor({1.0, 2.0, 3.0})).sum()).backward();
  EXPECT_TRUE(s.UnscaleAndUpdate({p}));
  EXPECT_TRUE(torch::allclose(p.grad(), torch::tensor({1.0f, 2.0f, 3.0f})));
  EXPECT_EQ(s.scale(), 8.0);
  p.mutable_grad().fill_(std::numeric_limits<float>::infinity());
  EXPECT_FALSE(s.UnscaleAndUpdate({p}));
  EXPECT_EQ(s.scale(), 4.0);
  EXPECT_EQ(s.skipped(), 1);
  p.mutable_grad().fill_(1.0f);
  EXPECT_TRUE(s.UnscaleAndUpdate({p}));
  EXPECT_TRUE(s.UnscaleAndUpdate({p}));
  EXPECT_EQ(s.scale(), 8.0);
}

}  // namespace
}  // namespace trainbench::training

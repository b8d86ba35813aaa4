// ReportStep: the loss is read every `every` steps only, a non-finite read loss stops the run
// with "training diverged", and the control's answer is passed back.
#include "training/torch_util.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include <ATen/autocast_mode.h>
#include <dlfcn.h>

#include "core/error.h"

namespace trainbench::training {
namespace {

class Recorder : public train::TrainControl {
 public:
  bool OnStep(int64_t samples, double loss) override {
    samples_.push_back(samples);
    losses_.push_back(loss);
    return answer_;
  }
  std::vector<int64_t> samples_;
  std::vector<double> losses_;
  bool answer_ = true;
};

TEST(ReportStep, ReadsTheLossEveryNStepsOnly) {
  Recorder r;
  const torch::Tensor loss = torch::tensor(2.5);
  for (int64_t step = 1; step <= 4; ++step) EXPECT_TRUE(ReportStep(r, loss, step, 2, 8));
  ASSERT_EQ(r.losses_.size(), 4u);
  EXPECT_TRUE(std::isnan(r.losses_[0]));
  EXPECT_DOUBLE_EQ(r.losses_[1], 2.5);
  EXPECT_TRUE(std::isnan(r.losses_[2]));
  EXPECT_DOUBLE_EQ(r.losses_[3], 2.5);
  EXPECT_EQ(r.samples_, (std::vector<int64_t>{8, 8, 8, 8}));
}

TEST(ReportStep, PassesTheControlsAnswerBack) {
  Recorder r;
  r.answer_ = false;
  EXPECT_FALSE(ReportStep(r, torch::tensor(1.0), 3, 10, 1));
}

TEST(ReportStep, NonFiniteReadLossIsDivergence) {
  for (double bad : {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
    Recorder r;
    try {
      ReportStep(r, torch::tensor(bad), 20, 20, 1);
      FAIL() << "no error for loss " << bad;
    } catch (const core::Error& e) {
      EXPECT_NE(std::string(e.what()).find("training diverged"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("at step 20"), std::string::npos) << e.what();
    }
    EXPECT_TRUE(r.losses_.empty());
    // An unread step does not look at the value.
    EXPECT_TRUE(ReportStep(r, torch::tensor(bad), 21, 20, 1));
  }
}

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
    EXPECT_NE(std::string(e.what()).find("\"precision\": fp16 needs a CUDA device"), std::string::npos) << e.what();
  }
  EXPECT_THROW(ParsePrecision("fp8", cpu), core::Error);
  try {
    ParsePrecision("fp16", cpu, "search_precision");
    FAIL() << "fp16 accepted on the CPU";
  } catch (const core::Error& e) {
    EXPECT_NE(std::string(e.what()).find("\"search_precision\": fp16 needs a CUDA device"), std::string::npos) << e.what();
  }
}

// The scope sets OpenBLAS's thread count for its life (0: leaves it) and restores the previous one.
TEST(BlasThreadsScope, SetsForItsLifeAndRestores) {
  using GetThreads = int (*)();
  auto get = reinterpret_cast<GetThreads>(::dlsym(RTLD_DEFAULT, "openblas_get_num_threads"));
  if (!get) GTEST_SKIP() << "no OpenBLAS loaded";
  ASSERT_TRUE(SetBlasThreads(2));
  const int last_set = BlasThreads();
  {
    BlasThreadsScope one(1);
    EXPECT_EQ(get(), 1);
    EXPECT_EQ(BlasThreads(), 1);
    {
      BlasThreadsScope nothing(0);  // 0: left as it is
      EXPECT_EQ(get(), 1);
    }
    EXPECT_EQ(get(), 1);
  }
  EXPECT_EQ(get(), 2);
  EXPECT_EQ(BlasThreads(), last_set);
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
    torch::Tensor loss = torch::cross_entropy_loss(torch::mm(a, b), torch::tensor({0, 1, 2, 3, 4, 5, 6, 7}));
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

// Channels-last weights and inputs give the NCHW convolution's output.
TEST(ToChannelsLast, SameOutputInNhwc) {
  torch::manual_seed(3);
  torch::nn::Sequential net(torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 8, 3).padding(1)), torch::nn::BatchNorm2d(8),
                            torch::nn::ReLU(), torch::nn::Conv2d(torch::nn::Conv2dOptions(8, 4, 3)));
  net->eval();
  torch::Tensor x = torch::randn({2, 3, 9, 9});
  torch::NoGradGuard g;
  const torch::Tensor want = net->forward(x);
  ToChannelsLast(*net);
  for (const auto& p : net->parameters()) {
    if (p.dim() == 4) EXPECT_TRUE(p.is_contiguous(torch::MemoryFormat::ChannelsLast));
  }
  const torch::Tensor got = net->forward(x.contiguous(torch::MemoryFormat::ChannelsLast));
  EXPECT_TRUE(torch::allclose(got, want, 1e-4, 1e-5)) << (got - want).abs().max().item<double>();
}

}  // namespace
}  // namespace trainbench::training

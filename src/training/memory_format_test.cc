#include "training/memory_format.h"

#include <gtest/gtest.h>

namespace trainbench::training {
namespace {

// Channels-last weights and inputs give the NCHW convolution's output.
TEST(ToChannelsLast, SameOutputInNhwc) {
  torch::manual_seed(3);
  torch::nn::Sequential net(torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 8, 3).padding(1)),
                            torch::nn::BatchNorm2d(8), torch::nn::ReLU(),
                            torch::nn::Conv2d(torch::nn::Conv2dOptions(8, 4, 3)));
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

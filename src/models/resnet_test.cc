#include "models/resnet.h"

#include <gtest/gtest.h>

namespace trainbench::models {
namespace {

int64_t CountParameters(torch::nn::Module& m) {
  int64_t n = 0;
  for (const auto& p : m.parameters()) n += p.numel();
  return n;
}

TEST(ResNet, ResNet50HasTorchvisionParameterCountAndNames) {
  ResNet net(ResNet50Options());
  // torchvision.models.resnet50(): 25,557,032 parameters.
  EXPECT_EQ(CountParameters(*net), 25557032);
  auto params = net->named_parameters();
  EXPECT_TRUE(params.contains("conv1.weight"));
  EXPECT_TRUE(params.contains("layer1.0.downsample.0.weight"));
  EXPECT_TRUE(params.contains("layer4.2.bn3.bias"));
  EXPECT_TRUE(params.contains("fc.weight"));
  // v1.5: the stride-2 convolution of a downsampling bottleneck is the 3x3 one.
  auto& block = *net->named_modules()["layer2.0"]->as<BottleneckImpl>();
  EXPECT_EQ(block.conv1->options.stride()->at(0), 1);
  EXPECT_EQ(block.conv2->options.stride()->at(0), 2);
  // ~4.1 GMACs per 224x224 image (the usual "4.1 GFLOPs" of ResNet-50 v1.5).
  int64_t macs = net->ForwardMacs(224, 224);
  EXPECT_GT(macs, 4'000'000'000);
  EXPECT_LT(macs, 4'200'000'000);
}

TEST(ResNet, SmallResNetShapesAndMacs) {
  ResNet net(ResNetOptions()
                 .in_channels(1)
                 .num_classes(10)
                 .bottleneck(false)
                 .imagenet_stem(false)
                 .blocks({1, 1, 1})
                 .widths({16, 32, 64}));
  auto y = net->forward(torch::randn({4, 1, 28, 28}));
  EXPECT_EQ(y.sizes(), (std::vector<int64_t>{4, 10}));
  // Hand count: stem 28*28*16*9; layer1 2 * 28*28*16*16*9; layer2 14*14*(16*32*9 + 32*32*9 +
  // 16*32 downsample); layer3 7*7*(32*64*9 + 64*64*9 + 32*64); fc 64*10.
  int64_t expected = 28 * 28 * 16 * 9 + 2 * 28 * 28 * 16 * 16 * 9 +
                     14 * 14 * (16 * 32 * 9 + 32 * 32 * 9 + 16 * 32) +
                     7 * 7 * (32 * 64 * 9 + 64 * 64 * 9 + 32 * 64) + 64 * 10;
  EXPECT_EQ(net->ForwardMacs(28, 28), expected);
}

TEST(ResNet, ZeroInitResidualZeroesTheLastBatchNormOfEachBlock) {
  ResNet net(ResNetOptions()
                 .in_channels(1)
                 .num_classes(10)
                 .bottleneck(false)
                 .imagenet_stem(false)
                 .blocks({2, 1})
                 .widths({8, 16})
                 .zero_init_residual(true));
  auto params = net->named_parameters();
  EXPECT_EQ(params["layer1.0.bn2.weight"].abs().sum().item<float>(), 0.0f);
  EXPECT_EQ(params["layer1.1.bn2.weight"].abs().sum().item<float>(), 0.0f);
  EXPECT_GT(params["layer1.0.bn1.weight"].abs().sum().item<float>(), 0.0f);
}

}  // namespace
}  // namespace trainbench::models

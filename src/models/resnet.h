// ResNet family in LibTorch, torchvision's layout and parameter names (conv1, bn1,
// layer1.0.conv1, ..., downsample.0/1, fc) so weights map one to one.
// - ResNet-50 v1.5 (ImageNet, the MLPerf `resnet` model): bottleneck blocks [3,4,6,3], stride 2
//   on the 3x3 convolution of the bottleneck (the "v1.5" change), 7x7 stem + max pool.
// - Small ResNets for 28x28 inputs (mini scale): 3x3 stem, no max pool, basic blocks.
// Device-agnostic: the module lives wherever .to(device) puts it.
#pragma once

#include <torch/torch.h>

#include <vector>

namespace trainbench::models {

struct ResNetOptions {
  TORCH_ARG(int64_t, in_channels) = 3;
  TORCH_ARG(int64_t, num_classes) = 1000;
  TORCH_ARG(bool, bottleneck) = true;
  TORCH_ARG(std::vector<int64_t>, blocks) = std::vector<int64_t>{3, 4, 6, 3};
  // Output width of each stage before the bottleneck expansion (64, 128, 256, 512 for R50).
  TORCH_ARG(std::vector<int64_t>, widths) = std::vector<int64_t>{64, 128, 256, 512};
  // true: 7x7 stride-2 convolution + 3x3 max pool (ImageNet); false: 3x3 stride-1 conv.
  TORCH_ARG(bool, imagenet_stem) = true;
  // Initialise the last BatchNorm gamma of each residual branch to zero (MLPerf resnet allows it).
  TORCH_ARG(bool, zero_init_residual) = false;
  // Stride of each stage's first block; empty: 1 for the first stage, 2 for the others. SSD's
  // ResNet-34 trunk uses {1, 2, 1} (the reference sets the stride of conv4 to 1).
  TORCH_ARG(std::vector<int64_t>, stage_strides) = std::vector<int64_t>{};
  // false: no pooling and no fc layer (a trunk for detection models: forward() is unavailable,
  // use Trunk()).
  TORCH_ARG(bool, classifier) = true;
};

ResNetOptions ResNet50Options(int64_t num_classes = 1000);

class BasicBlockImpl : public torch::nn::Module {
 public:
  static constexpr int64_t kExpansion = 1;
  BasicBlockImpl(int64_t in_planes, int64_t planes, int64_t stride);
  torch::Tensor forward(torch::Tensor x);
  torch::nn::BatchNorm2d last_bn() { return bn2; }

  torch::nn::Conv2d conv1{nullptr}, conv2{nullptr};
  torch::nn::BatchNorm2d bn1{nullptr}, bn2{nullptr};
  torch::nn::Sequential downsample{nullptr};
};
TORCH_MODULE(BasicBlock);

class BottleneckImpl : public torch::nn::Module {
 public:
  static constexpr int64_t kExpansion = 4;
  BottleneckImpl(int64_t in_planes, int64_t planes, int64_t stride);
  torch::Tensor forward(torch::Tensor x);
  torch::nn::BatchNorm2d last_bn() { return bn3; }

  torch::nn::Conv2d conv1{nullptr}, conv2{nullptr}, conv3{nullptr};
  torch::nn::BatchNorm2d bn1{nullptr}, bn2{nullptr}, bn3{nullptr};
  torch::nn::Sequential downsample{nullptr};
};
TORCH_MODULE(Bottleneck);

class ResNetImpl : public torch::nn::Module {
 public:
  explicit ResNetImpl(const ResNetOptions& options);
  // x: [N, in_channels, H, W] float; returns logits [N, num_classes].
  torch::Tensor forward(torch::Tensor x);
  // The feature map after the last stage (stem and stages, no pooling, no fc).
  torch::Tensor Trunk(torch::Tensor x);
  // The output of every stage (layer1, layer2, ...: C2..C5 of a ResNet-50 for an FPN); the last
  // one equals Trunk(x).
  std::vector<torch::Tensor> Stages(torch::Tensor x);
  // Channels of Trunk()'s output.
  int64_t TrunkChannels() const;
  // Multiply-accumulate count of one forward pass at the given input size (for FLOP/s); without
  // the classifier, of Trunk(). *out_h/*out_w (optional) receive the trunk's output size.
  int64_t ForwardMacs(int64_t height, int64_t width, int64_t* out_h = nullptr,
                      int64_t* out_w = nullptr) const;

 private:
  ResNetOptions options_;
  torch::nn::Conv2d conv1{nullptr};
  torch::nn::BatchNorm2d bn1{nullptr};
  std::vector<torch::nn::Sequential> layers_;
  int64_t trunk_channels_ = 0;
  torch::nn::Linear fc{nullptr};
};
TORCH_MODULE(ResNet);

}  // namespace trainbench::models

// The MiniGo policy/value network (AlphaGo Zero's dual-headed residual network, as MiniGo's
// dual_net.py builds it): a 3x3 convolution stem, `blocks` residual blocks of two 3x3
// convolutions with BatchNorm, then
//   policy head: 1x1 convolution to 2 planes, BatchNorm, ReLU, fully connected to
//                size*size + 1 logits (the last is pass);
//   value head:  1x1 convolution to 1 plane, BatchNorm, ReLU, fully connected to `value_fc`,
//                ReLU, fully connected to 1, tanh.
// MiniGo's 9x9 settings are 32 filters, 9 residual blocks (trunk_layers), value_fc 64.
// Device-agnostic.
#pragma once

#include <torch/torch.h>

#include <utility>

namespace trainbench::models {

struct GoNetOptions {
  TORCH_ARG(int64_t, board_size) = 9;
  TORCH_ARG(int64_t, input_planes) = 17;
  TORCH_ARG(int64_t, filters) = 32;
  TORCH_ARG(int64_t, blocks) = 9;
  TORCH_ARG(int64_t, value_fc) = 64;
};

class GoResBlockImpl : public torch::nn::Module {
 public:
  explicit GoResBlockImpl(int64_t filters);
  torch::Tensor forward(torch::Tensor x);
  torch::nn::Conv2d conv1{nullptr}, conv2{nullptr};
  torch::nn::BatchNorm2d bn1{nullptr}, bn2{nullptr};
};
TORCH_MODULE(GoResBlock);

class GoNetImpl : public torch::nn::Module {
 public:
  explicit GoNetImpl(GoNetOptions o);
  // x: [B, input_planes, N, N] -> (policy logits [B, N*N+1], value [B] in [-1, 1]).
  std::pair<torch::Tensor, torch::Tensor> forward(torch::Tensor x);
  const GoNetOptions& options() const { return o_; }
  // Multiply-accumulates of one forward pass of one position.
  int64_t ForwardMacs() const;

  torch::nn::Conv2d stem{nullptr}, policy_conv{nullptr}, value_conv{nullptr};
  torch::nn::BatchNorm2d stem_bn{nullptr}, policy_bn{nullptr}, value_bn{nullptr};
  torch::nn::ModuleList trunk{nullptr};
  torch::nn::Linear policy_fc{nullptr}, value_fc1{nullptr}, value_fc2{nullptr};

 private:
  GoNetOptions o_;
};
TORCH_MODULE(GoNet);

// GoNet for inference with every BatchNorm folded into the convolution before it: in eval mode
// BatchNorm is per channel y = (x - mean) * s + beta with s = gamma / sqrt(var + eps), so
// conv-then-BatchNorm is one convolution with weights w * s (per output channel) and bias
// beta - mean * s. The same function as the network in eval mode, within float rounding, in
// 7 fewer operations per pass (TensorRT and oneDNN's inference graphs fold the same way).
// Built from the network's current parameters and running statistics (rebuild after they
// change), the trunk's weights stored once in `dtype` (fp32, or bf16 / fp16 for a low-precision
// search: no per-call casts) and, with `channels_last`, NHWC; the policy and value heads (~2% of
// the operations) always in fp32, so that the priors and values are not rounded to bf16's
// 8 bits. forward() ignores any autocast scope, takes fp32 or `dtype` planes and returns fp32
// logits and values. Read-only after construction: threads may share one.
class FoldedGoNet {
 public:
  FoldedGoNet(const GoNetImpl& net, torch::Dtype dtype = torch::kFloat32,
              bool channels_last = false);
  std::pair<torch::Tensor, torch::Tensor> forward(const torch::Tensor& x) const;

 private:
  struct Conv {
    torch::Tensor w, b;
    int64_t padding = 0;
  };
  Conv Fold(const torch::nn::Conv2d& conv, const torch::nn::BatchNorm2d& bn,
            bool head = false) const;
  torch::Tensor Cast(const torch::Tensor& t, bool head = false) const;

  torch::Dtype dtype_;
  bool channels_last_;
  Conv stem_, policy_, value_;
  std::vector<std::pair<Conv, Conv>> blocks_;
  torch::Tensor policy_w_, policy_b_, value1_w_, value1_b_, value2_w_, value2_b_;
};

}  // namespace trainbench::models

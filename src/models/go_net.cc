#include "models/go_net.h"

namespace trainbench::models {

namespace {
torch::nn::Conv2d Conv(int64_t in, int64_t out, int64_t k) {
  return torch::nn::Conv2d(torch::nn::Conv2dOptions(in, out, k).padding(k / 2).bias(false));
}
}  // namespace

GoResBlockImpl::GoResBlockImpl(int64_t f) {
  conv1 = register_module("conv1", Conv(f, f, 3));
  bn1 = register_module("bn1", torch::nn::BatchNorm2d(f));
  conv2 = register_module("conv2", Conv(f, f, 3));
  bn2 = register_module("bn2", torch::nn::BatchNorm2d(f));
}

torch::Tensor GoResBlockImpl::forward(torch::Tensor x) {
  torch::Tensor y = torch::relu(bn1(conv1(x)));
  y = bn2(conv2(y));
  return torch::relu(y + x);
}

GoNetImpl::GoNetImpl(GoNetOptions o) : o_(o) {
  const int64_t f = o.filters(), n = o.board_size();
  stem = register_module("stem", Conv(o.input_planes(), f, 3));
  stem_bn = register_module("stem_bn", torch::nn::BatchNorm2d(f));
  trunk = register_module("trunk", torch::nn::ModuleList());
  for (int64_t b = 0; b < o.blocks(); ++b) trunk->push_back(GoResBlock(f));
  policy_conv = register_module("policy_conv", Conv(f, 2, 1));
  policy_bn = register_module("policy_bn", torch::nn::BatchNorm2d(2));
  policy_fc = register_module("policy_fc", torch::nn::Linear(2 * n * n, n * n + 1));
  value_conv = register_module("value_conv", Conv(f, 1, 1));
  value_bn = register_module("value_bn", torch::nn::BatchNorm2d(1));
  value_fc1 = register_module("value_fc1", torch::nn::Linear(n * n, o.value_fc()));
  value_fc2 = register_module("value_fc2", torch::nn::Linear(o.value_fc(), 1));
}

std::pair<torch::Tensor, torch::Tensor> GoNetImpl::forward(torch::Tensor x) {
  torch::Tensor h = torch::relu(stem_bn(stem(x)));
  for (const auto& block : *trunk) h = block->as<GoResBlock>()->forward(h);
  torch::Tensor p = torch::relu(policy_bn(policy_conv(h))).flatten(1);
  torch::Tensor v = torch::relu(value_bn(value_conv(h))).flatten(1);
  v = torch::tanh(value_fc2(torch::relu(value_fc1(v)))).squeeze(1);
  return {policy_fc(p), v};
}

int64_t GoNetImpl::ForwardMacs() const {
  const int64_t n2 = o_.board_size() * o_.board_size(), f = o_.filters();
  int64_t macs = n2 * o_.input_planes() * f * 9;        // stem
  macs += o_.blocks() * 2 * n2 * f * f * 9;             // trunk
  macs += n2 * f * 2 + 2 * n2 * (n2 + 1);               // policy
  macs += n2 * f + n2 * o_.value_fc() + o_.value_fc();  // value
  return macs;
}

torch::Tensor FoldedGoNet::Cast(const torch::Tensor& t, bool head) const {
  // Always a copy: the folded network is a snapshot, even of an fp32 parameter.
  torch::Tensor c =
      t.detach().to(head ? torch::kFloat32 : dtype_, /*non_blocking=*/false, /*copy=*/true);
  return channels_last_ && c.dim() == 4 ? c.contiguous(torch::MemoryFormat::ChannelsLast)
                                        : c.contiguous();
}

FoldedGoNet::Conv FoldedGoNet::Fold(const torch::nn::Conv2d& conv, const torch::nn::BatchNorm2d& bn,
                                    bool head) const {
  const auto& o = bn->options;
  TORCH_CHECK(o.affine() && o.track_running_stats(),
              "FoldedGoNet: BatchNorm without affine parameters or running statistics");
  TORCH_CHECK(!conv->options.bias(), "FoldedGoNet: a convolution with a bias");
  // In fp32 whatever the storage dtype, then cast once.
  const torch::Tensor scale = bn->weight.detach().to(torch::kFloat32) /
                              torch::sqrt(bn->running_var.to(torch::kFloat32) + o.eps());
  const torch::Tensor w = conv->weight.detach().to(torch::kFloat32) * scale.view({-1, 1, 1, 1});
  const torch::Tensor b =
      bn->bias.detach().to(torch::kFloat32) - bn->running_mean.to(torch::kFloat32) * scale;
  // GoNet's convolutions are square, stride 1, padded by k / 2 (Conv above).
  return {Cast(w, head), Cast(b, head), conv->weight.size(2) / 2};
}

FoldedGoNet::FoldedGoNet(const GoNetImpl& net, torch::Dtype dtype, bool channels_last)
    : dtype_(dtype), channels_last_(channels_last) {
  torch::NoGradGuard no_grad;
  stem_ = Fold(net.stem, net.stem_bn);
  for (const auto& m : *net.trunk) {
    const auto* block = m->as<GoResBlockImpl>();
    blocks_.emplace_back(Fold(block->conv1, block->bn1), Fold(block->conv2, block->bn2));
  }
  // The heads stay in fp32 whatever the trunk's dtype (~2% of the operations): in bf16 a logit
  // of magnitude 8-16 is rounded to a step of 1/16, a prior by up to ~3%.
  policy_ = Fold(net.policy_conv, net.policy_bn, /*head=*/true);
  value_ = Fold(net.value_conv, net.value_bn, /*head=*/true);
  policy_w_ = Cast(net.policy_fc->weight, true);
  policy_b_ = Cast(net.policy_fc->bias, true);
  value1_w_ = Cast(net.value_fc1->weight, true);
  value1_b_ = Cast(net.value_fc1->bias, true);
  value2_w_ = Cast(net.value_fc2->weight, true);
  value2_b_ = Cast(net.value_fc2->bias, true);
}

std::pair<torch::Tensor, torch::Tensor> FoldedGoNet::forward(const torch::Tensor& x) const {
  torch::NoGradGuard no_grad;
  // The weights carry their own dtypes: a caller's autocast would cast the fp32 heads to bf16.
  c10::impl::ExcludeDispatchKeyGuard no_autocast(c10::autocast_dispatch_keyset);
  auto conv = [](const torch::Tensor& in, const Conv& c) {
    return torch::conv2d(in, c.w, c.b, /*stride=*/1, /*padding=*/c.padding);
  };
  torch::Tensor in = x.to(dtype_);
  if (channels_last_) in = in.contiguous(torch::MemoryFormat::ChannelsLast);
  torch::Tensor h = conv(in, stem_).relu_();
  for (const auto& [c1, c2] : blocks_) {
    torch::Tensor y = conv(conv(h, c1).relu_(), c2);
    h = y.add_(h).relu_();
  }
  if (dtype_ != torch::kFloat32) h = h.to(torch::kFloat32);  // the heads in fp32 (above)
  torch::Tensor p = conv(h, policy_).relu_().flatten(1);
  torch::Tensor v = conv(h, value_).relu_().flatten(1);
  v = torch::tanh(
          torch::linear(torch::linear(v, value1_w_, value1_b_).relu_(), value2_w_, value2_b_))
          .squeeze(1);
  return {torch::linear(p, policy_w_, policy_b_), v};
}

}  // namespace trainbench::models

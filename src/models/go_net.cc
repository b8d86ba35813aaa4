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
  int64_t macs = n2 * o_.input_planes() * f * 9;  // stem
  macs += o_.blocks() * 2 * n2 * f * f * 9;       // trunk
  macs += n2 * f * 2 + 2 * n2 * (n2 + 1);         // policy
  macs += n2 * f + n2 * o_.value_fc() + o_.value_fc();  // value
  return macs;
}

}  // namespace trainbench::models

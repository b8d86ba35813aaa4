#include "models/resnet.h"

namespace trainbench::models {

namespace nn = torch::nn;

namespace {

nn::Conv2d Conv(int64_t in, int64_t out, int64_t k, int64_t stride, int64_t pad) {
  return nn::Conv2d(nn::Conv2dOptions(in, out, k).stride(stride).padding(pad).bias(false));
}

nn::Sequential Downsample(int64_t in, int64_t out, int64_t stride) {
  if (stride == 1 && in == out) return nullptr;
  return nn::Sequential(Conv(in, out, 1, stride, 0), nn::BatchNorm2d(out));
}

int64_t StageStride(const ResNetOptions& o, size_t stage) {
  if (o.stage_strides().empty()) return stage == 0 ? 1 : 2;
  return o.stage_strides()[stage];
}

}  // namespace

ResNetOptions ResNet50Options(int64_t num_classes) {
  return ResNetOptions().num_classes(num_classes);
}

BasicBlockImpl::BasicBlockImpl(int64_t in_planes, int64_t planes, int64_t stride) {
  conv1 = register_module("conv1", Conv(in_planes, planes, 3, stride, 1));
  bn1 = register_module("bn1", nn::BatchNorm2d(planes));
  conv2 = register_module("conv2", Conv(planes, planes, 3, 1, 1));
  bn2 = register_module("bn2", nn::BatchNorm2d(planes));
  downsample = Downsample(in_planes, planes, stride);
  if (downsample) register_module("downsample", downsample);
}

torch::Tensor BasicBlockImpl::forward(torch::Tensor x) {
  auto out = torch::relu(bn1(conv1(x)));
  out = bn2(conv2(out));
  auto identity = downsample ? downsample->forward(x) : x;
  return torch::relu(out + identity);
}

BottleneckImpl::BottleneckImpl(int64_t in_planes, int64_t planes, int64_t stride) {
  conv1 = register_module("conv1", Conv(in_planes, planes, 1, 1, 0));
  bn1 = register_module("bn1", nn::BatchNorm2d(planes));
  conv2 = register_module("conv2", Conv(planes, planes, 3, stride, 1));  // v1.5: stride here
  bn2 = register_module("bn2", nn::BatchNorm2d(planes));
  conv3 = register_module("conv3", Conv(planes, planes * kExpansion, 1, 1, 0));
  bn3 = register_module("bn3", nn::BatchNorm2d(planes * kExpansion));
  downsample = Downsample(in_planes, planes * kExpansion, stride);
  if (downsample) register_module("downsample", downsample);
}

torch::Tensor BottleneckImpl::forward(torch::Tensor x) {
  auto out = torch::relu(bn1(conv1(x)));
  out = torch::relu(bn2(conv2(out)));
  out = bn3(conv3(out));
  auto identity = downsample ? downsample->forward(x) : x;
  return torch::relu(out + identity);
}

ResNetImpl::ResNetImpl(const ResNetOptions& o) : options_(o) {
  TORCH_CHECK(o.blocks().size() == o.widths().size() && !o.blocks().empty(),
              "ResNet: blocks and widths must have the same, non-zero length");
  TORCH_CHECK(o.stage_strides().empty() || o.stage_strides().size() == o.blocks().size(),
              "ResNet: stage_strides must be empty or have one stride per stage");
  int64_t stem = o.widths()[0];
  conv1 = register_module("conv1", o.imagenet_stem() ? Conv(o.in_channels(), stem, 7, 2, 3)
                                                     : Conv(o.in_channels(), stem, 3, 1, 1));
  bn1 = register_module("bn1", nn::BatchNorm2d(stem));
  int64_t in = stem;
  const int64_t expansion =
      o.bottleneck() ? BottleneckImpl::kExpansion : BasicBlockImpl::kExpansion;
  for (size_t s = 0; s < o.blocks().size(); ++s) {
    nn::Sequential layer;
    int64_t planes = o.widths()[s];
    for (int64_t b = 0; b < o.blocks()[s]; ++b) {
      int64_t stride = b == 0 ? StageStride(o, s) : 1;
      if (o.bottleneck()) {
        Bottleneck block(in, planes, stride);
        if (o.zero_init_residual()) torch::nn::init::zeros_(block->bn3->weight);
        layer->push_back(block);
      } else {
        BasicBlock block(in, planes, stride);
        if (o.zero_init_residual()) torch::nn::init::zeros_(block->bn2->weight);
        layer->push_back(block);
      }
      in = planes * expansion;
    }
    layers_.push_back(register_module("layer" + std::to_string(s + 1), layer));
  }
  trunk_channels_ = in;
  if (o.classifier()) fc = register_module("fc", nn::Linear(in, o.num_classes()));
  for (auto& m : modules(/*include_self=*/false)) {
    if (auto* conv = m->as<nn::Conv2d>()) {
      nn::init::kaiming_normal_(conv->weight, 0.0, torch::kFanOut, torch::kReLU);
    }
  }
}

torch::Tensor ResNetImpl::Trunk(torch::Tensor x) {
  x = torch::relu(bn1(conv1(x)));
  if (options_.imagenet_stem()) x = torch::max_pool2d(x, 3, 2, 1);
  for (auto& layer : layers_) x = layer->forward(x);
  return x;
}

std::vector<torch::Tensor> ResNetImpl::Stages(torch::Tensor x) {
  x = torch::relu(bn1(conv1(x)));
  if (options_.imagenet_stem()) x = torch::max_pool2d(x, 3, 2, 1);
  std::vector<torch::Tensor> outs;
  outs.reserve(layers_.size());
  for (auto& layer : layers_) {
    x = layer->forward(x);
    outs.push_back(x);
  }
  return outs;
}

int64_t ResNetImpl::TrunkChannels() const { return trunk_channels_; }

torch::Tensor ResNetImpl::forward(torch::Tensor x) {
  TORCH_CHECK(options_.classifier(), "ResNet::forward: built without a classifier; use Trunk()");
  x = torch::adaptive_avg_pool2d(Trunk(x), {1, 1}).flatten(1);
  return fc(x);
}

int64_t ResNetImpl::ForwardMacs(int64_t h, int64_t w, int64_t* out_h, int64_t* out_w) const {
  const auto& o = options_;
  auto conv_out = [](int64_t n, int64_t k, int64_t s, int64_t p) {
    return (n + 2 * p - k) / s + 1;
  };
  int64_t macs = 0;
  int64_t c = o.widths()[0];
  if (o.imagenet_stem()) {
    h = conv_out(h, 7, 2, 3);
    w = conv_out(w, 7, 2, 3);
    macs += h * w * c * o.in_channels() * 49;
    h = conv_out(h, 3, 2, 1);
    w = conv_out(w, 3, 2, 1);
  } else {
    macs += h * w * c * o.in_channels() * 9;
  }
  int64_t in = c;
  for (size_t s = 0; s < o.blocks().size(); ++s) {
    int64_t planes = o.widths()[s];
    for (int64_t b = 0; b < o.blocks()[s]; ++b) {
      int64_t stride = b == 0 ? StageStride(o, s) : 1;
      int64_t ho = conv_out(h, 3, stride, 1), wo = conv_out(w, 3, stride, 1);
      if (o.bottleneck()) {
        int64_t out = planes * BottleneckImpl::kExpansion;
        macs += h * w * in * planes;            // 1x1
        macs += ho * wo * planes * planes * 9;  // 3x3 (strided)
        macs += ho * wo * planes * out;         // 1x1
        if (stride != 1 || in != out) macs += ho * wo * in * out;
        in = out;
      } else {
        macs += ho * wo * in * planes * 9 + ho * wo * planes * planes * 9;
        if (stride != 1 || in != planes) macs += ho * wo * in * planes;
        in = planes;
      }
      h = ho;
      w = wo;
    }
  }
  if (o.classifier()) macs += in * o.num_classes();
  if (out_h) *out_h = h;
  if (out_w) *out_w = w;
  return macs;
}

}  // namespace trainbench::models

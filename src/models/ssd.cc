#include "models/ssd.h"

#include <cmath>

#include "vision/boxes.h"
#include "vision/nms.h"

namespace trainbench::models {

namespace nn = torch::nn;

namespace {

torch::Tensor XywhToLtrb(const torch::Tensor& b) {
  return vision::ConvertBoxes(b, vision::BoxFormat::kCxcywh, vision::BoxFormat::kXyxy);
}
torch::Tensor LtrbToXywh(const torch::Tensor& b) {
  return vision::ConvertBoxes(b, vision::BoxFormat::kXyxy, vision::BoxFormat::kCxcywh);
}

int64_t ConvOut(int64_t n, int64_t k, int64_t s, int64_t p) { return (n + 2 * p - k) / s + 1; }

nn::Sequential ExtraBlock(int64_t in, const SsdExtraBlock& e) {
  return nn::Sequential(
      nn::Conv2d(nn::Conv2dOptions(in, e.mid_channels, 1)), nn::ReLU(),
      nn::Conv2d(
          nn::Conv2dOptions(e.mid_channels, e.out_channels, 3).stride(e.stride).padding(e.padding)),
      nn::ReLU());
}

}  // namespace

SsdOptions Ssd300Options(int64_t num_classes) {
  SsdOptions o;
  o.num_classes = num_classes;
  o.trunk = ResNetOptions()
                .in_channels(3)
                .bottleneck(false)
                .blocks({3, 4, 6})
                .widths({64, 128, 256})
                .stage_strides({1, 2, 1})
                .imagenet_stem(true)
                .classifier(false);
  o.extras = {
      {256, 512, 2, 1}, {256, 512, 2, 1}, {128, 256, 2, 1}, {128, 256, 1, 0}, {128, 256, 1, 0}};
  o.num_defaults = {4, 6, 6, 6, 4, 4};
  return o;
}

SsdOptions MiniSsdOptions(int64_t num_classes, int64_t image_size, int64_t width, int64_t blocks) {
  TORCH_CHECK(width > 0 && blocks > 0 && image_size >= 32,
              "MiniSsdOptions: bad width, blocks or image size");
  SsdOptions o;
  o.num_classes = num_classes;
  o.trunk = ResNetOptions()
                .in_channels(3)
                .bottleneck(false)
                .blocks({blocks, blocks, blocks})
                .widths({width, 2 * width, 4 * width})
                .stage_strides({1, 2, 1})
                .imagenet_stem(true)
                .classifier(false);
  int64_t n = 0;
  ResNet probe(o.trunk);
  probe->ForwardMacs(image_size, image_size, &n, nullptr);
  o.num_defaults = {4};
  while (n > 1) {
    o.extras.push_back({2 * width, 4 * width, 2, 1});
    n = ConvOut(n, 3, 2, 1);
    o.num_defaults.push_back(o.num_defaults.size() < 3 ? 6 : 4);
  }
  return o;
}

DefaultBoxOptions Ssd300DefaultBoxes() {
  DefaultBoxOptions o;
  o.fig_size = 300;
  o.feat_size = {38, 19, 10, 5, 3, 1};
  o.steps = {8, 16, 32, 64, 100, 300};
  o.scales = {21, 45, 99, 153, 207, 261, 315};
  o.aspect_ratios = {{2}, {2, 3}, {2, 3}, {2, 3}, {2}, {2}};
  return o;
}

DefaultBoxOptions MiniDefaultBoxes(int64_t image_size, const std::vector<int64_t>& feat_size) {
  static const double kFractions[] = {0.07, 0.15, 0.33, 0.51, 0.69, 0.87, 1.05};
  TORCH_CHECK(!feat_size.empty() && feat_size.size() <= 6, "MiniDefaultBoxes: 1 to 6 feature maps");
  DefaultBoxOptions o;
  o.fig_size = image_size;
  o.feat_size = feat_size;
  for (size_t k = 0; k < feat_size.size(); ++k) {
    o.steps.push_back(static_cast<double>(image_size) / static_cast<double>(feat_size[k]));
    o.scales.push_back(kFractions[k] * static_cast<double>(image_size));
    o.aspect_ratios.push_back(k == 1 || k == 2 ? std::vector<int64_t>{2, 3}
                                               : std::vector<int64_t>{2});
  }
  o.scales.push_back(kFractions[feat_size.size()] * static_cast<double>(image_size));
  return o;
}

std::vector<int64_t> DefaultBoxesPerCell(const DefaultBoxOptions& o) {
  std::vector<int64_t> n;
  for (const auto& r : o.aspect_ratios) n.push_back(2 + 2 * static_cast<int64_t>(r.size()));
  return n;
}

torch::Tensor MakeDefaultBoxes(const DefaultBoxOptions& o) {
  TORCH_CHECK(o.steps.size() == o.feat_size.size() &&
                  o.aspect_ratios.size() == o.feat_size.size() &&
                  o.scales.size() == o.feat_size.size() + 1,
              "DefaultBoxOptions: steps, aspect_ratios need one entry per map and scales one more");
  std::vector<float> boxes;
  const double fig = static_cast<double>(o.fig_size);
  for (size_t idx = 0; idx < o.feat_size.size(); ++idx) {
    const double fk = fig / o.steps[idx];
    const double sk1 = o.scales[idx] / fig, sk2 = o.scales[idx + 1] / fig,
                 sk3 = std::sqrt(sk1 * sk2);
    std::vector<std::pair<double, double>> sizes = {{sk1, sk1}, {sk3, sk3}};
    for (int64_t alpha : o.aspect_ratios[idx]) {
      const double a = std::sqrt(static_cast<double>(alpha));
      sizes.push_back({sk1 * a, sk1 / a});
      sizes.push_back({sk1 / a, sk1 * a});
    }
    const int64_t f = o.feat_size[idx];
    for (const auto& [w, h] : sizes) {
      for (int64_t i = 0; i < f; ++i) {
        for (int64_t j = 0; j < f; ++j) {
          boxes.push_back(static_cast<float>((static_cast<double>(j) + 0.5) / fk));
          boxes.push_back(static_cast<float>((static_cast<double>(i) + 0.5) / fk));
          boxes.push_back(static_cast<float>(w));
          boxes.push_back(static_cast<float>(h));
        }
      }
    }
  }
  const int64_t a = static_cast<int64_t>(boxes.size() / 4);
  return torch::from_blob(boxes.data(), {a, 4}, torch::kFloat32).clone().clamp_(0, 1);
}

SsdImpl::SsdImpl(const SsdOptions& o) : options_(o) {
  TORCH_CHECK(o.num_defaults.size() == o.extras.size() + 1,
              "SSD: num_defaults needs one entry per feature map");
  TORCH_CHECK(!o.trunk.classifier(), "SSD: the trunk must be built without a classifier");
  trunk = register_module("trunk", ResNet(o.trunk));
  std::vector<int64_t> channels = {trunk->TrunkChannels()};
  for (size_t i = 0; i < o.extras.size(); ++i) {
    extras.push_back(
        register_module("extra" + std::to_string(i), ExtraBlock(channels.back(), o.extras[i])));
    channels.push_back(o.extras[i].out_channels);
  }
  for (size_t i = 0; i < channels.size(); ++i) {
    const int64_t nd = o.num_defaults[i];
    loc.push_back(
        register_module("loc" + std::to_string(i),
                        nn::Conv2d(nn::Conv2dOptions(channels[i], nd * 4, 3).padding(1))));
    conf.push_back(register_module(
        "conf" + std::to_string(i),
        nn::Conv2d(nn::Conv2dOptions(channels[i], nd * o.num_classes, 3).padding(1))));
  }
  // The reference initialises the extra blocks and the heads Xavier-uniform (weights only).
  torch::NoGradGuard no_grad;
  auto xavier = [](nn::Module& m) {
    for (auto& p : m.parameters())
      if (p.dim() > 1) nn::init::xavier_uniform_(p);
  };
  for (auto& e : extras) xavier(*e);
  for (auto& c : loc) xavier(*c);
  for (auto& c : conf) xavier(*c);
}

std::pair<torch::Tensor, torch::Tensor> SsdImpl::forward(torch::Tensor x) {
  const int64_t n = x.size(0);
  std::vector<torch::Tensor> maps = {trunk->Trunk(x)};
  for (auto& e : extras) maps.push_back(e->forward(maps.back()));
  std::vector<torch::Tensor> locs, confs;
  for (size_t i = 0; i < maps.size(); ++i) {
    // [N, nd * 4, H, W] viewed as [N, 4, nd * H * W]: box index = d * H * W + row * W + col, the
    // default boxes' order.
    locs.push_back(loc[i]->forward(maps[i]).view({n, 4, -1}));
    confs.push_back(conf[i]->forward(maps[i]).view({n, options_.num_classes, -1}));
  }
  return {torch::cat(locs, 2).contiguous(), torch::cat(confs, 2).contiguous()};
}

std::vector<int64_t> SsdImpl::FeatureSizes(int64_t image_size) const {
  int64_t n = 0;
  trunk->ForwardMacs(image_size, image_size, &n, nullptr);
  std::vector<int64_t> sizes = {n};
  for (const auto& e : options_.extras) {
    n = ConvOut(n, 3, e.stride, e.padding);
    sizes.push_back(n);
  }
  return sizes;
}

int64_t SsdImpl::ForwardMacs(int64_t image_size) const {
  int64_t n = 0;
  int64_t macs = trunk->ForwardMacs(image_size, image_size, &n, nullptr);
  int64_t c = trunk->TrunkChannels();
  auto head_macs = [&](int64_t size, int64_t channels, int64_t nd) {
    return size * size * channels * 9 * nd * (4 + options_.num_classes);
  };
  macs += head_macs(n, c, options_.num_defaults[0]);
  for (size_t i = 0; i < options_.extras.size(); ++i) {
    const auto& e = options_.extras[i];
    macs += n * n * c * e.mid_channels;
    n = ConvOut(n, 3, e.stride, e.padding);
    macs += n * n * e.mid_channels * e.out_channels * 9;
    c = e.out_channels;
    macs += head_macs(n, c, options_.num_defaults[i + 1]);
  }
  return macs;
}

SsdTargets SsdEncode(const torch::Tensor& dboxes_ltrb, const torch::Tensor& gt_ltrb,
                     const torch::Tensor& gt_labels, double iou_threshold) {
  const torch::Tensor dboxes = dboxes_ltrb.to(torch::kCPU, torch::kFloat32);
  const int64_t a = dboxes.size(0);
  const int64_t n = gt_ltrb.size(0);
  SsdTargets t;
  if (n == 0) {
    t.loc = LtrbToXywh(dboxes);
    t.labels = torch::zeros({a}, torch::kInt64);
    return t;
  }
  const torch::Tensor gt = gt_ltrb.to(torch::kCPU, torch::kFloat32);
  const torch::Tensor labels = gt_labels.to(torch::kCPU, torch::kInt64);
  const torch::Tensor ious = vision::BoxIou(gt, dboxes);  // [n, A]
  auto [best_dbox_iou, best_dbox_idx] = ious.max(0);      // per default box: its best gt
  auto [best_bbox_iou, best_bbox_idx] = ious.max(1);      // per gt: its best default box
  // Every gt keeps its best default box, whatever the IoU (later gts win a shared box, as the
  // reference's indexed assignment does).
  auto iou_a = best_dbox_iou.accessor<float, 1>();
  auto idx_a = best_dbox_idx.accessor<int64_t, 1>();
  auto best_a = best_bbox_idx.accessor<int64_t, 1>();
  for (int64_t k = 0; k < n; ++k) iou_a[best_a[k]] = 2.0f;
  for (int64_t k = 0; k < n; ++k) idx_a[best_a[k]] = k;
  const torch::Tensor pos = best_dbox_iou > iou_threshold;
  t.labels =
      torch::where(pos, labels.index_select(0, best_dbox_idx), torch::zeros({a}, torch::kInt64));
  t.loc = LtrbToXywh(torch::where(pos.unsqueeze(1), gt.index_select(0, best_dbox_idx), dboxes));
  return t;
}

torch::Tensor SsdLoss(const torch::Tensor& ploc, const torch::Tensor& pconf,
                      const torch::Tensor& gloc, const torch::Tensor& glabel,
                      const torch::Tensor& dboxes_xywh, double scale_xy, double scale_wh,
                      double neg_ratio) {
  const torch::Tensor d =
      dboxes_xywh.to(ploc.device(), ploc.scalar_type()).t().unsqueeze(0);  // [1, 4, A]
  const torch::Tensor mask = glabel > 0;
  const torch::Tensor pos_num = mask.sum(1);
  const torch::Tensor d_xy = d.narrow(1, 0, 2), d_wh = d.narrow(1, 2, 2);
  const torch::Tensor gxy = (gloc.narrow(1, 0, 2) - d_xy) / d_wh / scale_xy;
  const torch::Tensor gwh = (gloc.narrow(1, 2, 2) / d_wh).log() / scale_wh;
  const torch::Tensor target = torch::cat({gxy, gwh}, 1);
  torch::Tensor sl1 =
      torch::nn::functional::smooth_l1_loss(
          ploc, target, torch::nn::functional::SmoothL1LossFuncOptions().reduction(torch::kNone))
          .sum(1);
  sl1 = (mask.to(sl1.scalar_type()) * sl1).sum(1);
  const torch::Tensor con = torch::nn::functional::cross_entropy(
      pconf, glabel,
      torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kNone));  // [N, A]
  torch::Tensor neg_mask;
  {
    torch::NoGradGuard no_grad;
    const torch::Tensor con_neg = con.detach().masked_fill(mask, 0);
    const torch::Tensor con_idx = std::get<1>(con_neg.sort(1, /*descending=*/true));
    const torch::Tensor con_rank = std::get<1>(con_idx.sort(1));
    const torch::Tensor neg_num =
        torch::clamp(pos_num * static_cast<int64_t>(neg_ratio), c10::nullopt, mask.size(1))
            .unsqueeze(-1);
    neg_mask = con_rank < neg_num;
  }
  const torch::Tensor closs = (con * (mask | neg_mask).to(con.scalar_type())).sum(1);
  const torch::Tensor total = sl1 + closs;
  const torch::Tensor has_pos = (pos_num > 0).to(total.scalar_type());
  return (total * has_pos / pos_num.to(total.scalar_type()).clamp_min(1e-6)).mean(0);
}

std::vector<Detections> SsdDecode(const torch::Tensor& ploc, const torch::Tensor& pconf,
                                  const torch::Tensor& dboxes_xywh, double scale_xy,
                                  double scale_wh, const SsdDecodeOptions& o) {
  torch::NoGradGuard no_grad;
  const torch::Tensor d = dboxes_xywh.to(ploc.device(), torch::kFloat32).unsqueeze(0);  // [1, A, 4]
  const torch::Tensor loc = ploc.to(torch::kFloat32).permute({0, 2, 1});                // [N, A, 4]
  const torch::Tensor xy = scale_xy * loc.narrow(2, 0, 2) * d.narrow(2, 2, 2) + d.narrow(2, 0, 2);
  const torch::Tensor wh = (scale_wh * loc.narrow(2, 2, 2)).exp() * d.narrow(2, 2, 2);
  const torch::Tensor boxes_all = XywhToLtrb(torch::cat({xy, wh}, 2)).cpu();
  const torch::Tensor probs_all =
      torch::softmax(pconf.to(torch::kFloat32), 1).permute({0, 2, 1}).cpu();  // [N, A, C]
  std::vector<Detections> out;
  for (int64_t i = 0; i < boxes_all.size(0); ++i) {
    const torch::Tensor boxes = boxes_all[i];
    const torch::Tensor probs = probs_all[i];
    std::vector<torch::Tensor> cand_boxes, cand_scores, cand_labels;
    for (int64_t c = 1; c < probs.size(1); ++c) {
      const torch::Tensor score = probs.select(1, c);
      const torch::Tensor keep = torch::nonzero(score > o.score_threshold).squeeze(1);
      if (keep.numel() == 0) continue;
      torch::Tensor s = score.index_select(0, keep);
      torch::Tensor order = std::get<1>(s.sort(0, /*descending=*/true));
      if (order.numel() > o.max_candidates) order = order.narrow(0, 0, o.max_candidates);
      cand_scores.push_back(s.index_select(0, order));
      cand_boxes.push_back(boxes.index_select(0, keep.index_select(0, order)));
      cand_labels.push_back(torch::full({order.numel()}, c, torch::kInt64));
    }
    Detections det;
    if (cand_scores.empty()) {
      det.boxes = torch::zeros({0, 4});
      det.labels = torch::zeros({0}, torch::kInt64);
      det.scores = torch::zeros({0});
      out.push_back(det);
      continue;
    }
    const torch::Tensor b = torch::cat(cand_boxes), s = torch::cat(cand_scores),
                        l = torch::cat(cand_labels);
    torch::Tensor kept = vision::BatchedNms(b, s, l, o.nms_iou);  // descending score
    if (kept.numel() > o.max_output) kept = kept.narrow(0, 0, o.max_output);
    det.boxes = b.index_select(0, kept);
    det.scores = s.index_select(0, kept);
    det.labels = l.index_select(0, kept);
    out.push_back(det);
  }
  return out;
}

}  // namespace trainbench::models

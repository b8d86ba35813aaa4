#include "models/mask_rcnn.h"

#include <algorithm>
#include <cmath>

#include "vision/boxes.h"
#include "vision/nms.h"
#include "vision/roi_align.h"

namespace trainbench::models {

namespace nn = torch::nn;
using torch::indexing::Slice;

namespace {

int64_t ConvOut(int64_t n, int64_t k, int64_t s, int64_t p) { return (n + 2 * p - k) / s + 1; }

// maskrcnn-benchmark's make_conv / make_fc of the FPN and the box head: kaiming_uniform a = 1
// (caffe2's "XavierFill"), bias 0.
nn::Conv2d KaimingUniformConv(int64_t in, int64_t out, int64_t k) {
  nn::Conv2d c(nn::Conv2dOptions(in, out, k).padding(k / 2));
  nn::init::kaiming_uniform_(c->weight, 1.0);
  nn::init::zeros_(c->bias);
  return c;
}
nn::Linear KaimingUniformFc(int64_t in, int64_t out) {
  nn::Linear l(in, out);
  nn::init::kaiming_uniform_(l->weight, 1.0);
  nn::init::zeros_(l->bias);
  return l;
}
template <typename M>
M Normal(M m, double std) {
  nn::init::normal_(m->weight, 0.0, std);
  nn::init::zeros_(m->bias);
  return m;
}
template <typename M>
M KaimingNormalFanOut(M m) {
  nn::init::kaiming_normal_(m->weight, 0.0, torch::kFanOut, torch::kReLU);
  nn::init::zeros_(m->bias);
  return m;
}

// The reference's smooth_l1_loss (maskrcnn_benchmark/layers/smooth_l1_loss.py), summed.
torch::Tensor SmoothL1Sum(const torch::Tensor& input, const torch::Tensor& target, double beta) {
  const auto n = (input - target).abs();
  return torch::where(n < beta, 0.5 * n * n / beta, n - 0.5 * beta).sum();
}

// Channels of each trunk stage's output.
std::vector<int64_t> StageChannels(const ResNetOptions& t) {
  std::vector<int64_t> c;
  for (int64_t w : t.widths()) c.push_back(w * (t.bottleneck() ? BottleneckImpl::kExpansion : 1));
  return c;
}

// Output (rows, cols) of each trunk stage for an h x w input, as ResNetImpl::ForwardMacs.
std::vector<std::pair<int64_t, int64_t>> StageSizes(const ResNetOptions& t, int64_t h, int64_t w) {
  if (t.imagenet_stem()) {
    h = ConvOut(ConvOut(h, 7, 2, 3), 3, 2, 1);
    w = ConvOut(ConvOut(w, 7, 2, 3), 3, 2, 1);
  }
  std::vector<std::pair<int64_t, int64_t>> sizes;
  for (size_t s = 0; s < t.blocks().size(); ++s) {
    const int64_t stride = t.stage_strides().empty() ? (s == 0 ? 1 : 2) : t.stage_strides()[s];
    h = ConvOut(h, 3, stride, 1);
    w = ConvOut(w, 3, stride, 1);
    sizes.emplace_back(h, w);
  }
  return sizes;
}

// P2..P5 of Features() in fp32, for RoIAlign: a no-op in fp32; under autocast the features are
// in its lower dtype. Once per forward pass, for both heads.
std::vector<torch::Tensor> RoiFeatures(const std::vector<torch::Tensor>& features) {
  std::vector<torch::Tensor> f32;
  for (size_t l = 0; l < 4; ++l) f32.push_back(features[l].to(torch::kFloat));
  return f32;
}

// MultiScaleRoIAlign over RoiFeatures' P2..P5 with the options' level mapper (the mini model
// scales the canonical scale).
torch::Tensor PoolRois(const std::vector<torch::Tensor>& features, const torch::Tensor& rois,
                       int64_t size, const MaskRcnnOptions& o) {
  vision::RoiAlignOptions ro;
  ro.output_h = ro.output_w = size;
  ro.sampling_ratio = o.pool_sampling_ratio;
  ro.aligned = false;
  TORCH_CHECK(features.size() == 4, "PoolRois: expected P2..P5");
  return vision::MultiScaleRoiAlign(features, rois, ro, 2, o.roi_canonical_scale,
                                    o.roi_canonical_level);
}

// k of n indices drawn uniformly without replacement (a partial Fisher-Yates shuffle).
std::vector<int64_t> Choose(std::vector<int64_t> v, int64_t k, data::Rng& rng) {
  const int64_t n = static_cast<int64_t>(v.size());
  k = std::min(k, n);
  for (int64_t i = 0; i < k; ++i) std::swap(v[i], v[rng.UniformInt(i, n - 1)]);
  v.resize(k);
  return v;
}

torch::Tensor IndexTensor(const std::vector<int64_t>& v) {
  return torch::tensor(v, torch::kLong).reshape({static_cast<int64_t>(v.size())});
}

}  // namespace

MaskRcnnOptions MaskRcnnR50FpnOptions(int64_t num_classes) {
  MaskRcnnOptions o;
  o.num_classes = num_classes;
  o.trunk = ResNet50Options().classifier(false);
  return o;
}

MaskRcnnOptions MiniMaskRcnnOptions(int64_t num_classes, int64_t image_size, int64_t width,
                                    int64_t blocks, int64_t fpn_channels) {
  TORCH_CHECK(width > 0 && blocks > 0 && fpn_channels > 0 && image_size >= 32,
              "MiniMaskRcnnOptions: bad width, blocks, fpn_channels or image size");
  MaskRcnnOptions o;
  o.num_classes = num_classes;
  o.trunk = ResNetOptions()
                .bottleneck(false)
                .blocks({blocks, blocks, blocks, blocks})
                .widths({width, 2 * width, 4 * width, 8 * width})
                .imagenet_stem(true)
                .classifier(false);
  o.fpn_channels = fpn_channels;
  const double s = static_cast<double>(image_size) / 512.0;
  o.anchor_sizes = {32 * s, 64 * s, 128 * s, 256 * s, 512 * s};
  o.roi_canonical_scale = 224.0 * s;
  o.representation_size = 4 * fpn_channels;
  o.mask_head_channels = fpn_channels;
  return o;
}

MaskRcnnImpl::MaskRcnnImpl(const MaskRcnnOptions& o) : options_(o) {
  TORCH_CHECK(o.trunk.blocks().size() == 4 && !o.trunk.classifier(),
              "MaskRcnn: the trunk must have four stages (C2..C5) and no classifier");
  TORCH_CHECK(o.anchor_sizes.size() == 5 && o.anchor_strides.size() == 5,
              "MaskRcnn: one anchor size and stride per level P2..P6");
  TORCH_CHECK(o.num_classes >= 2, "MaskRcnn: num_classes includes the background");
  trunk = register_module("trunk", ResNet(o.trunk));
  const auto in_channels = StageChannels(o.trunk);
  const int64_t f = o.fpn_channels;
  for (size_t l = 0; l < in_channels.size(); ++l) {
    const auto n = std::to_string(l + 1);
    fpn_inner.push_back(register_module("fpn_inner" + n, KaimingUniformConv(in_channels[l], f, 1)));
    fpn_layer.push_back(register_module("fpn_layer" + n, KaimingUniformConv(f, f, 3)));
  }
  const int64_t a = static_cast<int64_t>(o.aspect_ratios.size());
  rpn_conv =
      register_module("rpn_conv", Normal(nn::Conv2d(nn::Conv2dOptions(f, f, 3).padding(1)), 0.01));
  rpn_cls_logits =
      register_module("rpn_cls_logits", Normal(nn::Conv2d(nn::Conv2dOptions(f, a, 1)), 0.01));
  rpn_bbox_pred =
      register_module("rpn_bbox_pred", Normal(nn::Conv2d(nn::Conv2dOptions(f, 4 * a, 1)), 0.01));
  const int64_t r = o.representation_size;
  fc6 = register_module("fc6", KaimingUniformFc(f * o.box_pool_size * o.box_pool_size, r));
  fc7 = register_module("fc7", KaimingUniformFc(r, r));
  cls_score = register_module("cls_score", Normal(nn::Linear(r, o.num_classes), 0.01));
  bbox_pred = register_module("bbox_pred", Normal(nn::Linear(r, 4 * o.num_classes), 0.001));
  int64_t in = f;
  for (int64_t i = 0; i < o.mask_head_convs; ++i) {
    mask_fcn.push_back(register_module(
        "mask_fcn" + std::to_string(i + 1),
        KaimingNormalFanOut(
            nn::Conv2d(nn::Conv2dOptions(in, o.mask_head_channels, 3).padding(1)))));
    in = o.mask_head_channels;
  }
  conv5_mask = register_module(
      "conv5_mask", KaimingNormalFanOut(nn::ConvTranspose2d(
                        nn::ConvTranspose2dOptions(in, o.mask_head_channels, 2).stride(2))));
  mask_fcn_logits = register_module(
      "mask_fcn_logits",
      KaimingNormalFanOut(nn::Conv2d(nn::Conv2dOptions(o.mask_head_channels, o.num_classes, 1))));
  if (o.freeze_trunk_bn) {
    for (auto& m : trunk->modules(/*include_self=*/false)) {
      if (auto* bn = m->as<nn::BatchNorm2d>()) {
        bn->weight.set_requires_grad(false);
        bn->bias.set_requires_grad(false);
      }
    }
  }
  train(true);
}

void MaskRcnnImpl::train(bool on) {
  nn::Module::train(on);
  if (!options_.freeze_trunk_bn || !trunk) return;
  for (auto& m : trunk->modules(/*include_self=*/false)) {
    if (auto* bn = m->as<nn::BatchNorm2d>()) bn->train(false);
  }
}

std::vector<torch::Tensor> MaskRcnnImpl::Features(const torch::Tensor& images) {
  const auto c = trunk->Stages(images);
  std::vector<torch::Tensor> p(5);
  // Top-down pathway (maskrcnn-benchmark FPN.forward): nearest upsampling of the coarser map
  // (to the lateral's size; scale_factor 2 when the padded size is divisible by 32).
  auto last = fpn_inner[3]->forward(c[3]);
  p[3] = fpn_layer[3]->forward(last);
  for (int l = 2; l >= 0; --l) {
    const auto lateral = fpn_inner[l]->forward(c[l]);
    const auto top_down = torch::nn::functional::interpolate(
        last, torch::nn::functional::InterpolateFuncOptions()
                  .size(std::vector<int64_t>{lateral.size(2), lateral.size(3)})
                  .mode(torch::kNearest));
    last = lateral + top_down;
    p[l] = fpn_layer[l]->forward(last);
  }
  p[4] = torch::max_pool2d(p[3], 1, 2, 0);  // LastLevelMaxPool
  return p;
}

MaskRcnnImpl::RpnOutput MaskRcnnImpl::Rpn(const std::vector<torch::Tensor>& features) {
  const int64_t n = features[0].size(0);
  const int64_t a = static_cast<int64_t>(options_.aspect_ratios.size());
  std::vector<torch::Tensor> obj, del, levels;
  std::vector<std::pair<int64_t, int64_t>> grids;
  for (size_t l = 0; l < features.size(); ++l) {
    const auto& f = features[l];
    const int64_t h = f.size(2), w = f.size(3);
    const auto t = torch::relu(rpn_conv->forward(f));
    // [N, A, H, W] -> [N, H W A] and [N, 4 A, H, W] -> [N, H W A, 4]: the anchors' order.
    // The logits and deltas in fp32 (a no-op in fp32, a cast from the autocast dtype under it).
    obj.push_back(
        rpn_cls_logits->forward(t).to(torch::kFloat).permute({0, 2, 3, 1}).reshape({n, -1}));
    del.push_back(rpn_bbox_pred->forward(t)
                      .to(torch::kFloat)
                      .view({n, a, 4, h, w})
                      .permute({0, 3, 4, 1, 2})
                      .reshape({n, -1, 4}));
    levels.push_back(torch::full({h * w * a}, static_cast<int64_t>(l),
                                 torch::TensorOptions().dtype(torch::kLong).device(f.device())));
    grids.emplace_back(h, w);
  }
  RpnOutput out;
  out.objectness = torch::cat(obj, 1);
  out.deltas = torch::cat(del, 1);
  out.anchors =
      torch::cat(MakeFpnAnchors(options_, grids, features[0].options().dtype(torch::kFloat)), 0);
  out.levels = torch::cat(levels, 0);
  return out;
}

std::vector<torch::Tensor> MaskRcnnImpl::Proposals(const RpnOutput& rpn, const ImageSizes& sizes,
                                                   int64_t pre_nms_top_n, int64_t post_nms_top_n,
                                                   std::vector<torch::Tensor>* scores_out) {
  torch::NoGradGuard no_grad;  // the reference selects proposals under no_grad
  const vision::BoxCoder coder(vision::kRpnBoxWeights);
  const auto levels_cpu = rpn.levels.to(torch::kCPU);
  const int64_t num_levels = levels_cpu[-1].item<int64_t>() + 1;
  const auto counts = torch::bincount(levels_cpu, {}, num_levels);
  std::vector<torch::Tensor> proposals;
  for (size_t i = 0; i < sizes.size(); ++i) {
    const auto obj = rpn.objectness[i].detach();
    const auto del = rpn.deltas[i].detach();
    // Per level the pre_nms_top_n best anchors (forward_for_single_feature_map).
    std::vector<torch::Tensor> idx;
    int64_t start = 0;
    for (int64_t l = 0; l < num_levels; ++l) {
      const int64_t count = counts[l].item<int64_t>();
      const int64_t k = std::min(pre_nms_top_n, count);
      idx.push_back(std::get<1>(obj.slice(0, start, start + count).topk(k)) + start);
      start += count;
    }
    auto sel = torch::cat(idx);
    auto scores = torch::sigmoid(obj.index_select(0, sel));
    auto boxes = coder.Decode(del.index_select(0, sel), rpn.anchors.index_select(0, sel));
    boxes = vision::ClipBoxesToImage(boxes, sizes[i].first, sizes[i].second);
    auto lv = rpn.levels.index_select(0, sel);
    const auto keep = vision::RemoveSmallBoxes(boxes, options_.rpn_min_size);
    boxes = boxes.index_select(0, keep);
    scores = scores.index_select(0, keep);
    lv = lv.index_select(0, keep);
    // NMS per level, then the image's post_nms_top_n best over all levels
    // (select_over_all_levels). Each level stops after post_nms_top_n kept boxes: the image's
    // best post_nms_top_n hold at most that many of one level, and they are that level's first,
    // so the result is the same as without the cap, at a fraction of the greedy pass.
    auto kept = vision::BatchedNms(boxes, scores, lv, options_.rpn_nms_thresh, post_nms_top_n);
    kept = kept.slice(0, 0, std::min<int64_t>(post_nms_top_n, kept.size(0)));
    proposals.push_back(boxes.index_select(0, kept));
    if (scores_out) scores_out->push_back(scores.index_select(0, kept));
  }
  return proposals;
}

std::pair<torch::Tensor, torch::Tensor> MaskRcnnImpl::BoxHead(
    const std::vector<torch::Tensor>& features, const torch::Tensor& rois) {
  auto x = PoolRois(features, rois, options_.box_pool_size, options_);
  x = torch::relu(fc6->forward(x.flatten(1)));
  x = torch::relu(fc7->forward(x));
  return {cls_score->forward(x).to(torch::kFloat), bbox_pred->forward(x).to(torch::kFloat)};
}

torch::Tensor MaskRcnnImpl::MaskHead(const std::vector<torch::Tensor>& features,
                                     const torch::Tensor& rois) {
  auto x = PoolRois(features, rois, options_.mask_pool_size, options_);
  for (auto& conv : mask_fcn) x = torch::relu(conv->forward(x));
  x = torch::relu(conv5_mask->forward(x));
  return mask_fcn_logits->forward(x).to(torch::kFloat);
}

std::map<std::string, torch::Tensor> MaskRcnnImpl::Losses(
    const torch::Tensor& images, const ImageSizes& sizes,
    const std::vector<MaskRcnnTarget>& targets, data::Rng& rng) {
  const auto& o = options_;
  const int64_t n = images.size(0);
  TORCH_CHECK(static_cast<int64_t>(sizes.size()) == n && static_cast<int64_t>(targets.size()) == n,
              "MaskRcnn::Losses: one size and one target per image");
  const auto device = images.device();
  const auto features = Features(images);
  const auto rpn = Rpn(features);
  const int64_t num_anchors = rpn.anchors.size(0);

  // --- RPN loss (RPNLossComputation): per image labels and a balanced sample of 256 anchors.
  const vision::BoxCoder rpn_coder(vision::kRpnBoxWeights);
  std::vector<torch::Tensor> rpn_pos, rpn_neg, rpn_box_targets;
  std::vector<torch::Tensor> gt_boxes(n), gt_labels(n);
  for (int64_t i = 0; i < n; ++i) {
    gt_boxes[i] = targets[i].boxes.to(device, images.scalar_type()).reshape({-1, 4});
    gt_labels[i] = targets[i].labels.to(device, torch::kLong).reshape({-1});
    const auto t = RpnAnchorLabels(rpn.anchors, gt_boxes[i], sizes[i].first, sizes[i].second, o);
    auto [pos, neg] =
        SampleFgBg(t.labels, o.rpn_batch_size_per_image, o.rpn_positive_fraction, rng);
    pos = pos.to(device);
    neg = neg.to(device);
    if (pos.numel() > 0) {
      rpn_box_targets.push_back(
          rpn_coder.Encode(gt_boxes[i].index_select(0, t.matched.index_select(0, pos)),
                           rpn.anchors.index_select(0, pos)));
    }
    rpn_pos.push_back(pos + i * num_anchors);
    rpn_neg.push_back(neg + i * num_anchors);
  }
  const auto pos_all = torch::cat(rpn_pos);
  const auto sampled = torch::cat({pos_all, torch::cat(rpn_neg)});
  const auto obj_flat = rpn.objectness.reshape({-1});
  const auto del_flat = rpn.deltas.reshape({-1, 4});
  std::map<std::string, torch::Tensor> losses;
  if (sampled.numel() > 0) {
    auto labels = torch::zeros({sampled.size(0)}, obj_flat.options());
    labels.slice(0, 0, pos_all.size(0)).fill_(1.0);
    losses["loss_objectness"] =
        torch::binary_cross_entropy_with_logits(obj_flat.index_select(0, sampled), labels);
    losses["loss_rpn_box_reg"] =
        pos_all.numel() > 0 ? SmoothL1Sum(del_flat.index_select(0, pos_all),
                                          torch::cat(rpn_box_targets), o.rpn_smooth_l1_beta) /
                                  static_cast<double>(sampled.numel())
                            : del_flat.sum() * 0.0;
  } else {
    losses["loss_objectness"] = obj_flat.sum() * 0.0;
    losses["loss_rpn_box_reg"] = del_flat.sum() * 0.0;
  }

  // --- Proposals + ground truth, matched and sampled (FastRCNNLossComputation.subsample).
  auto proposals = Proposals(rpn, sizes, o.rpn_pre_nms_top_n_train, o.rpn_post_nms_top_n_train);
  const vision::BoxCoder box_coder(vision::kMaskRcnnBoxHeadWeights);
  std::vector<torch::Tensor> roi_boxes, roi_labels, roi_targets, pos_boxes, pos_labels,
      mask_targets;
  for (int64_t i = 0; i < n; ++i) {
    const auto props = torch::cat({proposals[i], gt_boxes[i]});  // add_gt_proposals
    const int64_t g = gt_boxes[i].size(0);
    auto labels =
        torch::zeros({props.size(0)}, torch::TensorOptions().dtype(torch::kLong).device(device));
    auto matched = torch::zeros_like(labels);
    if (g > 0) {
      const auto m =
          MatchBoxes(vision::BoxIou(gt_boxes[i], props), o.roi_fg_iou, o.roi_bg_iou, false);
      matched = m.clamp_min(0);
      labels = gt_labels[i].index_select(0, matched);
      labels.masked_fill_(m == kBelowLowThreshold, 0);
      labels.masked_fill_(m == kBetweenThresholds, -1);
    }
    auto [pos, neg] = SampleFgBg(labels, o.roi_batch_size_per_image, o.roi_positive_fraction, rng);
    pos = pos.to(device);
    const auto sel = torch::cat({pos, neg.to(device)});
    const auto boxes = props.index_select(0, sel);
    roi_boxes.push_back(boxes);
    roi_labels.push_back(labels.index_select(0, sel));
    roi_targets.push_back(
        g > 0 ? box_coder.Encode(gt_boxes[i].index_select(0, matched.index_select(0, sel)), boxes)
              : torch::zeros_like(boxes));
    // Positives come first in each image's sample: the mask head's RoIs in the same order.
    const auto pb = props.index_select(0, pos);
    pos_boxes.push_back(pb);
    pos_labels.push_back(labels.index_select(0, pos));
    if (pos.numel() > 0) {
      mask_targets.push_back(MaskRcnnMaskTargets(
          targets[i].masks.to(device), pb, matched.index_select(0, pos), 2 * o.mask_pool_size));
    }
  }
  const auto labels = torch::cat(roi_labels);
  const auto roi_features = RoiFeatures(features);
  const auto [class_logits, box_regression] = BoxHead(roi_features, vision::BoxesToRois(roi_boxes));
  losses["loss_classifier"] = torch::cross_entropy_loss(class_logits, labels);
  const auto pos_idx = torch::where(labels > 0)[0];
  const auto reg = box_regression.view({box_regression.size(0), -1, 4});
  const auto labels_pos = labels.index_select(0, pos_idx);
  losses["loss_box_reg"] = SmoothL1Sum(reg.index({pos_idx, labels_pos}),
                                       torch::cat(roi_targets).index_select(0, pos_idx), 1.0) /
                           static_cast<double>(std::max<int64_t>(labels.numel(), 1));

  // --- Mask loss on the positive RoIs (MaskRCNNLossComputation).
  if (pos_idx.numel() > 0) {
    const auto mask_logits = MaskHead(roi_features, vision::BoxesToRois(pos_boxes));
    const auto lp = torch::cat(pos_labels);
    const auto picked = mask_logits.index({torch::arange(lp.size(0), lp.options()), lp});
    losses["loss_mask"] = torch::binary_cross_entropy_with_logits(picked, torch::cat(mask_targets));
  } else {
    losses["loss_mask"] = class_logits.sum() * 0.0;
  }
  return losses;
}

std::vector<MaskRcnnDetections> MaskRcnnImpl::Detect(const torch::Tensor& images,
                                                     const ImageSizes& sizes,
                                                     const MaskRcnnDetectOptions& d) {
  torch::NoGradGuard no_grad;
  const auto& o = options_;
  const int64_t n = images.size(0);
  TORCH_CHECK(static_cast<int64_t>(sizes.size()) == n, "MaskRcnn::Detect: one size per image");
  const int64_t c = o.num_classes;
  const auto features = Features(images);
  const auto proposals =
      Proposals(Rpn(features), sizes, o.rpn_pre_nms_top_n_test, o.rpn_post_nms_top_n_test);
  const auto roi_features = RoiFeatures(features);
  const auto [class_logits, box_regression] = BoxHead(roi_features, vision::BoxesToRois(proposals));
  const auto probs = torch::softmax(class_logits, -1);
  const vision::BoxCoder coder(vision::kMaskRcnnBoxHeadWeights);
  const auto decoded = coder.Decode(box_regression, torch::cat(proposals)).view({-1, c, 4});
  // PostProcessor.filter_results: per class j >= 1, score > thresh, NMS; the image's best
  // detections_per_img (sorted by score rather than grouped by class).
  std::vector<MaskRcnnDetections> out(n);
  std::vector<torch::Tensor> det_boxes(n);
  int64_t start = 0, total = 0;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t p = proposals[i].size(0);
    const auto [h, w] = sizes[i];
    auto boxes = vision::ClipBoxesToImage(decoded.slice(0, start, start + p), h, w)
                     .slice(1, 1)
                     .reshape({-1, 4});
    auto scores = probs.slice(0, start, start + p).slice(1, 1).reshape({-1});
    auto labels =
        torch::arange(1, c, torch::TensorOptions().dtype(torch::kLong).device(images.device()))
            .repeat({p});
    start += p;
    const auto keep = torch::where(scores > d.score_thresh)[0];
    boxes = boxes.index_select(0, keep);
    scores = scores.index_select(0, keep);
    labels = labels.index_select(0, keep);
    auto kept = vision::BatchedNms(boxes, scores, labels, d.nms_thresh);
    kept = kept.slice(0, 0, std::min<int64_t>(d.detections_per_img, kept.size(0)));
    out[i].boxes = boxes.index_select(0, kept);
    out[i].scores = scores.index_select(0, kept);
    out[i].labels = labels.index_select(0, kept);
    det_boxes[i] = out[i].boxes;
    total += kept.size(0);
  }
  // MaskPostProcessor: sigmoid of the predicted class's logits on the final boxes.
  const int64_t m = 2 * o.mask_pool_size;
  if (total > 0) {
    const auto logits = MaskHead(roi_features, vision::BoxesToRois(det_boxes));
    const auto labels = torch::cat([&] {
      std::vector<torch::Tensor> l;
      for (auto& r : out) l.push_back(r.labels);
      return l;
    }());
    const auto masks =
        torch::sigmoid(logits.index({torch::arange(total, labels.options()), labels}));
    int64_t s = 0;
    for (auto& r : out) {
      r.masks = masks.slice(0, s, s + r.boxes.size(0));
      s += r.boxes.size(0);
    }
  } else {
    for (auto& r : out) r.masks = torch::zeros({0, m, m}, images.options());
  }
  return out;
}

int64_t MaskRcnnImpl::ForwardMacs(int64_t h, int64_t w, bool training, int64_t detections) const {
  const auto& o = options_;
  int64_t macs = trunk->ForwardMacs(h, w);
  auto sizes = StageSizes(o.trunk, h, w);
  const auto ch = StageChannels(o.trunk);
  const int64_t f = o.fpn_channels;
  for (size_t l = 0; l < sizes.size(); ++l) {
    const int64_t cells = sizes[l].first * sizes[l].second;
    macs += cells * ch[l] * f + cells * f * f * 9;
  }
  sizes.emplace_back(ConvOut(sizes[3].first, 1, 2, 0), ConvOut(sizes[3].second, 1, 2, 0));  // P6
  const int64_t a = static_cast<int64_t>(o.aspect_ratios.size());
  for (const auto& [sh, sw] : sizes) macs += sh * sw * (f * f * 9 + f * a + f * 4 * a);
  const int64_t r = o.representation_size, c = o.num_classes, mc = o.mask_head_channels;
  const int64_t box_per_roi = f * o.box_pool_size * o.box_pool_size * r + r * r + r * c + r * 4 * c;
  const int64_t ps = o.mask_pool_size;
  int64_t mask_per_roi = 0, in = f;
  for (int64_t i = 0; i < o.mask_head_convs; ++i) {
    mask_per_roi += ps * ps * in * mc * 9;
    in = mc;
  }
  mask_per_roi += ps * ps * in * mc * 4 + (2 * ps) * (2 * ps) * mc * c;
  const int64_t rois = training ? o.roi_batch_size_per_image : o.rpn_post_nms_top_n_test;
  const int64_t masks =
      training ? static_cast<int64_t>(o.roi_batch_size_per_image * o.roi_positive_fraction)
               : detections;
  return macs + rois * box_per_roi + masks * mask_per_roi;
}

std::vector<torch::Tensor> MakeFpnAnchors(
    const MaskRcnnOptions& o, const std::vector<std::pair<int64_t, int64_t>>& grid_sizes,
    const torch::TensorOptions& tensor_options) {
  TORCH_CHECK(grid_sizes.size() <= o.anchor_sizes.size(),
              "MakeFpnAnchors: more levels than anchor sizes");
  std::vector<torch::Tensor> out;
  for (size_t l = 0; l < grid_sizes.size(); ++l) {
    const double s = static_cast<double>(o.anchor_strides[l]);
    const double size = o.anchor_sizes[l];
    // generate_anchors: _ratio_enum on the stride x stride base box, then _scale_enum by size / s.
    std::vector<double> base;
    for (double ratio : o.aspect_ratios) {
      const double ws = std::nearbyint(std::sqrt(s * s / ratio));
      const double hs = std::nearbyint(ws * ratio);
      const double bw = ws * size / s, bh = hs * size / s;
      base.insert(base.end(), {s / 2 - bw / 2, s / 2 - bh / 2, s / 2 + bw / 2, s / 2 + bh / 2});
    }
    const auto base_t = torch::tensor(base, torch::kDouble).view({-1, 4}).to(tensor_options);
    const auto [rows, cols] = grid_sizes[l];
    const auto sx = torch::arange(cols, tensor_options) * s;
    const auto sy = torch::arange(rows, tensor_options) * s;
    const auto grid = torch::meshgrid({sy, sx}, "ij");
    const auto xx = grid[1].reshape({-1}), yy = grid[0].reshape({-1});
    const auto shifts = torch::stack({xx, yy, xx, yy}, 1);
    out.push_back((shifts.view({-1, 1, 4}) + base_t.view({1, -1, 4})).reshape({-1, 4}));
  }
  return out;
}

torch::Tensor AnchorsInsideImage(const torch::Tensor& anchors, int64_t height, int64_t width,
                                 double straddle_thresh) {
  const double t = straddle_thresh;
  return (anchors.select(1, 0) >= -t) & (anchors.select(1, 1) >= -t) &
         (anchors.select(1, 2) <= static_cast<double>(width) + t) &
         (anchors.select(1, 3) <= static_cast<double>(height) + t);
}

torch::Tensor MatchBoxes(const torch::Tensor& iou, double high, double low,
                         bool allow_low_quality) {
  TORCH_CHECK(iou.dim() == 2 && iou.size(0) > 0, "MatchBoxes: iou must be [G, P] with G > 0");
  auto [vals, matches] = iou.max(0);
  const auto all_matches = matches.clone();
  matches.masked_fill_(vals < low, kBelowLowThreshold);
  matches.masked_fill_((vals >= low) & (vals < high), kBetweenThresholds);
  if (allow_low_quality && iou.size(1) > 0) {
    const auto highest = std::get<0>(iou.max(1));
    const auto pred = torch::where(iou == highest.unsqueeze(1))[1];
    matches.index_put_({pred}, all_matches.index_select(0, pred));
  }
  return matches;
}

RpnAnchorTargets RpnAnchorLabels(const torch::Tensor& anchors, const torch::Tensor& gt_boxes,
                                 int64_t height, int64_t width, const MaskRcnnOptions& o) {
  RpnAnchorTargets t;
  const auto visible = AnchorsInsideImage(anchors, height, width, o.straddle_thresh);
  if (gt_boxes.size(0) == 0) {
    t.labels = torch::zeros({anchors.size(0)}, anchors.options());
    t.matched = torch::zeros({anchors.size(0)}, anchors.options().dtype(torch::kLong));
  } else {
    const auto m = MatchBoxes(vision::BoxIou(gt_boxes.to(anchors.options()), anchors), o.rpn_fg_iou,
                              o.rpn_bg_iou, /*allow_low_quality=*/true);
    t.labels = (m >= 0).to(anchors.scalar_type());
    t.labels.masked_fill_(m == kBetweenThresholds, -1.0);
    t.matched = m.clamp_min(0);
  }
  t.labels.masked_fill_(visible.logical_not(), -1.0);
  return t;
}

std::pair<torch::Tensor, torch::Tensor> SampleFgBg(const torch::Tensor& labels, int64_t batch_size,
                                                   double positive_fraction, data::Rng& rng) {
  const auto l = labels.detach().to(torch::kCPU, torch::kDouble).contiguous();
  const double* p = l.data_ptr<double>();
  std::vector<int64_t> pos, neg;
  for (int64_t i = 0; i < l.numel(); ++i) {
    if (p[i] >= 1)
      pos.push_back(i);
    else if (p[i] == 0)
      neg.push_back(i);
  }
  const auto num_pos = std::min<int64_t>(static_cast<int64_t>(batch_size * positive_fraction),
                                         static_cast<int64_t>(pos.size()));
  const auto num_neg = std::min<int64_t>(batch_size - num_pos, static_cast<int64_t>(neg.size()));
  return {IndexTensor(Choose(std::move(pos), num_pos, rng)),
          IndexTensor(Choose(std::move(neg), num_neg, rng))};
}

torch::Tensor MaskRcnnRoiLevels(const torch::Tensor& boxes, const MaskRcnnOptions& o) {
  return vision::FpnLevels(boxes, 2, 5, o.roi_canonical_scale, o.roi_canonical_level);
}

torch::Tensor MaskRcnnMaskTargets(const torch::Tensor& gt_masks, const torch::Tensor& boxes,
                                  const torch::Tensor& matched, int64_t M) {
  const auto b = boxes.detach().to(torch::kFloat);
  if (b.size(0) == 0) return torch::zeros({0, M, M}, b.options());
  const auto rois = torch::cat({matched.to(b.options()).unsqueeze(1), b}, 1);
  vision::RoiAlignOptions ro;
  ro.output_h = ro.output_w = M;
  ro.spatial_scale = 1.0;
  ro.sampling_ratio = 2;
  ro.aligned = true;  // a sample at image point (x, y) reads the pixel that contains it
  const auto soft =
      vision::RoiAlignForward(gt_masks.unsqueeze(1).to(b.options()), rois, ro).select(1, 0);
  return (soft >= 0.5).to(b.scalar_type());
}

}  // namespace trainbench::models

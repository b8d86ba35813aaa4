// Mask R-CNN (MLPerf `maskrcnn`, the v0.5 reference: maskrcnn-benchmark's
// e2e_mask_rcnn_R_50_FPN_1x) in LibTorch:
// - the trunk: a ResNet (ResNet-50 at full scale, torchvision's parameter names under `trunk.`)
//   whose four stages give C2..C5 (strides 4, 8, 16, 32);
// - FPN (Lin et al.): 1x1 lateral convolutions fpn_inner1..4 and 3x3 output convolutions
//   fpn_layer1..4 (with bias, kaiming_uniform a = 1 as the reference's caffe2 "xavier"), nearest
//   top-down upsampling, P6 = P5 subsampled by 2 (the reference's LastLevelMaxPool);
// - RPN: one 3x3 convolution + ReLU shared by the levels, 1x1 objectness (A per cell) and box
//   deltas (4 A), normal(0, 0.01); anchors as the reference's generate_anchors (one size per
//   level, aspect ratios 0.5, 1, 2, the legacy rounding), label assignment by IoU 0.7 / 0.3 with
//   low-quality matches, anchors crossing the image border ignored (straddle_thresh 0), 256 sampled
//   anchors per image at most half positive; proposals: per level the pre-NMS top n, decoded,
//   clipped, NMS 0.7 per level, the post-NMS top n of the image over all levels;
// - box head: MultiScaleRoIAlign 7x7 (sampling 2) over P2..P5, fc6 / fc7 (1024, ReLU),
//   cls_score normal(0, 0.01) and class-specific bbox_pred normal(0, 0.001); proposals matched at
//   IoU 0.5 (ground truth added to the proposals), 512 sampled RoIs per image, 25% positive,
//   box coder weights (10, 10, 5, 5);
// - mask head: MultiScaleRoIAlign 14x14 over P2..P5, mask_fcn1..4 (3x3, 256, ReLU), conv5_mask
//   (2x2 stride-2 transposed convolution + ReLU), mask_fcn_logits (1x1 to num_classes): 28x28
//   logits per class, kaiming_normal fan_out; trained on the positive RoIs.
// Losses as the reference (see Losses()); inference as its box and mask post-processors
// (softmax, score > 0.05, per-class NMS 0.5, 100 detections, sigmoid masks of the predicted
// class; pasting into the image is left to vision::PasteMasksInImage).
//
// Boxes are xyxy in image pixels, continuous coordinates without the legacy "+1" (see
// docs/vision_ops.md). Images are a padded batch [N, 3, H, W] with each image's true size.
// Mixed precision: under a caller's LibTorch autocast scope the convolutions and fc layers run in
// its dtype (bf16, fp16) from the fp32 weights; the network's outputs (RPN logits and deltas, the
// box head's, the mask logits) and the features RoIAlign reads are cast to fp32, so anchors, box
// coding, matching, sampling, NMS, RoIAlign and the losses are fp32 whatever the scope.
// Device-agnostic: the module lives wherever .to(device) puts it; NMS and RoIAlign run through
// src/vision's CPU kernels (which copy other devices' tensors). Sampling draws from a data::Rng
// passed in, so a seed gives the same losses on every run and thread count.
#pragma once

#include <torch/torch.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "data/random.h"
#include "models/resnet.h"

namespace trainbench::models {

struct MaskRcnnOptions {
  int64_t num_classes = 81;  // background included (COCO: 80 + 1)
  ResNetOptions trunk;       // classifier(false), four stages: C2..C5
  // true: the trunk's BatchNorm layers stay in eval mode with frozen affine parameters (the
  // reference's FrozenBatchNorm2d, meant for a pretrained trunk); false: ordinary BatchNorm.
  bool freeze_trunk_bn = false;
  int64_t fpn_channels = 256;

  // Anchors: one size per level P2..P6 of the given strides, each with every aspect ratio (h / w).
  std::vector<double> anchor_sizes = {32, 64, 128, 256, 512};
  std::vector<int64_t> anchor_strides = {4, 8, 16, 32, 64};
  std::vector<double> aspect_ratios = {0.5, 1.0, 2.0};
  // Anchors crossing the image border by more than this (pixels) get no RPN label.
  double straddle_thresh = 0.0;

  // RPN.
  double rpn_fg_iou = 0.7;
  double rpn_bg_iou = 0.3;
  int64_t rpn_batch_size_per_image = 256;
  double rpn_positive_fraction = 0.5;
  int64_t rpn_pre_nms_top_n_train = 2000;  // per level and image
  int64_t rpn_pre_nms_top_n_test = 1000;
  int64_t rpn_post_nms_top_n_train = 2000;  // per image over all levels
  int64_t rpn_post_nms_top_n_test = 1000;
  double rpn_nms_thresh = 0.7;
  double rpn_min_size = 0.0;
  double rpn_smooth_l1_beta = 1.0 / 9.0;

  // RoI heads.
  double roi_fg_iou = 0.5;  // positive at IoU >= this, background below roi_bg_iou
  double roi_bg_iou = 0.5;
  int64_t roi_batch_size_per_image = 512;
  double roi_positive_fraction = 0.25;
  // FPN level of a RoI: floor(canonical_level + log2(sqrt(area) / canonical_scale)), in [2, 5].
  double roi_canonical_scale = 224.0;
  int64_t roi_canonical_level = 4;
  int64_t box_pool_size = 7;
  int64_t mask_pool_size = 14;
  int64_t pool_sampling_ratio = 2;
  int64_t representation_size = 1024;  // fc6 / fc7
  int64_t mask_head_channels = 256;    // mask_fcn1..4 and conv5_mask
  int64_t mask_head_convs = 4;
};

// The reference: ResNet-50 trunk (bottleneck blocks 3, 4, 6, 3, widths 64..512), FPN 256, the
// defaults above. 44,347,573 trainable parameters for 81 classes outside the trunk's BatchNorm
// affine parameters (which the reference freezes as buffers), as maskrcnn-benchmark.
MaskRcnnOptions MaskRcnnR50FpnOptions(int64_t num_classes = 81);

// The mini Mask R-CNN for image_size x image_size images: a ResNet of `blocks` basic blocks per
// stage, widths w, 2w, 4w, 8w after the 7x7/2 stem and max pool (C2..C5 at strides 4..32), FPN of
// fpn_channels, fc layers of 4 fpn_channels, mask head of fpn_channels. Lengths scale with
// s = image_size / 512: anchors 32 s .. 512 s (8, 16, 32, 64, 128 for 128-pixel images, the
// objects of the shapes dataset being 5 to 58 pixels) and the canonical RoI scale 224 s (56), so
// anchors, RoIs and levels keep the reference's relation. Sampling counts and thresholds as the
// reference.
MaskRcnnOptions MiniMaskRcnnOptions(int64_t num_classes, int64_t image_size, int64_t width = 16,
                                    int64_t blocks = 1, int64_t fpn_channels = 64);

struct MaskRcnnTarget {
  torch::Tensor boxes;   // [K, 4] xyxy pixels, float
  torch::Tensor labels;  // [K] int64, 1..num_classes-1
  torch::Tensor masks;   // [K, H, W] uint8 (0 / 1), the image's full-size instance masks
};

struct MaskRcnnDetectOptions {
  double score_thresh = 0.05;
  double nms_thresh = 0.5;  // per class; IoU > this suppresses (vision::Nms)
  int64_t detections_per_img = 100;
};

struct MaskRcnnDetections {
  torch::Tensor boxes;   // [D, 4] xyxy pixels, clipped to the image
  torch::Tensor scores;  // [D], descending
  torch::Tensor labels;  // [D] int64, 1..num_classes-1
  torch::Tensor masks;   // [D, 28, 28] probabilities of the predicted class over its box
};

// (height, width) of each image of a padded batch.
using ImageSizes = std::vector<std::pair<int64_t, int64_t>>;

class MaskRcnnImpl : public torch::nn::Module {
 public:
  explicit MaskRcnnImpl(const MaskRcnnOptions& options);

  // The training losses of a batch (call in train mode): loss_objectness (BCE with logits over
  // the sampled anchors), loss_rpn_box_reg (smooth L1, beta 1/9, over the positive anchors,
  // divided by the sampled anchors), loss_classifier (cross-entropy over the sampled RoIs),
  // loss_box_reg (smooth L1, beta 1, over the ground-truth class's 4 outputs of the positive
  // RoIs, divided by the sampled RoIs), loss_mask (BCE with logits of the ground-truth class's
  // 28x28 logits of the positive RoIs against the matched mask resampled into the RoI, mean).
  // The batch's anchors and RoIs are pooled before dividing, as the reference. Scalars.
  std::map<std::string, torch::Tensor> Losses(const torch::Tensor& images, const ImageSizes& sizes,
                                              const std::vector<MaskRcnnTarget>& targets,
                                              data::Rng& rng);

  // Inference (no gradients; call in eval mode): one MaskRcnnDetections per image.
  std::vector<MaskRcnnDetections> Detect(const torch::Tensor& images, const ImageSizes& sizes,
                                         const MaskRcnnDetectOptions& options = {});

  // P2..P6 of the FPN for images [N, 3, H, W].
  std::vector<torch::Tensor> Features(const torch::Tensor& images);

  // Multiply-accumulates of one image's forward pass at h x w: trunk, FPN, RPN head on P2..P6,
  // the box head on roi_batch_size_per_image RoIs and the mask head on its positive fraction
  // (training), or on rpn_post_nms_top_n_test proposals and `detections` masks (inference).
  int64_t ForwardMacs(int64_t h, int64_t w, bool training = true, int64_t detections = 100) const;

  const MaskRcnnOptions& options() const { return options_; }
  void train(bool on = true) override;

  ResNet trunk{nullptr};
  std::vector<torch::nn::Conv2d> fpn_inner, fpn_layer;
  torch::nn::Conv2d rpn_conv{nullptr}, rpn_cls_logits{nullptr}, rpn_bbox_pred{nullptr};
  torch::nn::Linear fc6{nullptr}, fc7{nullptr}, cls_score{nullptr}, bbox_pred{nullptr};
  std::vector<torch::nn::Conv2d> mask_fcn;
  torch::nn::ConvTranspose2d conv5_mask{nullptr};
  torch::nn::Conv2d mask_fcn_logits{nullptr};

 private:
  struct RpnOutput {
    torch::Tensor objectness;  // [N, A] logits over all levels
    torch::Tensor deltas;      // [N, A, 4]
    torch::Tensor anchors;     // [A, 4]
    torch::Tensor levels;      // [A] int64, 0 = P2
  };
  RpnOutput Rpn(const std::vector<torch::Tensor>& features);
  std::vector<torch::Tensor> Proposals(const RpnOutput& rpn, const ImageSizes& sizes,
                                       int64_t pre_nms_top_n, int64_t post_nms_top_n,
                                       std::vector<torch::Tensor>* scores = nullptr);
  // The heads read P2..P5 in fp32 (RoiFeatures in mask_rcnn.cc).
  std::pair<torch::Tensor, torch::Tensor> BoxHead(const std::vector<torch::Tensor>& features,
                                                  const torch::Tensor& rois);
  torch::Tensor MaskHead(const std::vector<torch::Tensor>& features, const torch::Tensor& rois);

  MaskRcnnOptions options_;
};
TORCH_MODULE(MaskRcnn);

// --- The pieces, exposed for tests and the workload -------------------------------------------

// Anchors of each level for feature maps of the given (rows, cols), as maskrcnn-benchmark's
// AnchorGenerator: per cell (row-major), per aspect ratio; centred at ((j + 0.5) s, (i + 0.5) s)
// for stride s; the legacy generate_anchors sizes: w = round(sqrt(s^2 / r)) size / s,
// h = round(w' r) size / s with w' = round(sqrt(s^2 / r)) (round half to even, as numpy).
std::vector<torch::Tensor> MakeFpnAnchors(
    const MaskRcnnOptions& options, const std::vector<std::pair<int64_t, int64_t>>& grid_sizes,
    const torch::TensorOptions& tensor_options = {});

// [A] bool: anchors inside the height x width image up to straddle_thresh (the reference's
// visibility; x2 <= width + t rather than the legacy x2 < width + t, the "+1" convention).
torch::Tensor AnchorsInsideImage(const torch::Tensor& anchors, int64_t height, int64_t width,
                                 double straddle_thresh = 0.0);

// The reference's Matcher on a quality matrix iou [G, P]: [P] int64, the best ground truth of
// each prediction, -1 below low, -2 in [low, high); with allow_low_quality each ground truth's
// best predictions (ties included) keep their best match whatever its IoU.
inline constexpr int64_t kBelowLowThreshold = -1;
inline constexpr int64_t kBetweenThresholds = -2;
torch::Tensor MatchBoxes(const torch::Tensor& iou, double high, double low, bool allow_low_quality);

struct RpnAnchorTargets {
  torch::Tensor labels;  // [A] float: 1 positive, 0 negative, -1 ignored
  torch::Tensor
      matched;  // [A] int64 ground-truth index (clamped to >= 0; meaningful for positives)
};
// RPN labels of anchors [A, 4] for one image's gt_boxes [G, 4] (G may be 0: all negative).
RpnAnchorTargets RpnAnchorLabels(const torch::Tensor& anchors, const torch::Tensor& gt_boxes,
                                 int64_t height, int64_t width, const MaskRcnnOptions& options);

// BalancedPositiveNegativeSampler for one image: labels [P] (>= 1 positive, 0 negative, < 0
// ignored); at most batch_size * positive_fraction positives, negatives filling up to batch_size,
// each drawn uniformly without replacement from rng. int64 indices (CPU) {positives, negatives}.
std::pair<torch::Tensor, torch::Tensor> SampleFgBg(const torch::Tensor& labels, int64_t batch_size,
                                                   double positive_fraction, data::Rng& rng);

// FPN levels (2..5) of RoI boxes [K, 4] for the options' canonical scale and level
// (vision::FpnLevels).
torch::Tensor MaskRcnnRoiLevels(const torch::Tensor& boxes, const MaskRcnnOptions& options);

// Mask-head targets [P, M, M] float 0 / 1: gt_masks[matched[i]] resampled into boxes[i] by
// RoIAlign (aligned: samples at pixel centres, sampling 2) and thresholded at 0.5, the binary
// equivalent of the reference's polygon crop + resize + rasterisation.
torch::Tensor MaskRcnnMaskTargets(const torch::Tensor& gt_masks, const torch::Tensor& boxes,
                                  const torch::Tensor& matched, int64_t M = 28);

}  // namespace trainbench::models

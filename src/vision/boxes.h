// Box operations on tensors that LibTorch lacks, with torchvision's semantics
// (torchvision/ops/boxes.py and the BoxCoder of torchvision/models/detection/_utils.py):
// format conversion, areas, pairwise IoU, clipping, removal of small boxes, and the encoding of
// regression targets of SSD, the RPN and the Mask R-CNN box head.
//
// Boxes are [N, 4] floating tensors; xyxy = (x1, y1, x2, y2) with x2 >= x1, y2 >= y1 in
// continuous image coordinates (a pixel (r, c) covers [c, c + 1) x [r, r + 1)); no "+1" in
// widths (torchvision's convention, not Detectron's legacy TO_REMOVE = 1). Every function here is
// built from tensor operations: it runs on the device of its inputs (CPU or CUDA), keeps their
// dtype and is differentiable where the operation is. Thread-safe (no state).
#pragma once

#include <torch/torch.h>

#include <array>
#include <cmath>

namespace trainbench::vision {

enum class BoxFormat {
  kXyxy,    // (x1, y1, x2, y2)
  kXywh,    // (x1, y1, w, h): COCO annotations
  kCxcywh,  // (cx, cy, w, h): SSD's "xywh", DETR
};

// boxes [..., 4] from one format to another (torchvision box_convert).
torch::Tensor ConvertBoxes(const torch::Tensor& boxes, BoxFormat from, BoxFormat to);

// [N] areas (x2 - x1) * (y2 - y1) of xyxy boxes [N, 4].
torch::Tensor BoxArea(const torch::Tensor& boxes);

// [N, M] intersection over union of xyxy boxes [N, 4] and [M, 4] (torchvision box_iou): the
// intersection is clamped at 0; two empty boxes give 0 / 0 = NaN, as torchvision.
torch::Tensor BoxIou(const torch::Tensor& boxes1, const torch::Tensor& boxes2);

// xyxy boxes [..., 4] with x clamped to [0, width] and y to [0, height]
// (torchvision clip_boxes_to_image).
torch::Tensor ClipBoxesToImage(const torch::Tensor& boxes, int64_t height, int64_t width);

// [K] int64 indices (ascending) of the xyxy boxes whose width and height are both >= min_size
// (torchvision remove_small_boxes).
torch::Tensor RemoveSmallBoxes(const torch::Tensor& boxes, double min_size);

// Regression weights (wx, wy, ww, wh) of the detectors. SSD's scale_xy = 0.1, scale_wh = 0.2
// are the weights 10, 10, 5, 5.
inline constexpr std::array<double, 4> kSsdBoxWeights = {10.0, 10.0, 5.0, 5.0};
inline constexpr std::array<double, 4> kRpnBoxWeights = {1.0, 1.0, 1.0, 1.0};
inline constexpr std::array<double, 4> kMaskRcnnBoxHeadWeights = {10.0, 10.0, 5.0, 5.0};

// log(1000 / 16): the largest dw, dh Decode lets through (torchvision's bbox_xform_clip), so a
// wild prediction cannot overflow exp().
inline const double kBoxXformClip = std::log(1000.0 / 16.0);

// The encoding of box regression targets relative to reference boxes (anchors, proposals,
// default boxes), as torchvision's BoxCoder:
//   dx = wx (gx - px) / pw,  dy = wy (gy - py) / ph,  dw = ww log(gw / pw),  dh = wh log(gh / ph)
// with (px, py, pw, ph) the centre and size of the reference box and (gx, gy, gw, gh) those of the
// target box. Decode inverts it, clamping dw / ww and dh / wh at `clip` first.
class BoxCoder {
 public:
  explicit BoxCoder(std::array<double, 4> weights, double clip = kBoxXformClip)
      : weights_(weights), clip_(clip) {}

  // [N, 4] codes of xyxy `boxes` [N, 4] relative to xyxy `reference` [N, 4] (row i to row i;
  // torchvision encode_single(reference_boxes=boxes, proposals=reference)).
  torch::Tensor Encode(const torch::Tensor& boxes, const torch::Tensor& reference) const;

  // xyxy boxes [N, 4 K] from codes [N, 4 K] (K boxes per reference box, e.g. one per class)
  // relative to xyxy `reference` [N, 4] (torchvision decode_single). The result has the codes'
  // dtype.
  torch::Tensor Decode(const torch::Tensor& codes, const torch::Tensor& reference) const;

  const std::array<double, 4>& weights() const { return weights_; }
  double clip() const { return clip_; }

 private:
  std::array<double, 4> weights_;
  double clip_;
};

}  // namespace trainbench::vision

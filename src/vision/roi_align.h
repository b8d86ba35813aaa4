// RoIAlign (He et al., Mask R-CNN) forward and backward, exactly as torchvision.ops.roi_align,
// and the FPN level assignment and multi-scale pooling of torchvision's MultiScaleRoIAlign.
//
// Semantics (torchvision's CPU kernel): a RoI (x1, y1, x2, y2) in image coordinates is scaled by
// spatial_scale (and shifted by -0.5 when aligned, so that pixel centres sit at integer + 0.5);
// without `aligned` its width and height are raised to at least 1. It is divided into
// output_h x output_w bins; each bin averages grid_h x grid_w regularly spaced samples
// (sampling_ratio per side, or ceil(roi size / output size) per side when sampling_ratio <= 0).
// A sample outside [-1, H] x [-1, W] contributes 0; otherwise its coordinates are clamped into
// the map and it is interpolated bilinearly from the four neighbouring cells.
//
// Device handling: forward and backward are CPU kernels (float and double; parallel over RoIs
// in the forward and over channels in the backward with at::parallel_for, so the result does not
// depend on the thread count). Inputs on another device (CUDA) are copied to the CPU, computed
// there and copied back: correct but slow; a native CUDA kernel is future work.
#pragma once

#include <torch/torch.h>

#include <vector>

namespace trainbench::vision {

struct RoiAlignOptions {
  int64_t output_h = 7;
  int64_t output_w = 7;
  double spatial_scale = 1.0;   // feature-map cells per image pixel (1/16 for a stride-16 map)
  int64_t sampling_ratio = -1;  // samples per bin side; <= 0: adaptive, ceil(roi size / output)
  bool aligned = false;         // the -0.5 pixel shift (Detectron2's ROIAlignV2)
};

// [K, C, output_h, output_w] pooled features of `input` [N, C, H, W] (float or double) over
// `rois` [K, 5] = (batch index, x1, y1, x2, y2) in image coordinates. Differentiable with respect
// to `input` (a torch::autograd::Function; the backward is the exact adjoint, itself not
// differentiable again); `rois` gets no gradient.
torch::Tensor RoiAlign(const torch::Tensor& input, const torch::Tensor& rois,
                       const RoiAlignOptions& options);

// The raw kernels, without autograd: the forward, and the gradient of the input
// [batch, channels, height, width] given the gradient of the output [K, C, output_h, output_w].
torch::Tensor RoiAlignForward(const torch::Tensor& input, const torch::Tensor& rois,
                              const RoiAlignOptions& options);
torch::Tensor RoiAlignBackward(const torch::Tensor& grad_output, const torch::Tensor& rois,
                               const RoiAlignOptions& options, int64_t batch, int64_t channels,
                               int64_t height, int64_t width);

// [K, 5] rois from per-image xyxy boxes (image i's rows get batch index i), as torchvision's
// convert_boxes_to_roi_format.
torch::Tensor BoxesToRois(const std::vector<torch::Tensor>& boxes);

// FPN level of each xyxy box [K, 4] (Lin et al., eq. 1; torchvision LevelMapper):
//   k = floor(canonical_level + log2(sqrt(area) / canonical_scale) + 1e-6), clamped to
//   [k_min, k_max]. [K] int64 levels (not offset by k_min).
torch::Tensor FpnLevels(const torch::Tensor& boxes, int64_t k_min = 2, int64_t k_max = 5,
                        double canonical_scale = 224.0, int64_t canonical_level = 4);

// MultiScaleRoIAlign: `features[l]` is the map of FPN level k_min + l, of stride 2^(k_min + l)
// (spatial_scale 2^-(k_min + l); options.spatial_scale is ignored). Each RoI is pooled from the
// level FpnLevels assigns to its box (k_max = k_min + features.size() - 1). [K, C, oh, ow],
// differentiable with respect to every feature map. torchvision uses sampling_ratio = 2 and
// aligned = false here (output 7 for the box head, 14 for the mask head). canonical_scale and
// canonical_level are FpnLevels' (a model for smaller images scales the first).
torch::Tensor MultiScaleRoiAlign(const std::vector<torch::Tensor>& features,
                                 const torch::Tensor& rois, const RoiAlignOptions& options,
                                 int64_t k_min = 2, double canonical_scale = 224.0,
                                 int64_t canonical_level = 4);

}  // namespace trainbench::vision

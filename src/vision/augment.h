// Detection augmentation that keeps an image, its boxes and its instance masks consistent:
// SSD's IoU-constrained random crop (the MLPerf SSD reference's SSDCropping), horizontal flip and
// resize.
//
// Coordinates: boxes are xyxy in pixels of the image they belong to, continuous (a pixel (r, c)
// covers [c, c + 1) x [r, r + 1)), so a mask that is a filled rectangle of rows [y0, y1) and
// columns [x0, x1) has the box (x0, y0, x1, y1), and every operation here maps that box to the box
// of the transformed mask. (The SSD reference keeps boxes in [0, 1] of the image; divide by the
// width and height, as models/ssd.h expects.)
//
// Randomness comes only from the data::Rng passed in (one per sample, e.g. data::SampleRng(seed,
// epoch, index)); torch's global generator is never used, so a sample's augmentation is the same
// on every thread and rank. Functions are pure (inputs are not modified) and thread-safe. Tensors
// may be on any device; the crop's decisions are made on the CPU.
#pragma once

#include <torch/torch.h>

#include <limits>
#include <vector>

#include "data/random.h"

namespace trainbench::vision {

// One image with its annotations.
struct DetectionSample {
  torch::Tensor image;   // [C, H, W], float or uint8
  torch::Tensor boxes;   // [N, 4] floating, xyxy in pixels
  torch::Tensor labels;  // [N] int64
  torch::Tensor masks;   // [N, H, W] uint8 instance masks, or undefined (no masks)

  int64_t height() const { return image.size(-2); }
  int64_t width() const { return image.size(-1); }
};

// One choice of the crop: keep the original image, or crop with every box's IoU with the crop
// window in (min_iou, max_iou).
struct SsdCropMode {
  bool crop = true;
  double min_iou = -std::numeric_limits<double>::infinity();
  double max_iou = std::numeric_limits<double>::infinity();
};

// The reference's seven modes, drawn uniformly: original, min IoU 0.1, 0.3, 0.5, 0.7, 0.9, and
// unconstrained.
std::vector<SsdCropMode> SsdCropModes();

struct SsdCropOptions {
  std::vector<SsdCropMode> modes = SsdCropModes();
  // Crop windows tried per drawn mode before a new mode is drawn. The MLPerf v0.5 reference
  // tries 1 (its `for _ in range(1)` under a comment that says 50, Caffe SSD's max_trials).
  int attempts = 1;
  double min_scale = 0.3;  // crop width and height, as fractions of the image's, in [min, max)
  double max_scale = 1.0;
  double min_aspect = 0.5;  // crop width / height (fractions) must be in [min_aspect, max_aspect]
  double max_aspect = 2.0;
  // The reference loops until a mode succeeds (the original mode always does). After this many
  // mode draws without success the original is returned, so modes without `crop = false` and an
  // image without boxes cannot loop forever.
  int max_draws = 1000;
};

// What SsdRandomCrop did (for tests and logs).
struct SsdCropInfo {
  SsdCropMode mode;                                 // the mode that produced the result
  bool cropped = false;                             // false: the original sample was returned
  int draws = 0;                                    // modes drawn
  double left = 0, top = 0, right = 1, bottom = 1;  // the window, fractions of the image
  int64_t x0 = 0, y0 = 0, x1 = 0, y1 = 0;           // the window in pixels: [x0, x1) x [y0, y1)
};

// SSD's random crop, as the MLPerf SSD reference (ssd/utils.py SSDCropping): draw a mode; for
// each attempt draw w, h ~ U[min_scale, max_scale) (fractions), reject unless min_aspect <= w / h
// <= max_aspect, draw left ~ U[0, 1 - w), top ~ U[0, 1 - h); accept when every box's IoU with
// the window (in fractions of the image) is in (min_iou, max_iou) and at least one box centre is
// strictly inside the window. Then keep the boxes (labels, masks) whose centre is inside, crop
// the image (and masks) to the pixel window x0 = int(left W), x1 = int(right W), y0 = int(top H),
// y1 = int(bottom H), and clip the kept boxes to that window and shift them into it. The
// reference clips to the fractional window instead; the two differ by less than a pixel, and the
// pixel window keeps boxes and masks exactly consistent.
DetectionSample SsdRandomCrop(const DetectionSample& sample, data::Rng& rng,
                              const SsdCropOptions& options = {}, SsdCropInfo* info = nullptr);

// Mirror left-right: the image and masks along their last axis, boxes x -> width - x (x1 and x2
// swap roles), as the reference's RandomHorizontalFlip and torchvision's detection transforms.
DetectionSample HorizontalFlip(const DetectionSample& sample);

// HorizontalFlip with probability p (one rng.Uniform() draw), else the sample unchanged.
DetectionSample RandomHorizontalFlip(const DetectionSample& sample, data::Rng& rng, double p = 0.5);

// Mirrors COCO polygons (per polygon [x1, y1, x2, y2, ...] in pixels) left-right: x -> width - x.
std::vector<std::vector<float>> FlipPolygons(const std::vector<std::vector<float>>& polygons,
                                             double width);

// Resizes to height x width: the image bilinearly (align_corners = false; uint8 images are
// rounded and saturated back to uint8), masks by nearest neighbour, boxes scaled by
// (width / W, height / H).
DetectionSample Resize(const DetectionSample& sample, int64_t height, int64_t width);

}  // namespace trainbench::vision

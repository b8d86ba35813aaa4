// Image transforms on HWC uint8 images, following torchvision's definitions:
// RandomResizedCrop, RandomHorizontalFlip, Resize(shorter side) + CenterCrop, RandomCrop with
// zero padding, and ToTensor + Normalize into float CHW.
//
// Resampling is bilinear with half-pixel centres (align_corners=False) and no antialiasing,
// like torch.nn.functional.interpolate; a 1:1 resample is an exact copy.
// Randomness comes only from the Rng passed in, consumed in a documented order, so a transform
// is a pure function of (image, rng state). Pixel sizes are in pixels; boxes are (top, left,
// height, width) in the source image. Functions return new images (value semantics) unless
// they take an Image*; all are reentrant.
#pragma once

#include <utility>
#include <vector>

#include "data/image.h"
#include "data/random.h"

namespace trainbench::data {

struct CropBox {
  int top = 0;
  int left = 0;
  int height = 0;
  int width = 0;
};

struct RandomResizedCropOptions {
  double min_scale = 0.08;  // fraction of the image area
  double max_scale = 1.0;
  double min_ratio = 3.0 / 4.0;  // width / height
  double max_ratio = 4.0 / 3.0;
  int attempts = 10;
};

// torchvision RandomResizedCrop.get_params: up to `attempts` draws of (area fraction uniform in
// [min_scale, max_scale], log-ratio uniform in [log min_ratio, log max_ratio]; then top, then
// left); the first box that fits wins. Otherwise the central crop with the ratio clamped.
// Rounding is Python's round (half to even).
CropBox RandomResizedCropBox(int height, int width, Rng& rng,
                             const RandomResizedCropOptions& options = {});

// Bilinear resample of `box` of src to out_height x out_width.
Image ResizedCrop(const Image& src, const CropBox& box, int out_height, int out_width);

// The general form: resamples `box` of src to a virtual virtual_height x virtual_width image and
// returns its window at (top, left) of size out_height x out_width, computing only that window.
Image ResampleWindow(const Image& src, const CropBox& box, int virtual_height, int virtual_width,
                     int top, int left, int out_height, int out_width);

// RandomResizedCropBox + ResizedCrop to size x size.
Image RandomResizedCrop(const Image& src, int size, Rng& rng,
                        const RandomResizedCropOptions& options = {});

// Mirrors left-right in place.
void FlipHorizontal(Image* image);

// torchvision RandomHorizontalFlip: flips when rng.Uniform() < p (one draw). Returns whether
// it flipped.
bool RandomFlipHorizontal(Image* image, Rng& rng, double p = 0.5);

// torchvision Resize(size) with an int: the shorter side becomes `size`, the longer side
// int(size * long / short) (truncated). Returns {height, width}.
std::pair<int, int> ShorterSideResizeDims(int height, int width, int size);
Image ResizeShorterSide(const Image& src, int size);

// torchvision CenterCrop: top = int(round((height - crop_height) / 2)), same for left; when the
// crop is larger than the image the outside is zero (torchvision pads).
CropBox CenterCropBox(int height, int width, int crop_height, int crop_width);
Image CenterCrop(const Image& src, int crop_height, int crop_width);

// ResizeShorterSide(resize_size) then CenterCrop(crop_size), fused (computes only the crop).
Image ResizeShorterSideCenterCrop(const Image& src, int resize_size, int crop_size);

// Copies the out_height x out_width window at (top, left); pixels outside src are zero.
// top/left may be negative.
Image CropZeroFill(const Image& src, int top, int left, int out_height, int out_width);

// torchvision RandomCrop(size, padding): zero-pads by `padding` on every side, then draws the
// top in [0, H + 2*padding - out_height], then the left likewise, and crops.
Image RandomCropWithPadding(const Image& src, int out_height, int out_width, int padding, Rng& rng);

// ToTensor + Normalize: out[c][y][x] = (pixel / 255 - mean[c]) / std[c], float CHW.
// mean/std need image.channels entries; out must hold channels*height*width floats.
void ToFloatChw(const Image& image, const float* mean, const float* std, float* out);
std::vector<float> ToFloatChw(const Image& image, const std::vector<float>& mean,
                              const std::vector<float>& std);

}  // namespace trainbench::data

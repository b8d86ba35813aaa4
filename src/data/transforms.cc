#include "data/transforms.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>

#include "core/error.h"

namespace trainbench::data {
namespace {

// Python's round(): half to even (the default floating-point rounding mode).
int PyRound(double v) { return static_cast<int>(std::nearbyint(v)); }

// Source sampling positions of one axis: for output i, lo/hi source indices (already
// multiplied by `step`) and the weight of hi.
struct AxisTaps {
  std::vector<int> lo;
  std::vector<int> hi;
  std::vector<float> w;
};

AxisTaps ComputeTaps(int box_start, int box_size, int virtual_size, int window_start,
                     int window_size, int step) {
  AxisTaps t;
  t.lo.resize(window_size);
  t.hi.resize(window_size);
  t.w.resize(window_size);
  const float scale = static_cast<float>(box_size) / static_cast<float>(virtual_size);
  for (int i = 0; i < window_size; ++i) {
    float src = (static_cast<float>(i + window_start) + 0.5f) * scale - 0.5f;
    if (src < 0.f) src = 0.f;
    int i0 = static_cast<int>(src);
    if (i0 > box_size - 1) i0 = box_size - 1;
    const int i1 = std::min(i0 + 1, box_size - 1);
    const float lambda = std::min(src - static_cast<float>(i0), 1.f);
    t.lo[i] = (box_start + i0) * step;
    t.hi[i] = (box_start + i1) * step;
    t.w[i] = lambda;
  }
  return t;
}

// Separable bilinear: each needed source row is interpolated horizontally once into a float
// row (two cached, since consecutive output rows share source rows), then each output row is a
// contiguous, vectorisable vertical lerp of two such rows. Values are convex combinations of
// bytes, so they stay within [0, 255] (up to float rounding) and need no clamp.
template <int C>
class SeparableResampler {
 public:
  SeparableResampler(const Image& src, const AxisTaps& xs, int out_width)
      : src_(src), xs_(xs), n_(static_cast<size_t>(out_width) * C), buf_(2 * n_) {}

  void Run(const AxisTaps& ys, Image* out) {
    for (int y = 0; y < out->height; ++y) {
      const int lo = ys.lo[y];
      const int hi = ys.hi[y];
      const float* __restrict a = Row(lo, hi);
      const float* __restrict b = Row(hi, lo);
      const float wy = ys.w[y];
      uint8_t* __restrict o = out->row(y);
      for (size_t i = 0; i < n_; ++i) {
        // Values are >= 0 (up to rounding), so +0.5 and truncation rounds to nearest; it keeps
        // the loop vectorisable, unlike lround.
        const float v = a[i] + wy * (b[i] - a[i]) + 0.5f;
        o[i] = static_cast<uint8_t>(static_cast<int>(v));
      }
    }
  }

 private:
  // The horizontally interpolated source row r, computing it if needed into the slot that does
  // not hold row `keep`.
  const float* Row(int r, int keep) {
    for (int s = 0; s < 2; ++s) {
      if (row_id_[s] == r) return buf_.data() + s * n_;
    }
    const int s = row_id_[0] == keep ? 1 : 0;
    row_id_[s] = r;
    float* __restrict dst = buf_.data() + s * n_;
    const uint8_t* __restrict row = src_.row(r);
    const int out_width = static_cast<int>(n_ / C);
    for (int x = 0; x < out_width; ++x) {
      const uint8_t* p0 = row + xs_.lo[x];
      const uint8_t* p1 = row + xs_.hi[x];
      const float w = xs_.w[x];
      for (int k = 0; k < C; ++k) {
        const auto v0 = static_cast<float>(p0[k]);
        dst[x * C + k] = v0 + w * (static_cast<float>(p1[k]) - v0);
      }
    }
    return dst;
  }

  const Image& src_;
  const AxisTaps& xs_;
  size_t n_;
  std::vector<float> buf_;
  int row_id_[2] = {-1, -1};
};

}  // namespace

CropBox RandomResizedCropBox(int height, int width, Rng& rng,
                             const RandomResizedCropOptions& options) {
  const double area = static_cast<double>(height) * width;
  const double log_min = std::log(options.min_ratio);
  const double log_max = std::log(options.max_ratio);
  for (int attempt = 0; attempt < options.attempts; ++attempt) {
    const double target_area = area * rng.Uniform(options.min_scale, options.max_scale);
    const double aspect = std::exp(rng.Uniform(log_min, log_max));
    const int w = PyRound(std::sqrt(target_area * aspect));
    const int h = PyRound(std::sqrt(target_area / aspect));
    if (w > 0 && w <= width && h > 0 && h <= height) {
      const int top = static_cast<int>(rng.UniformInt(0, height - h));
      const int left = static_cast<int>(rng.UniformInt(0, width - w));
      return {top, left, h, w};
    }
  }
  // Fallback: central crop.
  const double in_ratio = static_cast<double>(width) / height;
  int w = width;
  int h = height;
  if (in_ratio < options.min_ratio) {
    h = PyRound(w / options.min_ratio);
  } else if (in_ratio > options.max_ratio) {
    w = PyRound(h * options.max_ratio);
  }
  return {(height - h) / 2, (width - w) / 2, h, w};
}

Image ResampleWindow(const Image& src, const CropBox& box, int virtual_height, int virtual_width,
                     int top, int left, int out_height, int out_width) {
  TB_CHECK(box.height > 0 && box.width > 0 && box.top >= 0 && box.left >= 0 &&
               box.top + box.height <= src.height && box.left + box.width <= src.width,
           "ResampleWindow: box (" << box.top << "," << box.left << "," << box.height << ","
                                   << box.width << ") outside " << src.height << "x" << src.width);
  TB_CHECK(out_height > 0 && out_width > 0 && virtual_height > 0 && virtual_width > 0,
           "ResampleWindow: empty output");
  const int c = src.channels;
  Image out(out_height, out_width, c);
  const AxisTaps ys = ComputeTaps(box.top, box.height, virtual_height, top, out_height, 1);
  const AxisTaps xs = ComputeTaps(box.left, box.width, virtual_width, left, out_width, c);
  switch (c) {
    case 1:
      SeparableResampler<1>(src, xs, out_width).Run(ys, &out);
      break;
    case 3:
      SeparableResampler<3>(src, xs, out_width).Run(ys, &out);
      break;
    case 4:
      SeparableResampler<4>(src, xs, out_width).Run(ys, &out);
      break;
    default:
      TB_CHECK(false, "ResampleWindow: unsupported channel count " << c);
  }
  return out;
}

Image ResizedCrop(const Image& src, const CropBox& box, int out_height, int out_width) {
  return ResampleWindow(src, box, out_height, out_width, 0, 0, out_height, out_width);
}

Image RandomResizedCrop(const Image& src, int size, Rng& rng,
                        const RandomResizedCropOptions& options) {
  const CropBox box = RandomResizedCropBox(src.height, src.width, rng, options);
  return ResizedCrop(src, box, size, size);
}

namespace {
template <int C>
void FlipRows(Image* image) {
  for (int y = 0; y < image->height; ++y) {
    uint8_t* r = image->row(y);
    for (int a = 0, b = image->width - 1; a < b; ++a, --b) {
      for (int k = 0; k < C; ++k) std::swap(r[a * C + k], r[b * C + k]);
    }
  }
}
}  // namespace

void FlipHorizontal(Image* image) {
  switch (image->channels) {
    case 1:
      FlipRows<1>(image);
      break;
    case 3:
      FlipRows<3>(image);
      break;
    case 4:
      FlipRows<4>(image);
      break;
    default:
      TB_CHECK(false, "FlipHorizontal: unsupported channel count " << image->channels);
  }
}

bool RandomFlipHorizontal(Image* image, Rng& rng, double p) {
  const bool flip = rng.Uniform() < p;
  if (flip) FlipHorizontal(image);
  return flip;
}

std::pair<int, int> ShorterSideResizeDims(int height, int width, int size) {
  if (height <= width) {
    return {size, static_cast<int>(static_cast<int64_t>(size) * width / height)};
  }
  return {static_cast<int>(static_cast<int64_t>(size) * height / width), size};
}

Image ResizeShorterSide(const Image& src, int size) {
  const auto [h, w] = ShorterSideResizeDims(src.height, src.width, size);
  return ResizedCrop(src, {0, 0, src.height, src.width}, h, w);
}

CropBox CenterCropBox(int height, int width, int crop_height, int crop_width) {
  auto start = [](int size, int crop) {
    if (crop > size) return -((crop - size) / 2);  // torchvision pads, then crops at 0
    return PyRound((size - crop) / 2.0);
  };
  return {start(height, crop_height), start(width, crop_width), crop_height, crop_width};
}

Image CenterCrop(const Image& src, int crop_height, int crop_width) {
  const CropBox b = CenterCropBox(src.height, src.width, crop_height, crop_width);
  return CropZeroFill(src, b.top, b.left, b.height, b.width);
}

Image ResizeShorterSideCenterCrop(const Image& src, int resize_size, int crop_size) {
  const auto [h, w] = ShorterSideResizeDims(src.height, src.width, resize_size);
  const CropBox b = CenterCropBox(h, w, crop_size, crop_size);
  if (b.top < 0 || b.left < 0) {  // crop larger than the resized image: rare, do it in 2 steps
    return CenterCrop(ResizeShorterSide(src, resize_size), crop_size, crop_size);
  }
  return ResampleWindow(src, {0, 0, src.height, src.width}, h, w, b.top, b.left, crop_size,
                        crop_size);
}

Image CropZeroFill(const Image& src, int top, int left, int out_height, int out_width) {
  const int c = src.channels;
  Image out(out_height, out_width, c);  // zero-initialised
  const int x_begin = std::max(0, -left);
  const int x_end = std::min(out_width, src.width - left);
  if (x_end <= x_begin) return out;
  for (int y = 0; y < out_height; ++y) {
    const int sy = y + top;
    if (sy < 0 || sy >= src.height) continue;
    std::memcpy(out.row(y) + static_cast<size_t>(x_begin) * c,
                src.row(sy) + static_cast<size_t>(x_begin + left) * c,
                static_cast<size_t>(x_end - x_begin) * c);
  }
  return out;
}

Image RandomCropWithPadding(const Image& src, int out_height, int out_width, int padding,
                            Rng& rng) {
  const int max_top = src.height + 2 * padding - out_height;
  const int max_left = src.width + 2 * padding - out_width;
  TB_CHECK(max_top >= 0 && max_left >= 0, "RandomCropWithPadding: crop larger than padded image");
  const int top = static_cast<int>(rng.UniformInt(0, max_top));
  const int left = static_cast<int>(rng.UniformInt(0, max_left));
  return CropZeroFill(src, top - padding, left - padding, out_height, out_width);
}

void ToFloatChw(const Image& image, const float* mean, const float* std, float* out) {
  const int c = image.channels;
  const size_t plane = static_cast<size_t>(image.height) * image.width;
  std::vector<float> lut(static_cast<size_t>(c) * 256);
  for (int k = 0; k < c; ++k) {
    for (int v = 0; v < 256; ++v) {
      lut[k * 256 + v] = (static_cast<float>(v) / 255.f - mean[k]) / std[k];
    }
  }
  const uint8_t* p = image.data.data();
  if (c == 3) {
    float* o0 = out;
    float* o1 = out + plane;
    float* o2 = out + 2 * plane;
    const float* l0 = lut.data();
    const float* l1 = l0 + 256;
    const float* l2 = l1 + 256;
    for (size_t i = 0; i < plane; ++i) {
      o0[i] = l0[p[3 * i]];
      o1[i] = l1[p[3 * i + 1]];
      o2[i] = l2[p[3 * i + 2]];
    }
    return;
  }
  for (size_t i = 0; i < plane; ++i) {
    for (int k = 0; k < c; ++k) out[k * plane + i] = lut[k * 256 + p[i * c + k]];
  }
}

std::vector<float> ToFloatChw(const Image& image, const std::vector<float>& mean,
                              const std::vector<float>& std) {
  TB_CHECK(static_cast<int>(mean.size()) == image.channels &&
               static_cast<int>(std.size()) == image.channels,
           "ToFloatChw: mean/std need " << image.channels << " entries");
  std::vector<float> out(image.num_bytes());
  ToFloatChw(image, mean.data(), std.data(), out.data());
  return out;
}

}  // namespace trainbench::data

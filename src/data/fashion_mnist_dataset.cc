#include "data/fashion_mnist_dataset.h"

#include <utility>

#include "core/error.h"

namespace trainbench::data {

FashionMnistOptions FashionMnistTrainOptions() {
  FashionMnistOptions o;
  o.random_crop = true;
  o.random_flip = true;
  return o;
}

FashionMnistDataset::FashionMnistDataset(std::shared_ptr<const MnistSplit> split,
                                         FashionMnistOptions options)
    : split_(std::move(split)), options_(options) {
  TB_CHECK(split_ != nullptr, "FashionMnistDataset: null split");
  TB_CHECK(split_->images.size() ==
                   static_cast<size_t>(split_->num_examples) * split_->rows * split_->cols &&
               split_->labels.size() == static_cast<size_t>(split_->num_examples),
           "FashionMnistDataset: inconsistent split");
  TB_CHECK(options_.crop_padding >= 0, "crop_padding " << options_.crop_padding);
  TB_CHECK(options_.std > 0.f, "std " << options_.std);
  // Same float operations as ToFloatChw, so the fused path below gives identical values.
  for (int v = 0; v < 256; ++v) {
    lut_[v] = (static_cast<float>(v) / 255.f - options_.mean) / options_.std;
  }
}

int64_t FashionMnistDataset::GetInto(int64_t index, Rng& rng, float* out) const {
  TB_CHECK(index >= 0 && index < split_->num_examples, "index " << index);
  const int h = split_->rows;
  const int w = split_->cols;
  const uint8_t* src = split_->images.data() + static_cast<size_t>(index) * h * w;
  int dy = 0;
  int dx = 0;
  if (options_.random_crop) {
    const int p = options_.crop_padding;
    dy = static_cast<int>(rng.UniformInt(0, int64_t{2} * p)) - p;
    dx = static_cast<int>(rng.UniformInt(0, int64_t{2} * p)) - p;
  }
  const bool flip = options_.random_flip && rng.Uniform() < 0.5;
  // out[y][x] = cropped[y][flip ? w-1-x : x], cropped[y][x] = padded src at (y+dy, x+dx).
  const float zero = lut_[0];
  for (int y = 0; y < h; ++y) {
    const int sy = y + dy;
    float* o = out + static_cast<size_t>(y) * w;
    if (sy < 0 || sy >= h) {
      for (int x = 0; x < w; ++x) o[x] = zero;
      continue;
    }
    const uint8_t* row = src + static_cast<size_t>(sy) * w;
    for (int x = 0; x < w; ++x) {
      const int sx = (flip ? w - 1 - x : x) + dx;
      o[x] = (sx >= 0 && sx < w) ? lut_[row[sx]] : zero;
    }
  }
  return split_->labels[static_cast<size_t>(index)];
}

}  // namespace trainbench::data

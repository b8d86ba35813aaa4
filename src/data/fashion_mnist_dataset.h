// Fashion-MNIST (or MNIST) as an in-memory Dataset: 1 x rows x cols float examples normalised
// with (pixel / 255 - mean) / std, optionally augmented for training with torchvision's
// RandomCrop(size, padding) (zero padding) followed by RandomHorizontalFlip(0.5).
// RNG draws per example, in order: crop top, crop left (if random_crop), flip (if random_flip).
// The split is shared and immutable; GetInto is thread-safe.
#pragma once

#include <memory>
#include <vector>

#include "data/dataset.h"
#include "data/idx_reader.h"

namespace trainbench::data {

inline constexpr float kFashionMnistMean = 0.2860f;
inline constexpr float kFashionMnistStd = 0.3530f;

struct FashionMnistOptions {
  bool random_crop = false;  // pad by crop_padding, random crop back to rows x cols
  int crop_padding = 4;
  bool random_flip = false;  // horizontal, p = 0.5
  float mean = kFashionMnistMean;
  float std = kFashionMnistStd;
};

// Training defaults: random_crop (padding 4) and random_flip on.
FashionMnistOptions FashionMnistTrainOptions();

class FashionMnistDataset : public Dataset {
 public:
  FashionMnistDataset(std::shared_ptr<const MnistSplit> split, FashionMnistOptions options);

  int64_t size() const override { return split_->num_examples; }
  ExampleShape shape() const override { return {1, split_->rows, split_->cols}; }
  int64_t GetInto(int64_t index, Rng& rng, float* out) const override;

  const MnistSplit& split() const { return *split_; }

 private:
  std::shared_ptr<const MnistSplit> split_;
  FashionMnistOptions options_;
  float lut_[256];  // normalised value of each pixel byte
};

}  // namespace trainbench::data

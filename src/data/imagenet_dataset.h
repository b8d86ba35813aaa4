// ImageNet (ILSVRC 2012) as a Dataset over an ImageFolder of JPEGs, with the ResNet-50
// reference preprocessing: for training RandomResizedCrop(224, scale (0.08, 1), ratio
// (3/4, 4/3)) then RandomHorizontalFlip(0.5); for evaluation Resize(256) then CenterCrop(224);
// both followed by ToTensor + Normalize with the ImageNet mean/std. Output 3 x 224 x 224 float.
// RNG draws per training example, in order: the crop (see RandomResizedCropBox), the flip.
//
// dct_scaling (off by default, to match the reference preprocessing) lets libjpeg decode at
// 1/2, 1/4 or 1/8 size when the crop (train) or the resize target (eval) is that much smaller
// than the image: much faster on large photos, slightly different pixels.
//
// Each GetInto reads and decodes one file: a missing or corrupt JPEG throws core::Error naming
// it. The folder listing is shared and immutable; GetInto is thread-safe.
#pragma once

#include <array>
#include <memory>

#include "data/dataset.h"
#include "data/image_folder.h"
#include "data/transforms.h"

namespace trainbench::data {

inline constexpr std::array<float, 3> kImageNetMean = {0.485f, 0.456f, 0.406f};
inline constexpr std::array<float, 3> kImageNetStd = {0.229f, 0.224f, 0.225f};

struct ImageNetOptions {
  bool train = true;              // train: random resized crop + flip; eval: resize + center crop
  int crop_size = 224;            // output height and width, pixels
  int resize_size = 256;          // eval: shorter side before the center crop, pixels
  RandomResizedCropOptions crop;  // train crop parameters (torchvision defaults)
  double flip_probability = 0.5;
  std::array<float, 3> mean = kImageNetMean;
  std::array<float, 3> std = kImageNetStd;
  bool dct_scaling = false;
};

class ImageNetDataset : public Dataset {
 public:
  ImageNetDataset(std::shared_ptr<const ImageFolder> folder, ImageNetOptions options);

  int64_t size() const override { return folder_->size(); }
  ExampleShape shape() const override { return {3, options_.crop_size, options_.crop_size}; }
  int64_t GetInto(int64_t index, Rng& rng, float* out) const override;

  // The augmented/cropped image before normalisation (for tests and inspection).
  Image LoadImage(int64_t index, Rng& rng) const;

  const ImageFolder& folder() const { return *folder_; }

 private:
  std::shared_ptr<const ImageFolder> folder_;
  ImageNetOptions options_;
};

}  // namespace trainbench::data

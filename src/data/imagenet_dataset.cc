#include "data/imagenet_dataset.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "core/atomic_file.h"
#include "core/error.h"
#include "data/jpeg_codec.h"

namespace trainbench::data {

ImageNetDataset::ImageNetDataset(std::shared_ptr<const ImageFolder> folder, ImageNetOptions options)
    : folder_(std::move(folder)), options_(options) {
  TB_CHECK(folder_ != nullptr, "ImageNetDataset: null folder");
  TB_CHECK(options_.crop_size > 0 && options_.resize_size > 0, "ImageNetDataset: sizes");
}

Image ImageNetDataset::LoadImage(int64_t index, Rng& rng) const {
  TB_CHECK(index >= 0 && index < folder_->size(), "index " << index);
  const std::string& path = folder_->samples()[static_cast<size_t>(index)].path;
  const std::string bytes = core::ReadFile(path);
  const auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
  const int crop = options_.crop_size;
  JpegDecodeOptions decode;
  if (options_.train) {
    const JpegInfo info = ReadJpegInfo(data, bytes.size(), path);
    CropBox box = RandomResizedCropBox(info.height, info.width, rng, options_.crop);
    if (options_.dct_scaling) decode.scale_num = DctScaleFor(box.width, box.height, crop, crop);
    const Image image = DecodeJpeg(data, bytes.size(), path, decode);
    if (decode.scale_num != 8) {  // map the box into the scaled image
      const double sy = static_cast<double>(image.height) / info.height;
      const double sx = static_cast<double>(image.width) / info.width;
      CropBox scaled;
      scaled.top = std::min(static_cast<int>(box.top * sy), image.height - 1);
      scaled.left = std::min(static_cast<int>(box.left * sx), image.width - 1);
      scaled.height =
          std::clamp(static_cast<int>(std::lround(box.height * sy)), 1, image.height - scaled.top);
      scaled.width =
          std::clamp(static_cast<int>(std::lround(box.width * sx)), 1, image.width - scaled.left);
      box = scaled;
    }
    Image out = ResizedCrop(image, box, crop, crop);
    RandomFlipHorizontal(&out, rng, options_.flip_probability);
    return out;
  }
  if (options_.dct_scaling) {
    const JpegInfo info = ReadJpegInfo(data, bytes.size(), path);
    const bool portrait = info.height > info.width;
    decode.scale_num = DctScaleFor(info.width, info.height, portrait ? options_.resize_size : 0,
                                   portrait ? 0 : options_.resize_size);
  }
  const Image image = DecodeJpeg(data, bytes.size(), path, decode);
  return ResizeShorterSideCenterCrop(image, options_.resize_size, crop);
}

int64_t ImageNetDataset::GetInto(int64_t index, Rng& rng, float* out) const {
  const Image image = LoadImage(index, rng);
  ToFloatChw(image, options_.mean.data(), options_.std.data(), out);
  return folder_->samples()[static_cast<size_t>(index)].label;
}

}  // namespace trainbench::data

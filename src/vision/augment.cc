#include "vision/augment.h"

#include <cmath>

#include "vision/boxes.h"

namespace trainbench::vision {

namespace {

using torch::indexing::Slice;

void CheckSample(const DetectionSample& s, const char* what) {
  TORCH_CHECK(s.image.dim() == 3, what, ": image must be [C, H, W], got ", s.image.sizes());
  TORCH_CHECK(s.boxes.dim() == 2 && s.boxes.size(1) == 4, what, ": boxes must be [N, 4], got ",
              s.boxes.sizes());
  TORCH_CHECK(!s.labels.defined() || (s.labels.dim() == 1 && s.labels.size(0) == s.boxes.size(0)),
              what, ": labels must be [N] for N boxes");
  TORCH_CHECK(!s.masks.defined() || (s.masks.dim() == 3 && s.masks.size(0) == s.boxes.size(0) &&
                                     s.masks.size(1) == s.height() && s.masks.size(2) == s.width()),
              what, ": masks must be [N, H, W] for N boxes and an H x W image, got ",
              s.masks.sizes());
}

}  // namespace

std::vector<SsdCropMode> SsdCropModes() {
  std::vector<SsdCropMode> modes;
  SsdCropMode original;
  original.crop = false;
  modes.push_back(original);
  for (double min_iou : {0.1, 0.3, 0.5, 0.7, 0.9}) {
    SsdCropMode m;
    m.min_iou = min_iou;
    modes.push_back(m);
  }
  modes.push_back(SsdCropMode{});  // no IoU constraint
  return modes;
}

DetectionSample SsdRandomCrop(const DetectionSample& sample, data::Rng& rng,
                              const SsdCropOptions& options, SsdCropInfo* info) {
  CheckSample(sample, "SsdRandomCrop");
  TORCH_CHECK(!options.modes.empty(), "SsdRandomCrop: no modes");
  const int64_t height = sample.height(), width = sample.width();
  SsdCropInfo local;
  SsdCropInfo& out = info != nullptr ? *info : local;
  out = SsdCropInfo{};
  out.x1 = width;
  out.y1 = height;
  // The decisions in double on the CPU, boxes as fractions of the image.
  const auto scale =
      torch::tensor({1.0 / width, 1.0 / height, 1.0 / width, 1.0 / height}, torch::kDouble);
  const auto boxes = sample.boxes.detach().to(torch::kCPU, torch::kDouble) * scale;
  const auto xc = 0.5 * (boxes.select(1, 0) + boxes.select(1, 2));
  const auto yc = 0.5 * (boxes.select(1, 1) + boxes.select(1, 3));
  const int64_t n_modes = static_cast<int64_t>(options.modes.size());
  while (out.draws < options.max_draws) {
    ++out.draws;
    const SsdCropMode& mode = options.modes[rng.UniformInt(0, n_modes - 1)];
    out.mode = mode;
    if (!mode.crop) return sample;
    for (int attempt = 0; attempt < options.attempts; ++attempt) {
      const double w = rng.Uniform(options.min_scale, options.max_scale);
      const double h = rng.Uniform(options.min_scale, options.max_scale);
      if (w / h < options.min_aspect || w / h > options.max_aspect) continue;
      const double left = rng.Uniform(0.0, 1.0 - w);
      const double top = rng.Uniform(0.0, 1.0 - h);
      const double right = left + w, bottom = top + h;
      const auto window = torch::tensor({left, top, right, bottom}, torch::kDouble).view({1, 4});
      const auto ious = BoxIou(boxes, window).view({-1});
      if (!ious.gt(mode.min_iou).logical_and(ious.lt(mode.max_iou)).all().item<bool>()) continue;
      const auto inside =
          xc.gt(left).logical_and(xc.lt(right)).logical_and(yc.gt(top)).logical_and(yc.lt(bottom));
      if (!inside.any().item<bool>()) continue;

      out.cropped = true;
      out.left = left;
      out.top = top;
      out.right = right;
      out.bottom = bottom;
      out.x0 = static_cast<int64_t>(left * width);
      out.y0 = static_cast<int64_t>(top * height);
      out.x1 = static_cast<int64_t>(right * width);
      out.y1 = static_cast<int64_t>(bottom * height);
      const auto keep = torch::where(inside)[0].to(sample.boxes.device());
      DetectionSample r;
      r.image = sample.image.index({Slice(), Slice(out.y0, out.y1), Slice(out.x0, out.x1)}).clone();
      const double sx0 = static_cast<double>(out.x0), sy0 = static_cast<double>(out.y0);
      const auto shift = torch::tensor({sx0, sy0, sx0, sy0}, sample.boxes.options());
      r.boxes = ClipBoxesToImage(sample.boxes.index_select(0, keep) - shift, out.y1 - out.y0,
                                 out.x1 - out.x0);
      if (sample.labels.defined()) {
        r.labels = sample.labels.index_select(0, keep.to(sample.labels.device()));
      }
      if (sample.masks.defined()) {
        r.masks = sample.masks.index_select(0, keep.to(sample.masks.device()))
                      .index({Slice(), Slice(out.y0, out.y1), Slice(out.x0, out.x1)})
                      .clone();
      }
      return r;
    }
  }
  out.mode = SsdCropMode{};
  out.mode.crop = false;
  return sample;
}

DetectionSample HorizontalFlip(const DetectionSample& sample) {
  CheckSample(sample, "HorizontalFlip");
  const double width = static_cast<double>(sample.width());
  DetectionSample r;
  r.image = sample.image.flip({-1});
  r.boxes = torch::stack({width - sample.boxes.select(1, 2), sample.boxes.select(1, 1),
                          width - sample.boxes.select(1, 0), sample.boxes.select(1, 3)},
                         1);
  r.labels = sample.labels;
  if (sample.masks.defined()) r.masks = sample.masks.flip({-1});
  return r;
}

DetectionSample RandomHorizontalFlip(const DetectionSample& sample, data::Rng& rng, double p) {
  return rng.Uniform() < p ? HorizontalFlip(sample) : sample;
}

std::vector<std::vector<float>> FlipPolygons(const std::vector<std::vector<float>>& polygons,
                                             double width) {
  std::vector<std::vector<float>> flipped = polygons;
  for (auto& polygon : flipped) {
    for (size_t i = 0; i < polygon.size(); i += 2) {
      polygon[i] = static_cast<float>(width - polygon[i]);
    }
  }
  return flipped;
}

DetectionSample Resize(const DetectionSample& sample, int64_t height, int64_t width) {
  CheckSample(sample, "Resize");
  TORCH_CHECK(height > 0 && width > 0, "Resize: size must be positive, got ", height, " x ", width);
  namespace F = torch::nn::functional;
  const auto size = std::vector<int64_t>{height, width};
  DetectionSample r;
  const bool is_uint8 = sample.image.scalar_type() == torch::kUInt8;
  const auto image = is_uint8 ? sample.image.to(torch::kFloat) : sample.image;
  r.image = F::interpolate(
      image.unsqueeze(0),
      F::InterpolateFuncOptions().size(size).mode(torch::kBilinear).align_corners(false))[0];
  if (is_uint8) r.image = r.image.round().clamp(0, 255).to(torch::kUInt8);
  const double sx = static_cast<double>(width) / sample.width();
  const double sy = static_cast<double>(height) / sample.height();
  r.boxes = sample.boxes * torch::tensor({sx, sy, sx, sy}, sample.boxes.options());
  r.labels = sample.labels;
  if (sample.masks.defined()) {
    if (sample.masks.size(0) == 0) {
      r.masks = torch::zeros({0, height, width}, sample.masks.options());
    } else {
      r.masks = F::interpolate(sample.masks.unsqueeze(0).to(torch::kFloat),
                               F::InterpolateFuncOptions().size(size).mode(torch::kNearest))[0]
                    .to(sample.masks.scalar_type());
    }
  }
  return r;
}

}  // namespace trainbench::vision

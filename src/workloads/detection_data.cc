#include "workloads/detection_data.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <stdexcept>
#include <tuple>

#include "coco/coco_dataset.h"
#include "core/error.h"
#include "core/random.h"
#include "data/jpeg_codec.h"
#include "models/ssd.h"
#include "vision/augment.h"
#include "vision/boxes.h"

namespace trainbench::workloads {

CocoSplits LoadCocoSplits(const std::string& dir, int64_t num_classes, bool with_masks) {
  const std::string train_json = dir + "/annotations/instances_train2017.json";
  const std::string val_json = dir + "/annotations/instances_val2017.json";
  CocoSplits s;
  s.train = std::make_shared<const DetectionSplit>(
      LoadDetectionSplit(train_json, dir + "/train2017", true, with_masks));
  s.eval_gt = std::make_shared<const coco::CocoDataset>(coco::ReadCocoDataset(val_json));
  s.eval = std::make_shared<const DetectionSplit>(
      MakeDetectionSplit(*s.eval_gt, val_json, dir + "/val2017", false));
  if (static_cast<int64_t>(s.train->category_ids.size()) + 1 != num_classes) {
    throw core::Error(train_json + ": " + std::to_string(s.train->category_ids.size()) +
                      " categories, but configuration key \"num_classes\" is " +
                      std::to_string(num_classes) + " (categories + background)");
  }
  if (s.eval->category_ids != s.train->category_ids) {
    throw core::Error(val_json + ": its categories differ from " + train_json + "'s");
  }
  return s;
}

CocoRunData LoadCocoRunData(const train::RunContext& ctx, const DetectionOptions& options,
                            bool with_masks) {
  CocoRunData d;
  d.splits = LoadCocoSplits(ctx.data_dir, options.num_classes, with_masks);
  d.train_loader =
      data::TrainLoaderOptions(options.batch_size / ctx.world_size, core::SeedFor(ctx.seed, "data"),
                               ctx.rank, ctx.world_size, ctx.loader_threads);
  d.eval_loader = data::EvalLoaderOptions(d.train_loader, options.eval_batch_size);
  return d;
}

DetectionSplit LoadDetectionSplit(const std::string& annotations, const std::string& image_dir,
                                  bool train, bool with_masks) {
  return MakeDetectionSplit(coco::ReadCocoDataset(annotations), annotations, image_dir, train,
                            with_masks);
}

DetectionSplit MakeDetectionSplit(const coco::CocoDataset& ds, const std::string& annotations,
                                  const std::string& image_dir, bool train, bool with_masks) {
  DetectionSplit split;
  std::map<int64_t, int64_t> label_of;  // COCO category id -> 1..K
  std::vector<std::pair<int64_t, std::string>> cats;
  for (const auto& c : ds.categories) cats.push_back({c.id, c.name});
  std::sort(cats.begin(), cats.end());
  for (const auto& [id, name] : cats) {
    label_of[id] = static_cast<int64_t>(split.category_ids.size()) + 1;
    split.category_ids.push_back(id);
    split.category_names.push_back(name);
  }
  std::map<int64_t, size_t> image_pos;
  std::vector<DetectionImage> images;
  for (const auto& im : ds.images) {
    DetectionImage d;
    d.image_id = im.id;
    d.path = image_dir + "/" + im.file_name;
    d.width = im.width;
    d.height = im.height;
    image_pos[im.id] = images.size();
    images.push_back(std::move(d));
  }
  for (const auto& a : ds.annotations) {
    DetectionImage& d = images[image_pos.at(a.image_id)];  // the reader checked the image exists
    if (a.iscrowd && train) {
      ++split.crowd_dropped;
      continue;
    }
    const float x = static_cast<float>(a.bbox[0]), y = static_cast<float>(a.bbox[1]);
    const float w = static_cast<float>(a.bbox[2]), h = static_cast<float>(a.bbox[3]);
    if (train && (w <= 0 || h <= 0)) continue;  // no SSD target for an empty box
    d.boxes.insert(d.boxes.end(), {x, y, x + w, y + h});
    d.labels.push_back(label_of.at(a.category_id));
    if (with_masks) d.segmentations.push_back(a.segmentation);
  }
  for (auto& d : images) {
    if (train && d.labels.empty()) {
      ++split.empty_dropped;
      continue;
    }
    split.images.push_back(std::move(d));
  }
  if (split.images.empty())
    throw core::Error(annotations + ": no images" + (train ? " with objects" : ""));
  return split;
}

torch::Tensor DecodeImageTensor(const DetectionImage& img) {
  data::Image im;
  try {
    im = data::DecodeJpegFile(img.path);
  } catch (const core::Error& e) {
    throw core::Error(std::string(e.what()) + " (image id " + std::to_string(img.image_id) + ")");
  }
  if (im.width != img.width || im.height != img.height) {
    throw core::Error(img.path + ": image id " + std::to_string(img.image_id) + " is " +
                      std::to_string(im.width) + "x" + std::to_string(im.height) +
                      " pixels, its annotation says " + std::to_string(img.width) + "x" +
                      std::to_string(img.height));
  }
  return torch::from_blob(im.data.data(), {im.height, im.width, 3}, torch::kUInt8)
      .permute({2, 0, 1})
      .clone();
}

torch::Tensor AdjustHue(const torch::Tensor& image, double hue_factor) {
  if (hue_factor < -0.5 || hue_factor > 0.5)
    throw std::invalid_argument("AdjustHue: hue_factor must be in [-0.5, 0.5]");
  if (hue_factor == 0) return image;
  if (image.dim() != 3 || image.size(0) != 3)
    throw std::invalid_argument("AdjustHue: expected a [3, H, W] image");
  // torchvision's tensor _rgb2hsv -> shift -> _hsv2rgb on [0, 1], hue as a fraction of the
  // circle, one pixel at a time (a tensor-op version costs 2.5x the whole input pipeline).
  const torch::Tensor in = image.to(torch::kFloat32).contiguous();
  torch::Tensor out = torch::empty_like(in);
  const int64_t n = in.size(1) * in.size(2);
  const float* src = in.data_ptr<float>();
  float* dst = out.data_ptr<float>();
  const float shift = static_cast<float>(hue_factor);
  for (int64_t k = 0; k < n; ++k) {
    const float r = src[k] / 255.f, g = src[n + k] / 255.f, b = src[2 * n + k] / 255.f;
    const float maxc = std::max({r, g, b}), minc = std::min({r, g, b});
    const float v = maxc;
    if (maxc == minc) {  // a gray: no hue, no saturation
      dst[k] = dst[n + k] = dst[2 * n + k] = v * 255.f;
      continue;
    }
    const float cr = maxc - minc, s = cr / maxc;
    const float rc = (maxc - r) / cr, gc = (maxc - g) / cr, bc = (maxc - b) / cr;
    float h = maxc == r ? bc - gc : maxc == g ? 2.f + rc - bc : 4.f + gc - rc;
    h = std::fmod(h / 6.f + 1.f, 1.f);
    h = std::fmod(h + shift + 1.f, 1.f);
    const float i6 = std::floor(h * 6.f), f = h * 6.f - i6;
    const int i = static_cast<int>(i6) % 6;
    const float p = std::clamp(v * (1.f - s), 0.f, 1.f),
                q = std::clamp(v * (1.f - s * f), 0.f, 1.f),
                t = std::clamp(v * (1.f - s * (1.f - f)), 0.f, 1.f);
    // Sector i of the hue circle -> (R, G, B).
    const float R[6] = {v, q, p, p, t, v}, G[6] = {t, v, v, q, p, p}, B[6] = {p, p, t, v, v, q};
    dst[k] = R[i] * 255.f;
    dst[n + k] = G[i] * 255.f;
    dst[2 * n + k] = B[i] * 255.f;
  }
  return out.to(image.scalar_type());
}

torch::Tensor ColorJitter(const torch::Tensor& image, double brightness, double contrast,
                          double saturation, double hue, data::Rng& rng) {
  auto factor = [&](double f) { return rng.Uniform(std::max(0.0, 1.0 - f), 1.0 + f); };
  auto gray = [](const torch::Tensor& x) { return 0.299 * x[0] + 0.587 * x[1] + 0.114 * x[2]; };
  // Draw the order first, then the factors in that order (torchvision draws the order first).
  int order[4] = {0, 1, 2, 3};
  for (int i = 3; i > 0; --i) std::swap(order[i], order[rng.UniformInt(0, i)]);
  torch::Tensor x = image;
  for (int op : order) {
    if (op == 0 && brightness > 0) {
      x = (x * factor(brightness)).clamp(0, 255);
    } else if (op == 1 && contrast > 0) {
      const double f = factor(contrast);
      const torch::Tensor mean = gray(x).mean();
      x = (f * x + (1 - f) * mean).clamp(0, 255);
    } else if (op == 2 && saturation > 0) {
      const double f = factor(saturation);
      x = (f * x + (1 - f) * gray(x).unsqueeze(0)).clamp(0, 255);
    } else if (op == 3 && hue > 0) {
      x = AdjustHue(x, rng.Uniform(-hue, hue));
    }
  }
  return x;
}

namespace {

void Normalize(const torch::Tensor& image, const SsdInputOptions& o, float* out) {
  const torch::Tensor mean = torch::tensor({o.mean[0], o.mean[1], o.mean[2]}).view({3, 1, 1});
  const torch::Tensor std = torch::tensor({o.std[0], o.std[1], o.std[2]}).view({3, 1, 1});
  const torch::Tensor x = ((image / 255.0 - mean) / std).to(torch::kFloat32).contiguous();
  std::memcpy(out, x.data_ptr<float>(), sizeof(float) * static_cast<size_t>(x.numel()));
}

}  // namespace

SsdTrainDataset::SsdTrainDataset(std::shared_ptr<const DetectionSplit> split,
                                 SsdInputOptions options, torch::Tensor dboxes_xywh)
    : split_(std::move(split)), options_(options) {
  dboxes_ltrb_ = vision::ConvertBoxes(dboxes_xywh.to(torch::kCPU, torch::kFloat32),
                                      vision::BoxFormat::kCxcywh, vision::BoxFormat::kXyxy);
  num_boxes_ = dboxes_ltrb_.size(0);
}

data::ExampleShape SsdTrainDataset::shape() const {
  const int s = static_cast<int>(options_.image_size);
  return {3, s, s};
}

int64_t SsdTrainDataset::GetInto(int64_t index, data::Rng& rng, float* out) const {
  std::vector<float> extra(static_cast<size_t>(extra_floats()));
  return GetIntoWithExtra(index, rng, out, extra.data());
}

int64_t SsdTrainDataset::GetIntoWithExtra(int64_t index, data::Rng& rng, float* out,
                                          float* extra) const {
  const DetectionImage& im = split_->images[static_cast<size_t>(index)];
  const int64_t n = static_cast<int64_t>(im.labels.size());
  vision::DetectionSample s;
  s.image = DecodeImageTensor(im);
  s.boxes = torch::from_blob(const_cast<float*>(im.boxes.data()), {n, 4}, torch::kFloat32).clone();
  s.labels = torch::from_blob(const_cast<int64_t*>(im.labels.data()), {n}, torch::kInt64).clone();
  if (options_.augment) {
    s = vision::SsdRandomCrop(s, rng);
    s = vision::RandomHorizontalFlip(s, rng, options_.flip_probability);
  }
  const int64_t size = options_.image_size;
  s.image = s.image.to(torch::kFloat32);
  s = vision::Resize(s, size, size);
  const torch::Tensor image = options_.augment
                                  ? ColorJitter(s.image, options_.brightness, options_.contrast,
                                                options_.saturation, options_.hue, rng)
                                  : s.image;
  Normalize(image, options_, out);
  const torch::Tensor boxes = (s.boxes / static_cast<double>(size)).clamp(0, 1);
  const models::SsdTargets t = models::SsdEncode(dboxes_ltrb_, boxes, s.labels, options_.match_iou);
  const torch::Tensor loc = t.loc.to(torch::kFloat32).contiguous();
  const torch::Tensor lab = t.labels.to(torch::kFloat32).contiguous();
  std::memcpy(extra, loc.data_ptr<float>(), sizeof(float) * static_cast<size_t>(4 * num_boxes_));
  std::memcpy(extra + 4 * num_boxes_, lab.data_ptr<float>(),
              sizeof(float) * static_cast<size_t>(num_boxes_));
  return s.labels.numel();
}

SsdEvalDataset::SsdEvalDataset(std::shared_ptr<const DetectionSplit> split, SsdInputOptions options)
    : split_(std::move(split)), options_(options) {}

data::ExampleShape SsdEvalDataset::shape() const {
  const int s = static_cast<int>(options_.image_size);
  return {3, s, s};
}

int64_t SsdEvalDataset::GetInto(int64_t index, data::Rng& /*rng*/, float* out) const {
  const DetectionImage& im = split_->images[static_cast<size_t>(index)];
  vision::DetectionSample s;
  s.image = DecodeImageTensor(im).to(torch::kFloat32);
  s.boxes = torch::zeros({0, 4});
  s.labels = torch::zeros({0}, torch::kInt64);
  s = vision::Resize(s, options_.image_size, options_.image_size);
  Normalize(s.image, options_, out);
  return index;
}

std::pair<int64_t, int64_t> MaskRcnnResizedSize(int64_t height, int64_t width, int64_t min_size,
                                                int64_t max_size) {
  if (height <= 0 || width <= 0) throw std::invalid_argument("MaskRcnnResizedSize: empty image");
  double size = static_cast<double>(min_size);
  const double lo = static_cast<double>(std::min(height, width)),
               hi = static_cast<double>(std::max(height, width));
  if (max_size > 0 && hi / lo * size > static_cast<double>(max_size)) {
    size = std::nearbyint(static_cast<double>(max_size) * lo / hi);
  }
  if ((width <= height && static_cast<double>(width) == size) ||
      (height <= width && static_cast<double>(height) == size)) {
    return {height, width};
  }
  const int64_t s = static_cast<int64_t>(size);
  if (width < height)
    return {static_cast<int64_t>(size * static_cast<double>(height) / static_cast<double>(width)),
            s};
  return {s, static_cast<int64_t>(size * static_cast<double>(width) / static_cast<double>(height))};
}

int64_t RoundUpTo(int64_t x, int64_t d) { return d <= 0 ? x : (x + d - 1) / d * d; }

int64_t StepAtEpoch(double epochs, int64_t steps_per_epoch) {
  return static_cast<int64_t>(std::ceil(epochs * static_cast<double>(steps_per_epoch) - 1e-9));
}

MaskRcnnDataset::MaskRcnnDataset(std::shared_ptr<const DetectionSplit> split,
                                 MaskRcnnInputOptions options)
    : split_(std::move(split)), options_(options) {}

data::ExampleShape MaskRcnnDataset::shape() const {
  const int p = static_cast<int>(padded_size());
  return {3, p, p};
}

int64_t MaskRcnnDataset::GetInto(int64_t index, data::Rng& rng, float* out) const {
  float extra[3];
  return GetIntoWithExtra(index, rng, out, extra);
}

int64_t MaskRcnnDataset::GetIntoWithExtra(int64_t index, data::Rng& rng, float* out,
                                          float* extra) const {
  const DetectionImage& im = split_->images[static_cast<size_t>(index)];
  torch::Tensor image = DecodeImageTensor(im);
  const auto [h, w] =
      MaskRcnnResizedSize(im.height, im.width, options_.min_size, options_.max_size);
  const int64_t p = padded_size();
  if (h > p || w > p)
    throw std::logic_error("MaskRcnnDataset: resized image larger than the padding");
  torch::Tensor x = image.to(torch::kFloat32);
  if (h != im.height || w != im.width) {
    x = torch::nn::functional::interpolate(x.unsqueeze(0),
                                           torch::nn::functional::InterpolateFuncOptions()
                                               .size(std::vector<int64_t>{h, w})
                                               .mode(torch::kBilinear)
                                               .align_corners(false))
            .squeeze(0);
  }
  const bool flipped = options_.train && rng.Uniform() < options_.flip_probability;
  if (flipped) x = x.flip({2});
  const auto& m = options_.pixel_mean_bgr;
  x = x.flip({0}) -
      torch::tensor({m[0], m[1], m[2]}).view({3, 1, 1});  // RGB -> BGR, minus the means
  torch::Tensor padded = torch::from_blob(out, {3, p, p}, torch::kFloat32);
  padded.zero_();
  padded.narrow(1, 0, h).narrow(2, 0, w).copy_(x);
  extra[0] = static_cast<float>(h);
  extra[1] = static_cast<float>(w);
  extra[2] = flipped ? 1.f : 0.f;
  return static_cast<int64_t>(im.labels.size());
}

MaskRcnnTargetData MakeMaskRcnnTarget(const DetectionImage& img, int64_t height, int64_t width,
                                      bool flipped) {
  const int64_t n = static_cast<int64_t>(img.labels.size());
  if (static_cast<int64_t>(img.segmentations.size()) != n) {
    throw std::logic_error("MakeMaskRcnnTarget: the split was read without masks");
  }
  const double sx = static_cast<double>(width) / static_cast<double>(img.width);
  const double sy = static_cast<double>(height) / static_cast<double>(img.height);
  MaskRcnnTargetData t;
  t.boxes = torch::empty({n, 4}, torch::kFloat32);
  t.labels = torch::from_blob(const_cast<int64_t*>(img.labels.data()), {n}, torch::kInt64).clone();
  t.masks = torch::empty({n, height, width}, torch::kUInt8);
  auto b = t.boxes.accessor<float, 2>();
  for (int64_t i = 0; i < n; ++i) {
    const float* src = img.boxes.data() + 4 * i;
    double x1 = src[0] * sx, y1 = src[1] * sy, x2 = src[2] * sx, y2 = src[3] * sy;
    if (flipped)
      std::tie(x1, x2) =
          std::make_pair(static_cast<double>(width) - x2, static_cast<double>(width) - x1);
    b[i][0] = static_cast<float>(x1);
    b[i][1] = static_cast<float>(y1);
    b[i][2] = static_cast<float>(x2);
    b[i][3] = static_cast<float>(y2);
    const coco::Segmentation& seg = img.segmentations[static_cast<size_t>(i)];
    torch::Tensor mask;  // [height, width] uint8
    if (!seg.polygons.empty() || !seg.rle) {
      std::vector<std::vector<double>> polys = seg.polygons;
      if (polys.empty()) {  // no segmentation: the box (already mirrored)
        polys.push_back({x1, y1, x1, y2, x2, y2, x2, y1});
      } else {
        for (auto& poly : polys) {
          for (size_t k = 0; k + 1 < poly.size(); k += 2) {
            const double x = poly[k] * sx;
            poly[k] = flipped ? static_cast<double>(width) - x : x;
            poly[k + 1] *= sy;
          }
        }
      }
      const coco::Rle r = coco::RleFrPolygons(polys, height, width);
      std::vector<uint8_t> cm = coco::RleDecode(r);  // column-major
      mask = torch::from_blob(cm.data(), {width, height}, torch::kUInt8).t().clone();
    } else {
      std::vector<uint8_t> cm = coco::RleDecode(*seg.rle);
      torch::Tensor full = torch::from_blob(cm.data(), {seg.rle->w, seg.rle->h}, torch::kUInt8).t();
      mask = torch::nn::functional::interpolate(full.unsqueeze(0).unsqueeze(0).to(torch::kFloat32),
                                                torch::nn::functional::InterpolateFuncOptions()
                                                    .size(std::vector<int64_t>{height, width})
                                                    .mode(torch::kNearest))
                 .squeeze(0)
                 .squeeze(0)
                 .to(torch::kUInt8);
      if (flipped) mask = mask.flip({1});
    }
    t.masks[i].copy_(mask);
  }
  return t;
}

}  // namespace trainbench::workloads

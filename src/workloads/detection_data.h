// The detection benchmarks' data: COCO-format splits (coco/coco_dataset.h) as image lists with
// their objects, and the SSD input pipeline of the v0.5 reference as data::Datasets the
// BatchLoader runs on its worker threads:
//   training:   decode JPEG -> SSD random crop (min-IoU modes) -> random horizontal flip ->
//               resize to image_size^2 -> colour jitter (brightness 0.125, contrast 0.5,
//               saturation 0.5, hue 0.05, as the reference's torchvision ColorJitter) -> normalise
//               with the ImageNet mean and std -> encode the boxes onto the default boxes
//               (models::SsdEncode), so the targets travel with the image as side data;
//   evaluation: decode -> resize -> normalise.
// Every random draw comes from the loader's per-sample Rng, so a sample's augmentation depends
// only on (seed, epoch, index), whatever the thread count.
#pragma once

#include <torch/torch.h>

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "coco/coco_dataset.h"
#include "data/batch_loader.h"
#include "data/dataset.h"
#include "train/workload.h"
#include "workloads/detection_options.h"

namespace trainbench::workloads {

struct DetectionImage {
  int64_t image_id = 0;
  std::string path;  // the JPEG file
  int64_t width = 0, height = 0;
  std::vector<float> boxes;     // xyxy in pixels, 4 per object
  std::vector<int64_t> labels;  // contiguous classes 1..K (0 is the background)
  // Per object, when the split was read with masks: its segmentation (polygons or RLE; an empty
  // one stands for its box), in the image's pixels.
  std::vector<coco::Segmentation> segmentations;
};

struct DetectionSplit {
  std::vector<DetectionImage> images;
  std::vector<int64_t> category_ids;  // label k (1-based) is COCO category category_ids[k - 1]
  std::vector<std::string> category_names;
  int64_t crowd_dropped = 0;  // crowd annotations left out (training targets only)
  int64_t empty_dropped = 0;  // images without (non-crowd) objects left out (training only)
};

// Reads `annotations` (a COCO instances JSON) and resolves file names under `image_dir`.
// Categories are numbered 1..K in ascending COCO id. train: crowd annotations and images without
// objects are left out (they give no SSD targets); !train: every image stays (COCO evaluation
// needs them all). Bad input throws core::Error naming the file and the image or annotation id.
// with_masks: keep each object's segmentation too (Mask R-CNN).
DetectionSplit LoadDetectionSplit(const std::string& annotations, const std::string& image_dir,
                                  bool train, bool with_masks = false);
// The same from a dataset already read (validated) from `source`.
DetectionSplit MakeDetectionSplit(const coco::CocoDataset& ds, const std::string& source,
                                  const std::string& image_dir, bool train,
                                  bool with_masks = false);

// A detection run's two COCO 2017 splits, from `dir`'s annotations/instances_{train,val}2017.json
// and its train2017/ and val2017/ images: the training split (LoadDetectionSplit with train),
// the evaluation's ground truth and its split (every image). Throws core::Error naming the file
// when the training categories + background are not `num_classes`, or the two splits' categories
// differ.
struct CocoSplits {
  std::shared_ptr<const DetectionSplit> train, eval;
  std::shared_ptr<const coco::CocoDataset> eval_gt;
};
CocoSplits LoadCocoSplits(const std::string& dir, int64_t num_classes, bool with_masks);

// What SSD and Mask R-CNN load alike: the splits of ctx.data_dir and both loaders' options for
// this rank (the global batch split over the ranks, the data stream of the run's seed).
struct CocoRunData {
  CocoSplits splits;
  data::BatchLoaderOptions train_loader, eval_loader;
};
CocoRunData LoadCocoRunData(const train::RunContext& ctx, const DetectionOptions& options,
                            bool with_masks);

struct SsdInputOptions {
  int64_t image_size = 300;
  std::array<float, 3> mean = {0.485f, 0.456f, 0.406f};  // of pixel / 255
  std::array<float, 3> std = {0.229f, 0.224f, 0.225f};
  double brightness = 0.125, contrast = 0.5, saturation = 0.5, hue = 0.05;  // ColorJitter factors
  double flip_probability = 0.5;
  double match_iou = 0.5;  // SsdEncode's threshold
  bool augment = true;  // false: no crop, flip or jitter (tests; the training set always augments)
};

// Training examples: shape [3, S, S]; side data (extra_floats) = the encoded targets of the A
// default boxes: 4 A floats of SsdTargets::loc (row-major [A, 4], xywh) then A labels as floats.
// The returned label is the number of objects left after the crop.
class SsdTrainDataset : public data::Dataset {
 public:
  // dboxes_xywh: models::MakeDefaultBoxes [A, 4] (copied to the CPU).
  SsdTrainDataset(std::shared_ptr<const DetectionSplit> split, SsdInputOptions options,
                  torch::Tensor dboxes_xywh);
  int64_t size() const override { return static_cast<int64_t>(split_->images.size()); }
  data::ExampleShape shape() const override;
  int64_t GetInto(int64_t index, data::Rng& rng, float* out) const override;
  int64_t extra_floats() const override { return 5 * num_boxes_; }
  int64_t GetIntoWithExtra(int64_t index, data::Rng& rng, float* out, float* extra) const override;

 private:
  std::shared_ptr<const DetectionSplit> split_;
  SsdInputOptions options_;
  torch::Tensor dboxes_ltrb_;
  int64_t num_boxes_ = 0;
};

// Evaluation examples: the resized, normalised image; the label is the sample index.
class SsdEvalDataset : public data::Dataset {
 public:
  SsdEvalDataset(std::shared_ptr<const DetectionSplit> split, SsdInputOptions options);
  int64_t size() const override { return static_cast<int64_t>(split_->images.size()); }
  data::ExampleShape shape() const override;
  int64_t GetInto(int64_t index, data::Rng& rng, float* out) const override;

 private:
  std::shared_ptr<const DetectionSplit> split_;
  SsdInputOptions options_;
};

// --- Mask R-CNN's input (the v0.5 reference, maskrcnn-benchmark's transforms) -----------------
//   training:   decode -> resize (shorter side min_size, longer at most max_size) -> random
//               horizontal flip -> BGR in [0, 255] minus the Caffe pixel means -> zero padding to
//               a fixed [3, P, P] (P = max_size rounded up to size_divisibility; the workload
//               crops each batch to its largest image, rounded up the same way, as the reference's
//               batch collator pads);
//   evaluation: the same without the flip.
// Side data (extra_floats() = 3): the resized height and width and whether it was flipped (0 / 1),
// from which the workload builds the targets (MakeMaskRcnnTarget) on the training thread.
struct MaskRcnnInputOptions {
  int64_t min_size = 800;
  int64_t max_size = 1333;
  int64_t size_divisibility = 32;
  std::array<float, 3> pixel_mean_bgr = {102.9801f, 115.9465f, 122.7717f};
  double flip_probability = 0.5;
  bool train = true;  // false: never flip
};

// maskrcnn-benchmark's Resize.get_size: (height, width) of an h x w image resized so its shorter
// side is min_size unless its longer side would then exceed max_size (then the shorter side is
// round(max_size * short / long)); the longer side is int(size * long / short).
std::pair<int64_t, int64_t> MaskRcnnResizedSize(int64_t height, int64_t width, int64_t min_size,
                                                int64_t max_size);

// x rounded up to a multiple of d (d <= 0: x).
int64_t RoundUpTo(int64_t x, int64_t d);

// The first (0-based) step at or after `epochs` epochs of `steps_per_epoch` steps:
// ceil(epochs x steps_per_epoch), as the official logs count a schedule's boundaries in steps
// (SSD's warmup steps, Mask R-CNN's decay steps).
int64_t StepAtEpoch(double epochs, int64_t steps_per_epoch);

class MaskRcnnDataset : public data::Dataset {
 public:
  MaskRcnnDataset(std::shared_ptr<const DetectionSplit> split, MaskRcnnInputOptions options);
  int64_t size() const override { return static_cast<int64_t>(split_->images.size()); }
  data::ExampleShape shape() const override;
  int64_t GetInto(int64_t index, data::Rng& rng, float* out) const override;
  int64_t extra_floats() const override { return 3; }
  // The label is the number of objects.
  int64_t GetIntoWithExtra(int64_t index, data::Rng& rng, float* out, float* extra) const override;
  int64_t padded_size() const { return RoundUpTo(options_.max_size, options_.size_divisibility); }

 private:
  std::shared_ptr<const DetectionSplit> split_;
  MaskRcnnInputOptions options_;
};

// The training target of image `img` resized to height x width (and mirrored when `flipped`):
// boxes scaled per axis (and x -> width - x), labels, and the instance masks [K, height, width]
// uint8 rasterised by COCO's rule from the scaled polygons (as the reference resizes its
// polygons before rasterising them); an RLE segmentation is decoded at the original size and
// resized by nearest neighbour, an empty one is its box. Needs a split read with masks.
struct MaskRcnnTargetData {
  torch::Tensor boxes;   // [K, 4] float
  torch::Tensor labels;  // [K] int64
  torch::Tensor masks;   // [K, height, width] uint8
};
MaskRcnnTargetData MakeMaskRcnnTarget(const DetectionImage& img, int64_t height, int64_t width,
                                      bool flipped);

// Decodes image `img` of a split to a [3, H, W] uint8 tensor and its boxes [N, 4] float.
torch::Tensor DecodeImageTensor(const DetectionImage& img);

// ColorJitter on a [3, H, W] float image in [0, 255]: brightness, contrast and saturation
// factors drawn uniformly in [max(0, 1 - f), 1 + f] and a hue shift in [-hue, hue] (a fraction
// of the colour circle), applied in a random order (as torchvision); the result stays in [0, 255].
torch::Tensor ColorJitter(const torch::Tensor& image, double brightness, double contrast,
                          double saturation, double hue, data::Rng& rng);
// Rotates the hue of a [3, H, W] float RGB image in [0, 255] by hue_factor (in [-0.5, 0.5], a
// fraction of the colour circle) through HSV, as torchvision's adjust_hue; grays stay as they are.
torch::Tensor AdjustHue(const torch::Tensor& image, double hue_factor);

}  // namespace trainbench::workloads

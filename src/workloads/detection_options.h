// The settings of the two COCO detection benchmarks, object_detection (SSD) and
// instance_segmentation (Mask R-CNN), as typed data. FromConfig reads a resolved configuration
// (core::ResolveConfig's `effective`) once, every key through core::ConfigReader (so an error
// names the key), checks what spans keys, and sets what the scale decides (the model preset and
// its logged backbone name), so that the workloads neither read keys by string nor branch on the
// scale for a setting. No LibTorch: the workloads turn these into model and pipeline options.
#pragma once

#include <cstdint>
#include <string>

#include "core/config_reader.h"
#include "core/json.h"

namespace trainbench::workloads {

// What SSD and Mask R-CNN both read: the batches, SGD with momentum and weight decay, the step
// decay at two epoch boundaries, the trunk's size, the classes and the inference's
// post-processing. A default is the value both mini definitions give; 0 where they differ.
struct DetectionOptions {
  int64_t blas_threads = 0;     // OpenBLAS threads; 0: the library's default
  int64_t batch_size = 0;       // global training batch (split over the ranks)
  int64_t eval_batch_size = 0;  // per rank
  double base_lr = 0.04;
  double momentum = 0.9;
  double weight_decay = 0;
  double lr_decay_epoch_1 = 0;  // the epoch from which the rate is x lr_decay_factor; 0: never
  double lr_decay_epoch_2 = 0;  // the second such boundary; 0: never
  double lr_decay_factor = 0.1;
  int64_t num_classes = 7;        // categories + background; must match the dataset
  int64_t width = 16;             // channels of the trunk's first stage (mini models; logged)
  int64_t blocks_per_stage = 1;   // basic blocks per trunk stage (mini models; logged)
  double nms_iou = 0.5;           // inference: IoU above which a box of the same class is dropped
  int64_t max_detections = 0;     // inference: detections kept per image
  double score_threshold = 0.05;  // inference: lowest score kept

  // The keys above, each read once.
  static DetectionOptions Read(const core::ConfigReader& config);
};

// The SSD model and default boxes a scale uses.
enum class SsdModel {
  kMini,    // models::MiniSsdOptions / MiniDefaultBoxes at image_size, width, blocks_per_stage
  kSsd300,  // models::Ssd300Options / Ssd300DefaultBoxes: ResNet-34 trunk, 300-pixel input
};

// object_detection. Defaults: the mini definition's values.
struct ObjectDetectionOptions {
  DetectionOptions detection;
  double warmup_epochs = 1.0;  // linear warmup from 0 over this many epochs; 0: none
  double neg_ratio = 3.0;      // hard negatives per positive in the loss
  int64_t image_size = 128;    // square network input (pixels)
  double match_iou = 0.5;      // IoU above which a default box is matched to a ground-truth box
  // The trunk's starting weights as configured (not yet expanded by core::ExpandDataPath);
  // empty: trained from scratch.
  std::string pretrained_trunk;
  // Fixed by the scale's preset (`model`: ssd_mini or ssd300).
  SsdModel model = SsdModel::kMini;
  std::string backbone = "resnet_mini";  // logged as `backbone`

  // `config`: a resolved configuration; `preset`: its scale's (core::ScaleDef::preset). Throws
  // core::Error naming the key for a missing key, a value of the wrong type and an SSD300 input
  // that is not 300 pixels.
  static ObjectDetectionOptions FromConfig(const core::Json& config, const core::Json& preset);
};

// The Mask R-CNN model a scale uses.
enum class MaskRcnnModel {
  kMini,    // models::MiniMaskRcnnOptions at max_size, width, blocks_per_stage, fpn_channels
  kR50Fpn,  // models::MaskRcnnR50FpnOptions: maskrcnn-benchmark's R-50-FPN
};

// instance_segmentation. Defaults: the mini definition's values.
struct InstanceSegmentationOptions {
  DetectionOptions detection;
  double bias_lr_factor = 2.0;             // biases' learning rate / the others'
  int64_t warmup_steps = 100;              // iterations of linear warmup
  double warmup_factor = 0.333333333333;   // learning rate factor at step 0 of the warmup
  int64_t min_size = 128;                  // shorter side of the resized image (pixels)
  int64_t max_size = 128;                  // longest side allowed (pixels); at least min_size
  int64_t fpn_channels = 64;               // mini models (the R-50-FPN has its own)
  int64_t rpn_pre_nms_top_n_train = 1000;  // proposals per level before NMS
  int64_t rpn_post_nms_top_n_train = 500;  // proposals per image after NMS
  int64_t rpn_pre_nms_top_n_test = 500;
  int64_t rpn_post_nms_top_n_test = 300;
  int64_t roi_batch_size_per_image = 128;  // RoIs sampled per image for the box head
  int64_t mask_head_channels = 32;
  int64_t mask_pool_size = 7;  // the mask head's RoIAlign output
  // "fp32", "bf16" or "fp16" (checked here; the workload's ParsePrecision needs the device too).
  std::string precision = "fp32";
  bool channels_last = false;  // NHWC weights and inputs
  // Fixed by the scale's preset (`model`: maskrcnn_mini or maskrcnn_r50_fpn).
  MaskRcnnModel model = MaskRcnnModel::kMini;
  std::string backbone = "resnet_mini_fpn";  // logged as `backbone`

  // `config`: a resolved configuration; `preset`: its scale's (core::ScaleDef::preset). Throws
  // core::Error naming the key for a missing key, a value of the wrong type, a precision other
  // than fp32, bf16 or fp16, and a min_size above max_size.
  static InstanceSegmentationOptions FromConfig(const core::Json& config, const core::Json& preset);
};

}  // namespace trainbench::workloads

#include "workloads/detection_options.h"

#include "core/benchmark_def.h"
#include "core/error.h"

namespace trainbench::workloads {

namespace {

using core::ConfigReader;

}  // namespace

DetectionOptions DetectionOptions::Read(const ConfigReader& r) {
  DetectionOptions o;
  o.blas_threads = r.Int("blas_threads");
  o.batch_size = r.Int("batch_size");
  o.eval_batch_size = r.Int("eval_batch_size");
  o.base_lr = r.Float("base_lr");
  o.momentum = r.Float("momentum");
  o.weight_decay = r.Float("weight_decay");
  o.lr_decay_epoch_1 = r.Float("lr_decay_epoch_1");
  o.lr_decay_epoch_2 = r.Float("lr_decay_epoch_2");
  o.lr_decay_factor = r.Float("lr_decay_factor");
  o.num_classes = r.Int("num_classes");
  o.width = r.Int("width");
  o.blocks_per_stage = r.Int("blocks_per_stage");
  o.nms_iou = r.Float("nms_iou");
  o.max_detections = r.Int("max_detections");
  o.score_threshold = r.Float("score_threshold");
  return o;
}

ObjectDetectionOptions ObjectDetectionOptions::FromConfig(const core::Json& config,
                                                          const core::Json& preset) {
  const core::Json all = core::WithPreset(config, preset);
  const ConfigReader r(all);
  ObjectDetectionOptions o;
  o.model =
      r.OneOf("model", {"ssd_mini", "ssd300"}) == "ssd300" ? SsdModel::kSsd300 : SsdModel::kMini;
  o.backbone = r.String("backbone");
  o.detection = DetectionOptions::Read(r);
  o.warmup_epochs = r.Float("warmup_epochs");
  o.neg_ratio = r.Float("neg_ratio");
  o.image_size = r.Int("image_size");
  o.match_iou = r.Float("match_iou");
  o.pretrained_trunk = r.String("pretrained_trunk");
  if (o.model == SsdModel::kSsd300 && o.image_size != 300)
    throw ConfigReader::KeyError("image_size", "SSD300 needs 300");
  return o;
}

InstanceSegmentationOptions InstanceSegmentationOptions::FromConfig(const core::Json& config,
                                                                    const core::Json& preset) {
  const core::Json all = core::WithPreset(config, preset);
  const ConfigReader r(all);
  InstanceSegmentationOptions o;
  o.model = r.OneOf("model", {"maskrcnn_mini", "maskrcnn_r50_fpn"}) == "maskrcnn_r50_fpn"
                ? MaskRcnnModel::kR50Fpn
                : MaskRcnnModel::kMini;
  o.backbone = r.String("backbone");
  o.detection = DetectionOptions::Read(r);
  o.bias_lr_factor = r.Float("bias_lr_factor");
  o.warmup_steps = r.Int("warmup_steps");
  o.warmup_factor = r.Float("warmup_factor");
  o.min_size = r.Int("min_size");
  o.max_size = r.Int("max_size");
  o.fpn_channels = r.Int("fpn_channels");
  o.rpn_pre_nms_top_n_train = r.Int("rpn_pre_nms_top_n_train");
  o.rpn_post_nms_top_n_train = r.Int("rpn_post_nms_top_n_train");
  o.rpn_pre_nms_top_n_test = r.Int("rpn_pre_nms_top_n_test");
  o.rpn_post_nms_top_n_test = r.Int("rpn_post_nms_top_n_test");
  o.roi_batch_size_per_image = r.Int("roi_batch_size_per_image");
  o.mask_head_channels = r.Int("mask_head_channels");
  o.mask_pool_size = r.Int("mask_pool_size");
  o.precision = r.OneOf("precision", {"fp32", "bf16", "fp16"});
  o.channels_last = r.Bool("channels_last");
  if (o.min_size > o.max_size) {
    throw ConfigReader::KeyError(
        "min_size",
        std::to_string(o.min_size) + " is larger than max_size " + std::to_string(o.max_size));
  }
  return o;
}

}  // namespace trainbench::workloads

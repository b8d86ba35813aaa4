#include "workloads/detection_options.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "core/benchmark_def.h"
#include "core/error.h"
#include "workloads/options_test_util.h"

namespace trainbench::workloads {
namespace {

TEST(ObjectDetectionOptions, MiniDefaults) {
  const auto o = ObjectDetectionOptions::FromConfig(ReferenceConfig("object_detection", "mini"),
                                                    Preset("object_detection", "mini"));
  EXPECT_EQ(o.detection.batch_size, 32);
  EXPECT_DOUBLE_EQ(o.detection.base_lr, 0.04);
  EXPECT_DOUBLE_EQ(o.detection.lr_decay_epoch_2, 28.0);
  EXPECT_EQ(o.detection.num_classes, 7);
  EXPECT_EQ(o.detection.blas_threads, 1);
  EXPECT_EQ(o.image_size, 128);
  EXPECT_DOUBLE_EQ(o.warmup_epochs, 1.0);
  EXPECT_EQ(o.pretrained_trunk, "");
  EXPECT_EQ(o.model, SsdModel::kMini);
  EXPECT_EQ(o.backbone, "resnet_mini");
}

TEST(ObjectDetectionOptions, FullDefaults) {
  const auto o = ObjectDetectionOptions::FromConfig(ReferenceConfig("object_detection", "full"),
                                                    Preset("object_detection", "full"));
  EXPECT_DOUBLE_EQ(o.detection.base_lr, 0.0025);
  EXPECT_EQ(o.detection.num_classes, 81);
  EXPECT_EQ(o.detection.max_detections, 200);
  EXPECT_EQ(o.image_size, 300);
  EXPECT_DOUBLE_EQ(o.warmup_epochs, 0.0);
  EXPECT_EQ(o.model, SsdModel::kSsd300);
  EXPECT_EQ(o.backbone, "resnet34");
}

TEST(ObjectDetectionOptions, ErrorsNameTheKey) {
  core::Json c = ReferenceConfig("object_detection", "full");
  c["batch_size"] = "x";
  EXPECT_EQ(
      ErrorOf([&] { ObjectDetectionOptions::FromConfig(c, Preset("object_detection", "full")); }),
      "configuration key \"batch_size\": expected an integer, got \"x\"");
  c = ReferenceConfig("object_detection", "full");
  c["image_size"] = 128;
  EXPECT_EQ(
      ErrorOf([&] { ObjectDetectionOptions::FromConfig(c, Preset("object_detection", "full")); }),
      "configuration key \"image_size\": SSD300 needs 300");
  EXPECT_EQ(
      ErrorOf([&] { ObjectDetectionOptions::FromConfig(c, Preset("object_detection", "mini")); }),
      "(no error)");
  // The preset is read with the configuration: a scale without one names the first key missing.
  EXPECT_EQ(ErrorOf([&] { ObjectDetectionOptions::FromConfig(c, core::Json::object()); }),
            "configuration key \"model\": missing from the configuration");
  core::Json preset = Preset("object_detection", "full");
  preset["model"] = "ssd512";
  EXPECT_EQ(ErrorOf([&] { ObjectDetectionOptions::FromConfig(c, preset); }),
            "configuration key \"model\": expected ssd_mini or ssd300, got \"ssd512\"");
}

TEST(InstanceSegmentationOptions, MiniDefaults) {
  const auto o = InstanceSegmentationOptions::FromConfig(
      ReferenceConfig("instance_segmentation", "mini"), Preset("instance_segmentation", "mini"));
  EXPECT_EQ(o.detection.batch_size, 16);
  EXPECT_DOUBLE_EQ(o.detection.weight_decay, 0.0001);
  EXPECT_EQ(o.detection.max_detections, 100);
  EXPECT_EQ(o.warmup_steps, 100);
  EXPECT_EQ(o.min_size, 128);
  EXPECT_EQ(o.rpn_post_nms_top_n_train, 500);
  EXPECT_EQ(o.mask_pool_size, 7);
  EXPECT_EQ(o.precision, "fp32");
  EXPECT_FALSE(o.channels_last);
  EXPECT_EQ(o.model, MaskRcnnModel::kMini);
  EXPECT_EQ(o.backbone, "resnet_mini_fpn");
}

TEST(InstanceSegmentationOptions, FullDefaults) {
  const auto o = InstanceSegmentationOptions::FromConfig(
      ReferenceConfig("instance_segmentation", "full"), Preset("instance_segmentation", "full"));
  EXPECT_DOUBLE_EQ(o.detection.lr_decay_epoch_1, 8.19);
  EXPECT_EQ(o.detection.eval_batch_size, 8);
  EXPECT_EQ(o.min_size, 800);
  EXPECT_EQ(o.max_size, 1333);
  EXPECT_EQ(o.fpn_channels, 256);
  EXPECT_EQ(o.model, MaskRcnnModel::kR50Fpn);
  EXPECT_EQ(o.backbone, "resnet50_fpn");
}

TEST(InstanceSegmentationOptions, ErrorsNameTheKey) {
  core::Json c = ReferenceConfig("instance_segmentation", "mini");
  c["channels_last"] = 1;
  EXPECT_EQ(ErrorOf([&] {
              InstanceSegmentationOptions::FromConfig(c, Preset("instance_segmentation", "mini"));
            }),
            "configuration key \"channels_last\": expected true or false, got 1");
  c = ReferenceConfig("instance_segmentation", "mini");
  c["precision"] = "fp8";
  EXPECT_EQ(ErrorOf([&] {
              InstanceSegmentationOptions::FromConfig(c, Preset("instance_segmentation", "mini"));
            }),
            "configuration key \"precision\": expected fp32, bf16 or fp16, got \"fp8\"");
  c = ReferenceConfig("instance_segmentation", "mini");
  c["min_size"] = 256;
  EXPECT_EQ(ErrorOf([&] {
              InstanceSegmentationOptions::FromConfig(c, Preset("instance_segmentation", "mini"));
            }),
            "configuration key \"min_size\": 256 is larger than max_size 128");
}

}  // namespace
}  // namespace trainbench::workloads

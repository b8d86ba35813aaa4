#include "workloads/detection_data.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/error.h"
#include "data/image.h"
#include "data/jpeg_codec.h"
#include "models/ssd.h"
#include "vision/boxes.h"

namespace trainbench::workloads {
namespace {

namespace fs = std::filesystem;

// A two-image COCO folder: image 1 (64x48) holds a 16x16 square of category 5 at (8, 8), a
// 24x20 box of category 9 and a crowd region of category 2; image 2 (64x48) holds nothing.
// Categories are listed out of id order (9, 2, 5).
std::string MakeFolder(const std::string& name, int image2_width = 64) {
  const fs::path dir = fs::path(TRAINBENCH_TEST_BINDIR) / "detection_data_test" / name;
  fs::remove_all(dir);
  fs::create_directories(dir / "images");
  data::Image a(48, 64, 3), b(48, image2_width, 3);
  for (size_t i = 0; i < a.data.size(); ++i) a.data[i] = static_cast<uint8_t>((i * 7) % 251);
  for (auto& v : b.data) v = 90;
  data::WriteJpegFile((dir / "images" / "1.jpg").string(), a);
  data::WriteJpegFile((dir / "images" / "2.jpg").string(), b);
  std::ofstream(dir / "instances.json") << R"({
    "images": [{"id": 1, "file_name": "1.jpg", "width": 64, "height": 48},
               {"id": 2, "file_name": "2.jpg", "width": 64, "height": 48}],
    "annotations": [
      {"id": 10, "image_id": 1, "category_id": 5, "bbox": [8, 8, 16, 16], "area": 256, "iscrowd": 0,
       "segmentation": [[8, 8, 24, 8, 24, 24, 8, 24]]},
      {"id": 11, "image_id": 1, "category_id": 9, "bbox": [30, 20, 24, 20], "area": 480, "iscrowd": 0,
       "segmentation": [[30, 20, 54, 20, 54, 40, 30, 40]]},
      {"id": 12, "image_id": 1, "category_id": 2, "bbox": [2, 0, 2, 48], "area": 50, "iscrowd": 1,
       "segmentation": {"size": [48, 64], "counts": [100, 50, 2922]}}],
    "categories": [{"id": 9, "name": "nine", "supercategory": "s"}, {"id": 2, "name": "two", "supercategory": "s"},
                   {"id": 5, "name": "five", "supercategory": "s"}]})";
  return dir.string();
}

TEST(DetectionData, SplitNumbersCategoriesByIdAndDropsCrowdsAndEmptyImagesForTraining) {
  const std::string dir = MakeFolder("split");
  const DetectionSplit train = LoadDetectionSplit(dir + "/instances.json", dir + "/images", true);
  EXPECT_EQ(train.category_ids, (std::vector<int64_t>{2, 5, 9}));
  EXPECT_EQ(train.category_names, (std::vector<std::string>{"two", "five", "nine"}));
  ASSERT_EQ(train.images.size(), 1u);
  EXPECT_EQ(train.images[0].image_id, 1);
  EXPECT_EQ(train.images[0].labels, (std::vector<int64_t>{2, 3}));  // 5 -> 2, 9 -> 3
  EXPECT_EQ(train.images[0].boxes, (std::vector<float>{8, 8, 24, 24, 30, 20, 54, 40}));  // xyxy
  EXPECT_EQ(train.crowd_dropped, 1);
  EXPECT_EQ(train.empty_dropped, 1);
  const DetectionSplit val = LoadDetectionSplit(dir + "/instances.json", dir + "/images", false);
  ASSERT_EQ(val.images.size(), 2u);
  EXPECT_EQ(val.images[0].labels.size(),
            3u);  // the crowd stays (COCO evaluation reads the JSON itself)
}

TEST(DetectionData, WithoutAugmentationTheTargetsAreTheGroundTruthBoxes) {
  const std::string dir = MakeFolder("targets");
  auto split = std::make_shared<const DetectionSplit>(
      LoadDetectionSplit(dir + "/instances.json", dir + "/images", true));
  torch::set_num_threads(1);
  const torch::Tensor dboxes = models::MakeDefaultBoxes(models::MiniDefaultBoxes(64, {8, 4, 2, 1}));
  SsdInputOptions o;
  o.image_size = 64;
  o.augment = false;
  SsdTrainDataset ds(split, o, dboxes);
  const int64_t a = dboxes.size(0);
  EXPECT_EQ(ds.extra_floats(), 5 * a);
  EXPECT_EQ(ds.shape(), (data::ExampleShape{3, 64, 64}));
  std::vector<float> image(static_cast<size_t>(ds.shape().numel())),
      extra(static_cast<size_t>(5 * a));
  data::Rng rng(1);
  EXPECT_EQ(ds.GetIntoWithExtra(0, rng, image.data(), extra.data()), 2);
  // Each positive default box carries its object's box, normalised (x by 64, y by 48) in xywh.
  const float want[2][4] = {{16.0f / 64, 16.0f / 48, 16.0f / 64, 16.0f / 48},
                            {42.0f / 64, 30.0f / 48, 24.0f / 64, 20.0f / 48}};
  int positives[4] = {0, 0, 0, 0};
  for (int64_t k = 0; k < a; ++k) {
    const int label = static_cast<int>(extra[static_cast<size_t>(4 * a + k)]);
    ASSERT_TRUE(label == 0 || label == 2 || label == 3) << label;
    ++positives[label];
    if (label == 0) continue;
    for (int j = 0; j < 4; ++j)
      EXPECT_NEAR(extra[static_cast<size_t>(4 * k + j)], want[label - 2][j], 1e-5);
  }
  EXPECT_GE(positives[2], 1);
  EXPECT_GE(positives[3], 1);
  // The image is normalised: 0..255 maps to about [-2.1, 2.7].
  for (float v : image) ASSERT_TRUE(v > -2.2f && v < 2.7f);
}

TEST(DetectionData, AugmentationIsAFunctionOfTheSampleRng) {
  const std::string dir = MakeFolder("rng");
  auto split = std::make_shared<const DetectionSplit>(
      LoadDetectionSplit(dir + "/instances.json", dir + "/images", true));
  torch::set_num_threads(1);
  const torch::Tensor dboxes = models::MakeDefaultBoxes(models::MiniDefaultBoxes(64, {8, 4, 2, 1}));
  SsdInputOptions o;
  o.image_size = 64;
  SsdTrainDataset ds(split, o, dboxes);
  auto get = [&](uint64_t seed, int64_t epoch) {
    std::vector<float> v(static_cast<size_t>(ds.shape().numel() + ds.extra_floats()));
    data::Rng rng = data::SampleRng(seed, epoch, 0);
    ds.GetIntoWithExtra(0, rng, v.data(), v.data() + ds.shape().numel());
    return v;
  };
  EXPECT_EQ(get(7, 1), get(7, 1));
  int differ = 0;
  for (int64_t e = 2; e < 6; ++e) differ += get(7, 1) != get(7, e);
  EXPECT_GE(differ, 3);  // crops, flips and jitter change between epochs
}

TEST(DetectionData, ColorJitterKeepsTheRangeAndIsIdentityAtZero) {
  data::Rng rng(3);
  const torch::Tensor x = torch::rand({3, 8, 8}) * 255;
  EXPECT_TRUE(torch::equal(ColorJitter(x, 0, 0, 0, 0, rng), x));
  const torch::Tensor y = ColorJitter(x, 0.5, 0.5, 0.5, 0.05, rng);
  EXPECT_GE(y.min().item<float>(), 0.0f);
  EXPECT_LE(y.max().item<float>(), 255.0f);
  EXPECT_FALSE(torch::equal(y, x));
}

// One pixel per column: pure red, yellow, green, a gray and an orange (255, 128, 0).
torch::Tensor HuePixels() {
  return torch::tensor({255.f, 255.f, 0.f, 90.f, 255.f, 0.f, 255.f, 255.f, 90.f, 128.f, 0.f, 0.f,
                        0.f, 90.f, 0.f})
      .view({3, 1, 5});
}

TEST(DetectionData, AdjustHueRotatesTheColourCircleAndLeavesGraysAlone) {
  const torch::Tensor x = HuePixels();
  EXPECT_TRUE(torch::allclose(AdjustHue(x, 0), x));
  // A third of the circle: red -> green, yellow (60 deg) -> cyan, green -> blue; gray stays;
  // orange (30 deg) -> (0, 255, 128) at 150 deg.
  const torch::Tensor third = AdjustHue(x, 1.0 / 3.0);
  const torch::Tensor want = torch::tensor({0.f, 0.f, 0.f, 90.f, 0.f, 255.f, 255.f, 0.f, 90.f,
                                            255.f, 0.f, 255.f, 255.f, 90.f, 128.f})
                                 .view({3, 1, 5});
  EXPECT_TRUE(torch::allclose(third, want, 1e-4, 0.6)) << third;
  // Backwards past 0 wraps: red - 1/6 of the circle = magenta.
  const torch::Tensor magenta = AdjustHue(x, -1.0 / 6.0).select(2, 0).flatten();
  EXPECT_TRUE(torch::allclose(magenta, torch::tensor({255.f, 0.f, 255.f}), 1e-4, 1e-3)) << magenta;
  // A small shift there and back returns the image.
  const torch::Tensor back = AdjustHue(AdjustHue(x, 0.05), -0.05);
  EXPECT_TRUE(torch::allclose(back, x, 1e-4, 1e-2)) << back;
  EXPECT_THROW(AdjustHue(x, 0.6), std::invalid_argument);
}

TEST(DetectionData, AnImageOfAnotherSizeThanItsAnnotationIsAnErrorNamingIt) {
  const std::string dir = MakeFolder("badsize", /*image2_width=*/40);
  const DetectionSplit val = LoadDetectionSplit(dir + "/instances.json", dir + "/images", false);
  try {
    DecodeImageTensor(val.images[1]);
    FAIL() << "no error";
  } catch (const core::Error& e) {
    EXPECT_NE(
        std::string(e.what()).find("2.jpg: image id 2 is 40x48 pixels, its annotation says 64x48"),
        std::string::npos)
        << e.what();
  }
}

TEST(DetectionData, MaskRcnnResizeFollowsTheReferencesGetSize) {
  using P = std::pair<int64_t, int64_t>;
  EXPECT_EQ(MaskRcnnResizedSize(480, 640, 800, 1333), (P{800, 1066}));  // (h, w): shorter side 800
  EXPECT_EQ(MaskRcnnResizedSize(500, 375, 800, 1333), (P{1066, 800}));
  // 1:3: 800 would make the long side 2400 > 1333, so the short side is round(1333 / 3) = 444.
  EXPECT_EQ(MaskRcnnResizedSize(400, 1200, 800, 1333), (P{444, 1332}));
  EXPECT_EQ(MaskRcnnResizedSize(800, 1000, 800, 1333), (P{800, 1000}));  // already there: unchanged
  EXPECT_EQ(MaskRcnnResizedSize(128, 128, 128, 128), (P{128, 128}));
  EXPECT_EQ(RoundUpTo(1333, 32), 1344);
  EXPECT_EQ(RoundUpTo(128, 32), 128);
}

TEST(DetectionData, StepAtEpochIsTheFirstStepAtOrAfterTheBoundary) {
  EXPECT_EQ(StepAtEpoch(8.19, 7330), 60033);  // ceil(60032.7)
  EXPECT_EQ(StepAtEpoch(2.0, 100), 200);      // on the boundary: no rounding error pushes it up
  EXPECT_EQ(StepAtEpoch(0.07, 100), 7);       // 0.07 x 100 is 7.000000000000001 in doubles
  EXPECT_EQ(StepAtEpoch(0.0, 100), 0);
}

TEST(DetectionData, MaskRcnnInputIsBgrMinusTheMeansZeroPaddedWithItsGeometry) {
  const std::string dir = MakeFolder("maskrcnn_input");
  auto split = std::make_shared<const DetectionSplit>(
      LoadDetectionSplit(dir + "/instances.json", dir + "/images", false, true));
  torch::set_num_threads(1);
  MaskRcnnInputOptions o;
  o.min_size = 24;  // 64x48 -> 32x24
  o.max_size = 40;  // padded to 64
  o.train = false;
  MaskRcnnDataset ds(split, o);
  EXPECT_EQ(ds.shape(), (data::ExampleShape{3, 64, 64}));
  std::vector<float> image(static_cast<size_t>(ds.shape().numel())), extra(3);
  data::Rng rng(1);
  EXPECT_EQ(ds.GetIntoWithExtra(1, rng, image.data(), extra.data()), 0);  // image 2: no objects
  EXPECT_EQ(extra, (std::vector<float>{24, 32, 0}));
  const torch::Tensor x = torch::from_blob(image.data(), {3, 64, 64});
  // Image 2 is uniformly 90 (up to JPEG): channel 0 is blue, minus 102.98.
  EXPECT_NEAR(x[0].narrow(0, 0, 24).narrow(1, 0, 32).mean().item<float>(), 90 - 102.9801, 1.5);
  EXPECT_NEAR(x[2].narrow(0, 0, 24).narrow(1, 0, 32).mean().item<float>(), 90 - 122.7717, 1.5);
  EXPECT_EQ(x.narrow(1, 24, 40).abs().sum().item<float>(), 0);  // the padding is zero
  EXPECT_EQ(x.narrow(2, 32, 32).abs().sum().item<float>(), 0);
  // Training draws the flip from the sample's Rng: about half the draws flip.
  o.train = true;
  MaskRcnnDataset train(split, o);
  int flips = 0;
  for (int k = 0; k < 200; ++k) {
    data::Rng r(static_cast<uint64_t>(k));
    train.GetIntoWithExtra(0, r, image.data(), extra.data());
    flips += extra[2] != 0;
  }
  EXPECT_GT(flips, 70);
  EXPECT_LT(flips, 130);
}

TEST(DetectionData, MaskRcnnTargetsScaleAndMirrorBoxesAndMasksTogether) {
  const std::string dir = MakeFolder("maskrcnn_target");
  const DetectionSplit split =
      LoadDetectionSplit(dir + "/instances.json", dir + "/images", true, true);
  ASSERT_EQ(split.images[0].segmentations.size(), 2u);
  // The 16x16 square at (8, 8) and the 24x20 box at (30, 20) of the 64x48 image, at 32x24.
  MaskRcnnTargetData t = MakeMaskRcnnTarget(split.images[0], 24, 32, false);
  EXPECT_TRUE(torch::allclose(
      t.boxes, torch::tensor({4.f, 4.f, 12.f, 12.f, 15.f, 10.f, 27.f, 20.f}).view({2, 4})));
  EXPECT_EQ(t.labels[0].item<int64_t>(), 2);
  ASSERT_EQ(t.masks.sizes(), (std::vector<int64_t>{2, 24, 32}));
  // Each mask is its (scaled) polygon: exactly the box's pixels.
  for (int64_t i = 0; i < 2; ++i) {
    auto b = t.boxes[i];
    const int64_t x0 = b[0].item<int64_t>(), y0 = b[1].item<int64_t>(), x1 = b[2].item<int64_t>(),
                  y1 = b[3].item<int64_t>();
    EXPECT_EQ(t.masks[i].sum().item<int64_t>(), (x1 - x0) * (y1 - y0)) << i;
    EXPECT_EQ(t.masks[i].narrow(0, y0, y1 - y0).narrow(1, x0, x1 - x0).sum().item<int64_t>(),
              (x1 - x0) * (y1 - y0))
        << i;
  }
  // Mirrored: boxes x -> 32 - x, masks flipped along the width, the same pixels otherwise.
  MaskRcnnTargetData f = MakeMaskRcnnTarget(split.images[0], 24, 32, true);
  EXPECT_TRUE(torch::allclose(
      f.boxes, torch::tensor({20.f, 4.f, 28.f, 12.f, 5.f, 10.f, 17.f, 20.f}).view({2, 4})));
  EXPECT_TRUE(torch::equal(f.masks, t.masks.flip({2})));
  // A split read without masks cannot give targets.
  const DetectionSplit plain = LoadDetectionSplit(dir + "/instances.json", dir + "/images", true);
  EXPECT_THROW(MakeMaskRcnnTarget(plain.images[0], 24, 32, false), std::logic_error);
}

}  // namespace
}  // namespace trainbench::workloads

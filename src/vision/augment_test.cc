#include "vision/augment.h"

#include <gtest/gtest.h>

#include <cmath>

#include "vision/boxes.h"
#include "vision/test_util.h"

namespace trainbench::vision {
namespace {

using testing::MaskBox;
using VisionAugmentTest = testing::VisionTest;
using torch::indexing::Slice;

// An H x W image with `n` integer rectangles as boxes, their filled masks, labels 1..n.
DetectionSample RectangleSample(uint64_t seed, int64_t n, int64_t height = 90,
                                int64_t width = 120) {
  data::Rng rng(seed, 99);
  DetectionSample s;
  s.image = torch::randint(0, 256, {3, height, width}, at::detail::createCPUGenerator(seed))
                .to(torch::kUInt8);
  s.boxes = torch::zeros({n, 4});
  s.labels = torch::arange(1, n + 1, torch::kLong);
  s.masks = torch::zeros({n, height, width}, torch::kUInt8);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t x0 = rng.UniformInt(0, width - 2), y0 = rng.UniformInt(0, height - 2);
    const int64_t x1 = rng.UniformInt(x0 + 1, std::min(width, x0 + 60));
    const int64_t y1 = rng.UniformInt(y0 + 1, std::min(height, y0 + 50));
    s.boxes[i] = torch::tensor({x0, y0, x1, y1}, torch::kFloat);
    s.masks.index_put_({i, Slice(y0, y1), Slice(x0, x1)}, 1);
  }
  return s;
}

void ExpectConsistent(const DetectionSample& s, const std::string& where) {
  const int64_t n = s.boxes.size(0);
  ASSERT_EQ(s.labels.size(0), n) << where;
  ASSERT_EQ(s.masks.size(0), n) << where;
  ASSERT_EQ(s.masks.size(1), s.height()) << where;
  ASSERT_EQ(s.masks.size(2), s.width()) << where;
  const auto b = s.boxes.accessor<float, 2>();
  for (int64_t i = 0; i < n; ++i) {
    EXPECT_GE(b[i][0], 0) << where;
    EXPECT_GE(b[i][1], 0) << where;
    EXPECT_LE(b[i][2], s.width()) << where;
    EXPECT_LE(b[i][3], s.height()) << where;
    EXPECT_LE(b[i][0], b[i][2]) << where;
    EXPECT_LE(b[i][1], b[i][3]) << where;
    const auto mb = MaskBox(s.masks[i]);
    if (b[i][2] > b[i][0] && b[i][3] > b[i][1]) {
      for (int j = 0; j < 4; ++j)
        EXPECT_EQ(mb[j], b[i][j]) << where << " box " << i << " coord " << j;
    } else {
      EXPECT_EQ(s.masks[i].sum().item<int64_t>(), 0) << where;
    }
  }
}

TEST_F(VisionAugmentTest, ReferenceModes) {
  const auto modes = SsdCropModes();
  ASSERT_EQ(modes.size(), 7u);
  EXPECT_FALSE(modes[0].crop);
  EXPECT_DOUBLE_EQ(modes[3].min_iou, 0.5);
  EXPECT_TRUE(modes[6].crop);
  EXPECT_TRUE(std::isinf(modes[6].min_iou));
}

TEST_F(VisionAugmentTest, CropKeepsBoxesInsideAndMasksConsistent) {
  int cropped = 0;
  for (uint64_t seed = 0; seed < 150; ++seed) {
    const auto sample = RectangleSample(seed, 1 + seed % 6);
    data::Rng rng(seed);
    SsdCropInfo info;
    const auto out = SsdRandomCrop(sample, rng, {}, &info);
    const std::string where = "seed " + std::to_string(seed);
    ExpectConsistent(out, where);
    if (!info.cropped) {
      EXPECT_FALSE(info.mode.crop);
      EXPECT_TRUE(out.image.equal(sample.image)) << where;
      continue;
    }
    ++cropped;
    EXPECT_EQ(out.height(), info.y1 - info.y0) << where;
    EXPECT_EQ(out.width(), info.x1 - info.x0) << where;
    EXPECT_TRUE(out.image.equal(
        sample.image.index({Slice(), Slice(info.y0, info.y1), Slice(info.x0, info.x1)})))
        << where;
    // The window's shape constraints.
    const double w = info.right - info.left, h = info.bottom - info.top;
    EXPECT_GE(w, 0.3);
    EXPECT_GE(h, 0.3);
    EXPECT_LE(info.right, 1.0 + 1e-12);
    EXPECT_LE(info.bottom, 1.0 + 1e-12);
    EXPECT_GE(w / h, 0.5);
    EXPECT_LE(w / h, 2.0);
    // The min-IoU constraint holds for every original box.
    const auto scale = torch::tensor(
        {1.0 / sample.width(), 1.0 / sample.height(), 1.0 / sample.width(), 1.0 / sample.height()},
        torch::kDouble);
    const auto window =
        torch::tensor({info.left, info.top, info.right, info.bottom}, torch::kDouble).view({1, 4});
    const auto ious = BoxIou(sample.boxes.to(torch::kDouble) * scale, window);
    EXPECT_TRUE(ious.gt(info.mode.min_iou).all().item<bool>()) << where;
    // Each kept box is its original (found by label), shifted into the window and clipped.
    ASSERT_GT(out.boxes.size(0), 0) << where;
    for (int64_t i = 0; i < out.boxes.size(0); ++i) {
      const int64_t original = out.labels[i].item<int64_t>() - 1;
      const auto shift = torch::tensor({info.x0, info.y0, info.x0, info.y0}, torch::kFloat);
      const auto expected = ClipBoxesToImage((sample.boxes[original] - shift).view({1, 4}),
                                             out.height(), out.width())[0];
      EXPECT_TRUE(out.boxes[i].equal(expected)) << where;
    }
  }
  EXPECT_GT(cropped, 30);  // most draws crop (6 of 7 modes)
}

TEST_F(VisionAugmentTest, CropIsDeterministicForASeed) {
  const auto sample = RectangleSample(5, 4);
  data::Rng a(42), b(42);
  const auto x = SsdRandomCrop(sample, a);
  const auto y = SsdRandomCrop(sample, b);
  EXPECT_TRUE(x.image.equal(y.image));
  EXPECT_TRUE(x.boxes.equal(y.boxes));
  EXPECT_TRUE(x.labels.equal(y.labels));
}

TEST_F(VisionAugmentTest, CropWithHighMinIouOnlyAndFiftyAttempts) {
  // Only the 0.9 mode, 50 attempts per draw: every result that crops has IoU > 0.9 with each box.
  SsdCropOptions o;
  o.modes = {SsdCropModes()[5]};
  o.attempts = 50;
  DetectionSample s = RectangleSample(1, 1);
  s.boxes = torch::tensor({{6.0f, 4.0f, 114.0f, 86.0f}});  // nearly the whole 120 x 90 image
  s.masks.zero_();
  s.masks.index_put_({0, Slice(4, 86), Slice(6, 114)}, 1);
  for (uint64_t seed = 0; seed < 20; ++seed) {
    data::Rng rng(seed);
    SsdCropInfo info;
    const auto out = SsdRandomCrop(s, rng, o, &info);
    ASSERT_TRUE(info.cropped);
    const double iw = std::min(info.right, 114.0 / 120) - std::max(info.left, 6.0 / 120);
    const double ih = std::min(info.bottom, 86.0 / 90) - std::max(info.top, 4.0 / 90);
    const double inter = std::max(iw, 0.0) * std::max(ih, 0.0);
    const double box_area = (108.0 / 120) * (82.0 / 90);
    const double window_area = (info.right - info.left) * (info.bottom - info.top);
    EXPECT_GT(inter / (box_area + window_area - inter), 0.9);
    ExpectConsistent(out, "seed " + std::to_string(seed));
  }
}

TEST_F(VisionAugmentTest, NoBoxesReturnsTheOriginal) {
  DetectionSample s = RectangleSample(3, 0);
  data::Rng rng(9);
  SsdCropInfo info;
  const auto out = SsdRandomCrop(s, rng, {}, &info);
  EXPECT_FALSE(info.cropped);
  EXPECT_TRUE(out.image.equal(s.image));
  // Without the original mode the draws are bounded.
  SsdCropOptions o;
  o.modes = {SsdCropMode{}};
  o.max_draws = 20;
  SsdRandomCrop(s, rng, o, &info);
  EXPECT_FALSE(info.cropped);
  EXPECT_EQ(info.draws, 20);
}

TEST_F(VisionAugmentTest, FlipTwiceIsIdentity) {
  const auto s = RectangleSample(7, 5);
  const auto once = HorizontalFlip(s);
  ExpectConsistent(once, "flipped");
  EXPECT_FALSE(once.image.equal(s.image));
  const auto twice = HorizontalFlip(once);
  EXPECT_TRUE(twice.image.equal(s.image));
  EXPECT_TRUE(twice.boxes.equal(s.boxes));
  EXPECT_TRUE(twice.masks.equal(s.masks));
  EXPECT_TRUE(twice.labels.equal(s.labels));
  // The flipped box is x -> W - x.
  EXPECT_FLOAT_EQ(once.boxes[0][0].item<float>(), 120 - s.boxes[0][2].item<float>());
}

TEST_F(VisionAugmentTest, RandomFlipUsesTheRng) {
  const auto s = RectangleSample(2, 2);
  int flipped = 0;
  data::Rng rng(1);
  for (int i = 0; i < 200; ++i) flipped += !RandomHorizontalFlip(s, rng).boxes.equal(s.boxes);
  EXPECT_GT(flipped, 60);
  EXPECT_LT(flipped, 140);
  data::Rng never(1);
  EXPECT_TRUE(RandomHorizontalFlip(s, never, 0.0).boxes.equal(s.boxes));
}

TEST_F(VisionAugmentTest, FlipPolygons) {
  const auto flipped = FlipPolygons({{1, 2, 3, 4, 10, 5}}, 10);
  EXPECT_EQ(flipped, (std::vector<std::vector<float>>{{9, 2, 7, 4, 0, 5}}));
}

TEST_F(VisionAugmentTest, ResizeScalesBoxesAndMasks) {
  const auto s = RectangleSample(4, 3, 30, 40);
  const auto up = Resize(s, 60, 80);  // exactly 2x: nearest keeps rectangles exact
  EXPECT_EQ(up.image.sizes(), (std::vector<int64_t>{3, 60, 80}));
  EXPECT_EQ(up.image.scalar_type(), torch::kUInt8);
  EXPECT_TRUE(up.boxes.equal(s.boxes * 2));
  ExpectConsistent(up, "2x");
  const auto odd = Resize(s, 45, 100);
  EXPECT_TRUE(torch::allclose(odd.boxes, s.boxes * torch::tensor({2.5f, 1.5f, 2.5f, 1.5f})));
  DetectionSample f = s;
  f.image = torch::full({3, 30, 40}, 0.25f);
  EXPECT_TRUE(torch::allclose(Resize(f, 13, 17).image, torch::full({3, 13, 17}, 0.25f)));
}

}  // namespace
}  // namespace trainbench::vision

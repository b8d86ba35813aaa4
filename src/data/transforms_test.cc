#include "data/transforms.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "data/test_util.h"

namespace trainbench::data {
namespace {

using testing::PatternImage;

Image FromRow(std::vector<uint8_t> values) {
  Image img(1, static_cast<int>(values.size()), 1);
  img.data = std::move(values);
  return img;
}

bool SameImage(const Image& a, const Image& b) {
  return a.height == b.height && a.width == b.width && a.channels == b.channels && a.data == b.data;
}

TEST(RandomResizedCropTest, BoxesRespectScaleAndRatio) {
  Rng rng(11);
  const RandomResizedCropOptions o;
  for (int i = 0; i < 2000; ++i) {
    const CropBox b = RandomResizedCropBox(375, 500, rng, o);
    ASSERT_GE(b.top, 0);
    ASSERT_GE(b.left, 0);
    ASSERT_GT(b.height, 0);
    ASSERT_GT(b.width, 0);
    ASSERT_LE(b.top + b.height, 375);
    ASSERT_LE(b.left + b.width, 500);
    const double area = static_cast<double>(b.height) * b.width / (375.0 * 500.0);
    const double ratio = static_cast<double>(b.width) / b.height;
    // Rounding each side to an integer moves area and ratio a little.
    ASSERT_GT(area, 0.08 * 0.9);
    ASSERT_LE(area, 1.0);
    ASSERT_GT(ratio, 0.75 * 0.95);
    ASSERT_LT(ratio, 4.0 / 3.0 * 1.05);
  }
}

TEST(RandomResizedCropTest, DeterministicPerSeed) {
  Rng a(5), b(5), c(6);
  bool any_differs = false;
  for (int i = 0; i < 20; ++i) {
    const CropBox x = RandomResizedCropBox(300, 400, a);
    const CropBox y = RandomResizedCropBox(300, 400, b);
    const CropBox z = RandomResizedCropBox(300, 400, c);
    EXPECT_EQ(x.top, y.top);
    EXPECT_EQ(x.left, y.left);
    EXPECT_EQ(x.height, y.height);
    EXPECT_EQ(x.width, y.width);
    any_differs |= x.top != z.top || x.width != z.width;
  }
  EXPECT_TRUE(any_differs);
  const Image src = testing::SyntheticImage(60, 80, 3, 1);
  Rng r1(9), r2(9);
  EXPECT_TRUE(SameImage(RandomResizedCrop(src, 32, r1), RandomResizedCrop(src, 32, r2)));
}

TEST(RandomResizedCropTest, FallbackIsCentralCropWithClampedRatio) {
  RandomResizedCropOptions o;
  o.attempts = 0;  // straight to the fallback
  Rng rng(1);
  // Too wide (ratio 4): full height, width round(100 * 4/3) = 133, centred.
  CropBox b = RandomResizedCropBox(100, 400, rng, o);
  EXPECT_EQ(b.height, 100);
  EXPECT_EQ(b.width, 133);
  EXPECT_EQ(b.top, 0);
  EXPECT_EQ(b.left, 133);
  // Too tall: full width, height round(90 / 0.75) = 120.
  b = RandomResizedCropBox(400, 90, rng, o);
  EXPECT_EQ(b.width, 90);
  EXPECT_EQ(b.height, 120);
  EXPECT_EQ(b.top, 140);
  EXPECT_EQ(b.left, 0);
  // Ratio within range: the whole image.
  b = RandomResizedCropBox(300, 350, rng, o);
  EXPECT_EQ(b.height, 300);
  EXPECT_EQ(b.width, 350);
}

TEST(ResampleTest, BilinearMatchesTorchHalfPixelValues) {
  // torch.nn.functional.interpolate(x, size=4, mode="bilinear", align_corners=False) on
  // [0, 100] gives [0, 25, 75, 100]; size=2 on [0, 100, 200, 250] gives [50, 225].
  const Image up = ResizedCrop(FromRow({0, 100}), {0, 0, 1, 2}, 1, 4);
  EXPECT_EQ(up.data, (std::vector<uint8_t>{0, 25, 75, 100}));
  const Image down = ResizedCrop(FromRow({0, 100, 200, 250}), {0, 0, 1, 4}, 1, 2);
  EXPECT_EQ(down.data, (std::vector<uint8_t>{50, 225}));
}

TEST(ResampleTest, OneToOneResampleOfABoxIsAnExactCrop) {
  const Image src = PatternImage(40, 50, 3);
  const Image out = ResizedCrop(src, {5, 7, 20, 30}, 20, 30);
  ASSERT_EQ(out.height, 20);
  ASSERT_EQ(out.width, 30);
  for (int y = 0; y < 20; ++y) {
    for (int x = 0; x < 30; ++x) {
      for (int c = 0; c < 3; ++c) ASSERT_EQ(out.at(y, x, c), src.at(y + 5, x + 7, c));
    }
  }
}

TEST(ResizeTest, ShorterSideDimsTruncateLikeTorchvision) {
  EXPECT_EQ(ShorterSideResizeDims(375, 500, 256), (std::pair<int, int>{256, 341}));
  EXPECT_EQ(ShorterSideResizeDims(500, 375, 256), (std::pair<int, int>{341, 256}));
  EXPECT_EQ(ShorterSideResizeDims(256, 256, 256), (std::pair<int, int>{256, 256}));
  const Image r = ResizeShorterSide(testing::SyntheticImage(75, 100, 3, 2), 30);
  EXPECT_EQ(r.height, 30);
  EXPECT_EQ(r.width, 40);
}

TEST(CenterCropTest, ExactPixelsAtTorchvisionOffsets) {
  // (256 - 224) / 2 = 16; (341 - 224) / 2 = 58.5 rounds half to even: 58.
  const CropBox b = CenterCropBox(256, 341, 224, 224);
  EXPECT_EQ(b.top, 16);
  EXPECT_EQ(b.left, 58);
  EXPECT_EQ(CenterCropBox(10, 13, 4, 4).left, 4);  // 4.5 -> 4
  EXPECT_EQ(CenterCropBox(10, 15, 4, 4).left, 6);  // 5.5 -> 6
  const Image src = PatternImage(256, 341, 3);
  const Image out = CenterCrop(src, 224, 224);
  for (int y = 0; y < 224; ++y) {
    for (int x = 0; x < 224; ++x) {
      for (int c = 0; c < 3; ++c) ASSERT_EQ(out.at(y, x, c), src.at(y + 16, x + 58, c));
    }
  }
  // Already at the resize size: the fused resize+crop is the exact center crop.
  EXPECT_TRUE(SameImage(ResizeShorterSideCenterCrop(src, 256, 224), out));
}

TEST(CenterCropTest, FusedResizeCropEqualsTwoSteps) {
  const Image src = testing::SyntheticImage(375, 500, 3, 3);
  const Image two_step = CenterCrop(ResizeShorterSide(src, 256), 224, 224);
  EXPECT_TRUE(SameImage(ResizeShorterSideCenterCrop(src, 256, 224), two_step));
}

TEST(CenterCropTest, LargerThanImagePadsWithZero) {
  const Image src = PatternImage(2, 2, 1);
  const Image out = CenterCrop(src, 4, 4);
  EXPECT_EQ(out.data, (std::vector<uint8_t>{0, 0, 0, 0,                              //
                                            0, src.at(0, 0, 0), src.at(0, 1, 0), 0,  //
                                            0, src.at(1, 0, 0), src.at(1, 1, 0), 0,  //
                                            0, 0, 0, 0}));
}

TEST(FlipTest, MirrorsExactly) {
  for (int w : {7, 8}) {
    const Image src = PatternImage(5, w, 3);
    Image f = src;
    FlipHorizontal(&f);
    for (int y = 0; y < 5; ++y) {
      for (int x = 0; x < w; ++x) {
        for (int c = 0; c < 3; ++c) ASSERT_EQ(f.at(y, x, c), src.at(y, w - 1 - x, c));
      }
    }
    FlipHorizontal(&f);
    EXPECT_TRUE(SameImage(f, src));
  }
}

TEST(FlipTest, RandomFlipProbability) {
  Rng rng(3);
  Image img = PatternImage(2, 3, 1);
  int flips = 0;
  for (int i = 0; i < 1000; ++i) flips += RandomFlipHorizontal(&img, rng) ? 1 : 0;
  EXPECT_GT(flips, 430);
  EXPECT_LT(flips, 570);
  EXPECT_FALSE(RandomFlipHorizontal(&img, rng, 0.0));
  EXPECT_TRUE(RandomFlipHorizontal(&img, rng, 1.0));
}

TEST(RandomCropWithPaddingTest, CropsOfThePaddedImage) {
  const Image src = PatternImage(28, 28, 1);
  Rng rng(4);
  std::set<std::pair<int, int>> offsets;
  for (int i = 0; i < 1500; ++i) {
    Rng probe = rng;  // the same two draws the transform makes
    const int top = static_cast<int>(probe.UniformInt(0, 8));
    const int left = static_cast<int>(probe.UniformInt(0, 8));
    const Image out = RandomCropWithPadding(src, 28, 28, 4, rng);
    ASSERT_EQ(out.height, 28);
    ASSERT_EQ(out.width, 28);
    offsets.insert({top, left});
    for (int y = 0; y < 28; ++y) {
      for (int x = 0; x < 28; ++x) {
        const int sy = y + top - 4;
        const int sx = x + left - 4;
        const uint8_t expected = (sy < 0 || sy >= 28 || sx < 0 || sx >= 28) ? 0 : src.at(sy, sx, 0);
        ASSERT_EQ(out.at(y, x, 0), expected);
      }
    }
  }
  EXPECT_EQ(offsets.size(), 81u);  // every offset in [0, 8]^2 reached
  Rng r0(1);
  EXPECT_TRUE(SameImage(RandomCropWithPadding(src, 28, 28, 0, r0), src));
}

TEST(ToFloatChwTest, NormalisesIntoPlanes) {
  Image img(1, 2, 3);
  img.data = {0, 51, 255, 255, 102, 0};  // (R,G,B) per pixel
  const std::vector<float> out = ToFloatChw(img, {0.5f, 0.f, 0.f}, {0.5f, 1.f, 2.f});
  ASSERT_EQ(out.size(), 6u);
  EXPECT_FLOAT_EQ(out[0], -1.f);  // R plane
  EXPECT_FLOAT_EQ(out[1], 1.f);
  EXPECT_FLOAT_EQ(out[2], 0.2f);  // G plane
  EXPECT_FLOAT_EQ(out[3], 0.4f);
  EXPECT_FLOAT_EQ(out[4], 0.5f);  // B plane
  EXPECT_FLOAT_EQ(out[5], 0.f);
}

}  // namespace
}  // namespace trainbench::data

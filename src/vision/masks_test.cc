#include "vision/masks.h"

#include <gtest/gtest.h>

#include "vision/test_util.h"

namespace trainbench::vision {
namespace {

using testing::Boxes;
using testing::MaskBox;
using VisionMasksTest = testing::VisionTest;
using torch::indexing::Slice;

TEST_F(VisionMasksTest, RleHandCases) {
  // Column-major: column 0 = (0, 0), column 1 = (1, 0), column 2 = (1, 1).
  const auto mask = torch::tensor({{0, 1, 1}, {0, 0, 1}}, torch::kUInt8);
  EXPECT_EQ(MaskToRle(mask), (std::vector<uint32_t>{2, 1, 1, 2}));
  EXPECT_EQ(MaskToRle(torch::zeros({2, 2}, torch::kUInt8)), (std::vector<uint32_t>{4}));
  EXPECT_EQ(MaskToRle(torch::ones({2, 2}, torch::kBool)), (std::vector<uint32_t>{0, 4}));
  EXPECT_EQ(MaskToRle(torch::tensor({{1.0f, 0.0f}})), (std::vector<uint32_t>{0, 1, 1}));
  EXPECT_EQ(MaskToRle(torch::zeros({0, 3}, torch::kUInt8)), (std::vector<uint32_t>{0}));
}

TEST_F(VisionMasksTest, RleRoundTrip) {
  for (uint64_t seed = 0; seed < 10; ++seed) {
    auto gen = at::detail::createCPUGenerator(seed);
    const int64_t h = 1 + seed * 3, w = 2 + seed * 5;
    const auto mask = (torch::rand({h, w}, gen) > 0.6).to(torch::kUInt8);
    const auto counts = MaskToRle(mask);
    uint64_t total = 0;
    for (auto c : counts) total += c;
    EXPECT_EQ(total, static_cast<uint64_t>(h * w));
    EXPECT_TRUE(RleToMask(counts, h, w).equal(mask)) << "seed " << seed;
  }
  EXPECT_THROW(RleToMask({1, 2}, 2, 2), c10::Error);
}

TEST_F(VisionMasksTest, PasteIdentityWithoutPadding) {
  // A 2 x 2 mask on the box (1, 2, 2, 3) with no padding: integer box, resized to 2 x 2 = itself.
  const auto soft = torch::tensor({{{0.25f, 0.75f}, {1.0f, 0.5f}}});
  const auto pasted = PasteMasksInImage(soft, Boxes({{1, 2, 2, 3}}), 5, 4, 0, -1.0);
  ASSERT_EQ(pasted.sizes(), (std::vector<int64_t>{1, 1, 5, 4}));
  EXPECT_EQ(pasted.scalar_type(), torch::kFloat);
  auto expected = torch::zeros({5, 4});
  expected.index_put_({Slice(2, 4), Slice(1, 3)}, soft[0]);
  EXPECT_TRUE(pasted[0][0].equal(expected));
  const auto binary = PasteMasksInImage(soft, Boxes({{1, 2, 2, 3}}), 5, 4, 0, 0.5);
  EXPECT_EQ(binary.scalar_type(), torch::kUInt8);
  EXPECT_TRUE(binary[0][0].equal(expected.gt(0.5).to(torch::kUInt8)));
}

TEST_F(VisionMasksTest, PasteFullMaskCoversItsBox) {
  // An all-ones 28 x 28 prediction pasted with the default padding covers its box up to a pixel.
  const auto soft = torch::ones({2, 1, 28, 28});
  const auto pasted =
      PasteMasksInImage(soft, Boxes({{10, 20, 50, 60}, {70, 80, 130, 140}}), 100, 100);
  ASSERT_EQ(pasted.sizes(), (std::vector<int64_t>{2, 1, 100, 100}));
  const auto box = MaskBox(pasted[0][0]);
  EXPECT_NEAR(box[0], 10, 1);
  EXPECT_NEAR(box[1], 20, 1);
  EXPECT_NEAR(box[2], 51, 1);
  EXPECT_NEAR(box[3], 61, 1);
  // The second one is clipped at the image's corner.
  const auto clipped = MaskBox(pasted[1][0]);
  EXPECT_NEAR(clipped[0], 70, 1);
  EXPECT_EQ(clipped[2], 100);
  EXPECT_EQ(clipped[3], 100);
  // No masks: an empty batch of the image's size.
  EXPECT_EQ(PasteMasksInImage(torch::zeros({0, 28, 28}), torch::zeros({0, 4}), 7, 9).sizes(),
            (std::vector<int64_t>{0, 1, 7, 9}));
}

TEST_F(VisionMasksTest, ProjectMasksOnBoxes) {
  auto gt = torch::zeros({2, 40, 60}, torch::kUInt8);
  gt.index_put_({0, Slice(10, 30), Slice(20, 50)}, 1);  // box (20, 10, 50, 30)
  gt.index_put_({1, Slice(0, 5), Slice(0, 5)}, 1);
  const auto proposals = Boxes({{20, 10, 50, 30}, {25, 15, 45, 25}, {20, 10, 50, 30}});
  const auto matched = torch::tensor({0, 0, 1}, torch::kLong);
  const auto targets = ProjectMasksOnBoxes(gt, proposals, matched, 14);
  ASSERT_EQ(targets.sizes(), (std::vector<int64_t>{3, 14, 14}));
  EXPECT_EQ(targets.scalar_type(), torch::kFloat);
  // The matched mask fills its own box, apart from the bilinear falloff at the far edge.
  EXPECT_TRUE(targets[0].index({Slice(0, 13), Slice(0, 13)}).eq(1).all().item<bool>());
  EXPECT_GT(targets[0].min().item<float>(), 0.3f);
  EXPECT_TRUE(targets[1].eq(1).all().item<bool>());  // a proposal inside the mask
  EXPECT_TRUE(targets[2].eq(0).all().item<bool>());  // mask 1 is elsewhere
}

}  // namespace
}  // namespace trainbench::vision

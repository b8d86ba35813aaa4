#include "vision/boxes.h"

#include <gtest/gtest.h>

#include <cmath>

#include "vision/test_util.h"

namespace trainbench::vision {
namespace {

using testing::Boxes;
using testing::RandomBoxes;
using VisionBoxesTest = testing::VisionTest;

TEST_F(VisionBoxesTest, ConvertBetweenFormats) {
  const auto xyxy = Boxes({{1, 2, 5, 10}, {0, 0, 2, 2}});
  EXPECT_TRUE(ConvertBoxes(xyxy, BoxFormat::kXyxy, BoxFormat::kXywh)
                  .equal(Boxes({{1, 2, 4, 8}, {0, 0, 2, 2}})));
  EXPECT_TRUE(ConvertBoxes(xyxy, BoxFormat::kXyxy, BoxFormat::kCxcywh)
                  .equal(Boxes({{3, 6, 4, 8}, {1, 1, 2, 2}})));
  for (auto from : {BoxFormat::kXyxy, BoxFormat::kXywh, BoxFormat::kCxcywh}) {
    for (auto to : {BoxFormat::kXyxy, BoxFormat::kXywh, BoxFormat::kCxcywh}) {
      const auto there = ConvertBoxes(ConvertBoxes(xyxy, BoxFormat::kXyxy, from), from, to);
      EXPECT_TRUE(torch::allclose(ConvertBoxes(there, to, BoxFormat::kXyxy), xyxy));
    }
  }
}

TEST_F(VisionBoxesTest, IouHandCases) {
  const auto a = Boxes({{0, 0, 2, 2}, {0, 0, 1, 1}});
  const auto b = Boxes({{1, 1, 3, 3}, {0, 0, 2, 2}, {5, 5, 6, 6}});
  const auto iou = BoxIou(a, b);
  ASSERT_EQ(iou.sizes(), (std::vector<int64_t>{2, 3}));
  EXPECT_FLOAT_EQ(iou[0][0].item<float>(), 1.0f / 7.0f);
  EXPECT_FLOAT_EQ(iou[0][1].item<float>(), 1.0f);
  EXPECT_FLOAT_EQ(iou[0][2].item<float>(), 0.0f);
  EXPECT_FLOAT_EQ(iou[1][1].item<float>(), 0.25f);
  EXPECT_FLOAT_EQ(iou[1][0].item<float>(), 0.0f);  // touching corners only
}

TEST_F(VisionBoxesTest, IouMatchesBruteForce) {
  auto gen = at::detail::createCPUGenerator(7);
  const auto a = RandomBoxes(20, 50, 30, gen, torch::kDouble);
  const auto b = RandomBoxes(15, 50, 30, gen, torch::kDouble);
  const auto iou = BoxIou(a, b);
  auto A = a.accessor<double, 2>(), B = b.accessor<double, 2>();
  for (int64_t i = 0; i < 20; ++i) {
    for (int64_t j = 0; j < 15; ++j) {
      const double iw = std::max(0.0, std::min(A[i][2], B[j][2]) - std::max(A[i][0], B[j][0]));
      const double ih = std::max(0.0, std::min(A[i][3], B[j][3]) - std::max(A[i][1], B[j][1]));
      const double area_a = (A[i][2] - A[i][0]) * (A[i][3] - A[i][1]);
      const double area_b = (B[j][2] - B[j][0]) * (B[j][3] - B[j][1]);
      EXPECT_NEAR(iou[i][j].item<double>(), iw * ih / (area_a + area_b - iw * ih), 1e-12);
    }
  }
}

TEST_F(VisionBoxesTest, ClipAndRemoveSmall) {
  const auto boxes = Boxes({{-5, -1, 20, 8}, {3, 3, 4, 3.5}, {1, 1, 9, 9}});
  EXPECT_TRUE(
      ClipBoxesToImage(boxes, 6, 10).equal(Boxes({{0, 0, 10, 6}, {3, 3, 4, 3.5}, {1, 1, 9, 6}})));
  const auto keep = RemoveSmallBoxes(boxes, 1.0);
  EXPECT_TRUE(keep.equal(torch::tensor({0, 2}, torch::kLong)));
  EXPECT_EQ(RemoveSmallBoxes(boxes, 100.0).numel(), 0);
}

TEST_F(VisionBoxesTest, EncodeHandCase) {
  const BoxCoder coder(kMaskRcnnBoxHeadWeights);
  const auto reference = Boxes({{0, 0, 10, 20}});
  const auto gt = Boxes({{1, 2, 11, 42}});  // centre (6, 22) vs (5, 10); size (10, 40) vs (10, 20)
  const auto codes = coder.Encode(gt, reference);
  EXPECT_FLOAT_EQ(codes[0][0].item<float>(), 10.0f * 1.0f / 10.0f);
  EXPECT_FLOAT_EQ(codes[0][1].item<float>(), 10.0f * 12.0f / 20.0f);
  EXPECT_FLOAT_EQ(codes[0][2].item<float>(), 0.0f);
  EXPECT_FLOAT_EQ(codes[0][3].item<float>(), 5.0f * std::log(2.0f));
}

TEST_F(VisionBoxesTest, DecodeInvertsEncode) {
  auto gen = at::detail::createCPUGenerator(3);
  for (const auto& weights : {kSsdBoxWeights, kRpnBoxWeights, std::array<double, 4>{2, 3, 4, 5}}) {
    const BoxCoder coder(weights);
    const auto reference = RandomBoxes(50, 100, 60, gen, torch::kDouble);
    const auto gt = RandomBoxes(50, 100, 60, gen, torch::kDouble);
    const auto decoded = coder.Decode(coder.Encode(gt, reference), reference);
    EXPECT_TRUE(torch::allclose(decoded, gt, 1e-9, 1e-9));
  }
}

TEST_F(VisionBoxesTest, DecodeSeveralBoxesPerReferenceAndClamps) {
  const BoxCoder coder(kRpnBoxWeights);
  const auto reference = Boxes({{0, 0, 16, 16}});
  // Two boxes per row: an identity code, and one with huge dw / dh (clamped at log(1000 / 16)).
  const auto codes = torch::tensor({{0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 100.0f, 100.0f}});
  const auto boxes = coder.Decode(codes, reference);
  ASSERT_EQ(boxes.sizes(), (std::vector<int64_t>{1, 8}));
  EXPECT_TRUE(torch::allclose(boxes.slice(1, 0, 4), reference));
  EXPECT_NEAR(boxes[0][6].item<float>() - boxes[0][4].item<float>(), 1000.0f, 1e-2);
  EXPECT_NEAR(boxes[0][7].item<float>() - boxes[0][5].item<float>(), 1000.0f, 1e-2);
  EXPECT_NEAR(boxes[0][4].item<float>(), 8.0f - 500.0f, 1e-2);
}

}  // namespace
}  // namespace trainbench::vision

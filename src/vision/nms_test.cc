#include "vision/nms.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <vector>

#include "vision/test_util.h"

namespace trainbench::vision {
namespace {

using testing::Boxes;
using testing::RandomBoxes;
using VisionNmsTest = testing::VisionTest;

std::vector<int64_t> ToVector(const torch::Tensor& t) {
  const auto c = t.to(torch::kCPU, torch::kLong).contiguous();
  return std::vector<int64_t>(c.data_ptr<int64_t>(), c.data_ptr<int64_t>() + c.numel());
}

// The O(n^2) definition, written independently of the kernel, in double: visit boxes by
// descending score (ties: lower index first); keep a box unless a kept box of the same category
// overlaps it with IoU > threshold. The IoU is computed in float, as the kernel does for float
// boxes, so borderline decisions agree.
std::vector<int64_t> BruteForceNms(const torch::Tensor& boxes, const torch::Tensor& scores,
                                   const std::vector<int64_t>& categories, float threshold) {
  const int64_t n = boxes.size(0);
  auto b = boxes.accessor<float, 2>();
  auto s = scores.accessor<float, 1>();
  std::vector<int64_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](int64_t i, int64_t j) { return s[i] != s[j] ? s[i] > s[j] : i < j; });
  auto iou = [&](int64_t i, int64_t j) {
    const float w = std::max(0.0f, std::min(b[i][2], b[j][2]) - std::max(b[i][0], b[j][0]));
    const float h = std::max(0.0f, std::min(b[i][3], b[j][3]) - std::max(b[i][1], b[j][1]));
    const float ai = (b[i][2] - b[i][0]) * (b[i][3] - b[i][1]);
    const float aj = (b[j][2] - b[j][0]) * (b[j][3] - b[j][1]);
    return w * h / (ai + aj - w * h);
  };
  std::vector<int64_t> kept;
  for (int64_t i : order) {
    bool suppressed = false;
    for (int64_t k : kept) {
      if (categories[k] == categories[i] && iou(k, i) > threshold) suppressed = true;
    }
    if (!suppressed) kept.push_back(i);
  }
  return kept;
}

TEST_F(VisionNmsTest, HandCase) {
  const auto boxes = Boxes({{0, 0, 10, 10}, {1, 1, 11, 11}, {20, 20, 30, 30}, {0, 0, 10, 9}});
  const auto scores = torch::tensor({0.9f, 0.95f, 0.5f, 0.3f});
  // IoU(0, 1) = 81 / 119 = 0.68; IoU(1, 3) = 72 / 118 = 0.61; IoU(0, 3) = 0.9.
  EXPECT_EQ(ToVector(Nms(boxes, scores, 0.5)), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(ToVector(Nms(boxes, scores, 0.65)), (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(ToVector(Nms(boxes, scores, 0.95)), (std::vector<int64_t>{1, 0, 2, 3}));
}

TEST_F(VisionNmsTest, IouEqualToThresholdKeepsBoth) {
  const auto boxes = Boxes({{0, 0, 3, 1}, {1, 0, 4, 1}});  // IoU = 2 / 4 = 0.5 exactly
  const auto scores = torch::tensor({0.8f, 0.9f});
  EXPECT_EQ(ToVector(Nms(boxes, scores, 0.5)), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(ToVector(Nms(boxes, scores, 0.49)), (std::vector<int64_t>{1}));
}

TEST_F(VisionNmsTest, TiesKeepTheLowerIndex) {
  const auto boxes = Boxes({{0, 0, 10, 10}, {0, 0, 10, 10}, {50, 50, 60, 60}, {0, 0, 10, 10}});
  const auto scores = torch::tensor({0.5f, 0.5f, 0.5f, 0.5f});
  EXPECT_EQ(ToVector(Nms(boxes, scores, 0.5)), (std::vector<int64_t>{0, 2}));
}

TEST_F(VisionNmsTest, EmptyInput) {
  const auto kept = Nms(torch::zeros({0, 4}), torch::zeros({0}), 0.5);
  EXPECT_EQ(kept.numel(), 0);
  EXPECT_EQ(kept.scalar_type(), torch::kLong);
  EXPECT_EQ(
      BatchedNms(torch::zeros({0, 4}), torch::zeros({0}), torch::zeros({0}, torch::kLong), 0.5)
          .numel(),
      0);
}

TEST_F(VisionNmsTest, BatchedKeepsCategoriesApart) {
  const auto boxes = Boxes({{0, 0, 10, 10}, {0, 0, 10, 10}, {0, 0, 10, 10}});
  const auto scores = torch::tensor({0.7f, 0.9f, 0.8f});
  const auto idxs = torch::tensor({3, 5, 3}, torch::kLong);
  EXPECT_EQ(ToVector(BatchedNms(boxes, scores, idxs, 0.5)), (std::vector<int64_t>{1, 2}));
}

TEST_F(VisionNmsTest, DoubleBoxes) {
  const auto boxes = Boxes({{0, 0, 10, 10}, {1, 1, 11, 11}}, torch::kDouble);
  const auto scores = torch::tensor({0.9, 0.95}, torch::kDouble);
  EXPECT_EQ(ToVector(Nms(boxes, scores, 0.5)), (std::vector<int64_t>{1}));
}

TEST_F(VisionNmsTest, MatchesBruteForceOnRandomBoxes) {
  for (uint64_t seed = 0; seed < 60; ++seed) {
    auto gen = at::detail::createCPUGenerator(seed);
    const int64_t n = 1 + static_cast<int64_t>(seed * 7 % 150);
    const auto boxes = RandomBoxes(n, 100, 40, gen);
    // Few distinct scores, so ties are common.
    const auto scores = seed % 2 == 0 ? torch::randint(0, 8, {n}, gen).to(torch::kFloat) / 8
                                      : torch::rand({n}, gen);
    const float threshold = std::vector<float>{0.3f, 0.5f, 0.7f}[seed % 3];
    const std::vector<int64_t> one(n, 0);
    EXPECT_EQ(ToVector(Nms(boxes, scores, threshold)), BruteForceNms(boxes, scores, one, threshold))
        << "seed " << seed;
    const auto idxs = torch::randint(0, 4, {n}, gen).to(torch::kLong);
    const std::vector<int64_t> all = BruteForceNms(boxes, scores, ToVector(idxs), threshold);
    EXPECT_EQ(ToVector(BatchedNms(boxes, scores, idxs, threshold)), all) << "seed " << seed;
    // A cap per category keeps exactly each category's first `cap` of the unlimited result.
    const int64_t cap = 1 + static_cast<int64_t>(seed % 5);
    const std::vector<int64_t> cat = ToVector(idxs);
    std::vector<int64_t> capped;
    std::map<int64_t, int64_t> taken;
    for (int64_t i : all) {
      if (taken[cat[static_cast<size_t>(i)]]++ < cap) capped.push_back(i);
    }
    EXPECT_EQ(ToVector(BatchedNms(boxes, scores, idxs, threshold, cap)), capped) << "seed " << seed;
  }
}

}  // namespace
}  // namespace trainbench::vision

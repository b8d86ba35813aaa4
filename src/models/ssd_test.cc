#include "models/ssd.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "vision/boxes.h"

namespace trainbench::models {
namespace {

torch::Tensor LtrbToXywh(const torch::Tensor& b) {
  return vision::ConvertBoxes(b, vision::BoxFormat::kXyxy, vision::BoxFormat::kCxcywh);
}

TEST(Ssd, Ssd300HasTheReferenceMapsAnd8732DefaultBoxes) {
  torch::set_num_threads(1);
  Ssd net(Ssd300Options(81));
  EXPECT_EQ(net->FeatureSizes(300), (std::vector<int64_t>{38, 19, 10, 5, 3, 1}));
  const DefaultBoxOptions d = Ssd300DefaultBoxes();
  EXPECT_EQ(d.feat_size, net->FeatureSizes(300));
  EXPECT_EQ(DefaultBoxesPerCell(d), net->options().num_defaults);
  const torch::Tensor boxes = MakeDefaultBoxes(d);
  EXPECT_EQ(boxes.size(0), 8732);
  // First box: map 38 (f_k = 300 / 8 = 37.5), size 21 / 300, centre 0.5 / 37.5.
  EXPECT_NEAR(boxes[0][0].item<float>(), 0.5 / 37.5, 1e-6);
  EXPECT_NEAR(boxes[0][1].item<float>(), 0.5 / 37.5, 1e-6);
  EXPECT_NEAR(boxes[0][2].item<float>(), 0.07, 1e-6);
  // Second size of map 38: sqrt(21 * 45) / 300, starting after 38 * 38 boxes.
  EXPECT_NEAR(boxes[38 * 38][2].item<float>(), std::sqrt(21.0 * 45.0) / 300.0, 1e-6);
  // The last box: the 1x1 map, ratio 1/2 of size 261: w = 0.87 / sqrt 2, h = 0.87 * sqrt 2,
  // clamped to 1.
  EXPECT_NEAR(boxes[8731][0].item<float>(), 0.5, 1e-6);
  EXPECT_NEAR(boxes[8731][2].item<float>(), 0.87 / std::sqrt(2.0), 1e-6);
  EXPECT_NEAR(boxes[8731][3].item<float>(), 1.0, 1e-6);
  // The trunk keeps torchvision's ResNet-34 names (a pretrained backbone maps one to one).
  auto params = net->named_parameters();
  EXPECT_TRUE(params.contains("trunk.layer3.5.bn2.weight"));
  EXPECT_FALSE(params.contains("trunk.fc.weight"));
  EXPECT_FALSE(params.contains("trunk.layer4.0.conv1.weight"));
  // layer3's first block has stride 1 (38x38 out of layer2's 38x38).
  auto& block = *net->named_modules()["trunk.layer3.0"]->as<BasicBlockImpl>();
  EXPECT_EQ(block.conv1->options.stride()->at(0), 1);
}

TEST(Ssd, MiniForwardShapesMatchTheDefaultBoxes) {
  torch::set_num_threads(1);
  const SsdOptions o = MiniSsdOptions(6, 128, 8, 1);
  Ssd net(o);
  const std::vector<int64_t> maps = net->FeatureSizes(128);
  EXPECT_EQ(maps, (std::vector<int64_t>{16, 8, 4, 2, 1}));
  const DefaultBoxOptions d = MiniDefaultBoxes(128, maps);
  EXPECT_EQ(DefaultBoxesPerCell(d), o.num_defaults);
  const torch::Tensor boxes = MakeDefaultBoxes(d);
  EXPECT_EQ(boxes.size(0), 4 * 256 + 6 * 64 + 6 * 16 + 4 * 4 + 4 * 1);
  auto [loc, conf] = net->forward(torch::randn({2, 3, 128, 128}));
  EXPECT_EQ(loc.sizes(), (std::vector<int64_t>{2, 4, boxes.size(0)}));
  EXPECT_EQ(conf.sizes(), (std::vector<int64_t>{2, 6, boxes.size(0)}));
  EXPECT_GT(net->ForwardMacs(128), 0);
}

// The heads emit box k of map m at cell (row, col) at index d * H * W + row * W + col within the
// map, the default boxes' order: a bias on one output channel of the first loc head shows up at
// exactly those indices.
TEST(Ssd, HeadLayoutFollowsTheDefaultBoxOrder) {
  torch::set_num_threads(1);
  Ssd net(MiniSsdOptions(3, 64, 4, 1));
  const std::vector<int64_t> maps = net->FeatureSizes(64);
  ASSERT_EQ(maps[0], 8);
  torch::NoGradGuard no_grad;
  for (auto& l : net->loc) {
    l->weight.zero_();
    l->bias.zero_();
  }
  // Channel c of a [nd * 4] head is coordinate c / nd of default box c % nd.
  const int64_t nd = net->options().num_defaults[0];
  net->loc[0]->bias[1 * nd + 2] = 1.0;  // y offset of the third box size
  auto [loc, conf] = net->forward(torch::zeros({1, 3, 64, 64}));
  const torch::Tensor hot = torch::nonzero(loc[0] != 0);
  ASSERT_EQ(hot.size(0), 64);
  for (int64_t k = 0; k < 64; ++k) {
    EXPECT_EQ(hot[k][0].item<int64_t>(), 1);
    EXPECT_EQ(hot[k][1].item<int64_t>(), 2 * 64 + k);
  }
}

TEST(Ssd, EncodeMatchesAboveHalfAndForcesEachGroundTruthsBestBox) {
  // Four default boxes (ltrb).
  const torch::Tensor d = torch::tensor({0.0f, 0.0f, 0.5f, 0.5f,       // 0
                                         0.5f, 0.5f, 1.0f, 1.0f,       // 1
                                         0.0f, 0.5f, 0.5f, 1.0f,       // 2
                                         0.25f, 0.25f, 0.75f, 0.75f})  // 3
                              .view({4, 4});
  // gt 0 = box 0 exactly (IoU 1 with box 0; 1/7 with box 3); gt 1 small inside box 1 (IoU
  // 0.04 with it: below 0.5, but its best box, so forced).
  const torch::Tensor gt =
      torch::tensor({0.0f, 0.0f, 0.5f, 0.5f, 0.8f, 0.8f, 0.9f, 0.9f}).view({2, 4});
  const torch::Tensor labels = torch::tensor({3, 5}, torch::kInt64);
  SsdTargets t = SsdEncode(d, gt, labels, 0.5);
  EXPECT_EQ(t.labels.sizes(), (std::vector<int64_t>{4}));
  EXPECT_EQ(t.labels[0].item<int64_t>(), 3);
  EXPECT_EQ(t.labels[1].item<int64_t>(), 5);
  EXPECT_EQ(t.labels[2].item<int64_t>(), 0);
  EXPECT_EQ(t.labels[3].item<int64_t>(), 0);
  // Matched boxes carry their gt in xywh; background keeps its default box.
  EXPECT_TRUE(torch::allclose(t.loc[1], torch::tensor({0.85f, 0.85f, 0.1f, 0.1f})));
  EXPECT_TRUE(torch::allclose(t.loc[2], torch::tensor({0.25f, 0.75f, 0.5f, 0.5f})));
  // No ground truth: everything is background.
  SsdTargets empty = SsdEncode(d, torch::zeros({0, 4}), torch::zeros({0}, torch::kInt64));
  EXPECT_EQ(empty.labels.sum().item<int64_t>(), 0);
  EXPECT_TRUE(torch::allclose(empty.loc, LtrbToXywh(d)));
}

// The loss against a direct transcription of its definition, loop by loop.
TEST(Ssd, LossEqualsABruteForceTranscription) {
  torch::manual_seed(3);
  const int64_t n = 2, a = 12, c = 4;
  const torch::Tensor dboxes = torch::rand({a, 4}) * 0.5 + 0.25;  // xywh, w and h > 0
  const torch::Tensor ploc = torch::randn({n, 4, a});
  const torch::Tensor pconf = torch::randn({n, c, a});
  torch::Tensor glabel = torch::zeros({n, a}, torch::kInt64);
  glabel[0][2] = 1;
  glabel[0][7] = 3;
  // image 1 has no positives: it contributes 0.
  const torch::Tensor gloc = torch::rand({n, 4, a}) * 0.5 + 0.25;
  const double sxy = 0.1, swh = 0.2;
  const double got = SsdLoss(ploc, pconf, gloc, glabel, dboxes, sxy, swh, 3.0).item<double>();

  double total = 0;
  for (int64_t i = 0; i < n; ++i) {
    std::vector<double> ce(a);
    int pos = 0;
    double sl1 = 0;
    for (int64_t k = 0; k < a; ++k) {
      const torch::Tensor logp = torch::log_softmax(pconf[i].select(1, k).to(torch::kFloat64), 0);
      ce[k] = -logp[glabel[i][k].item<int64_t>()].item<double>();
      if (glabel[i][k].item<int64_t>() > 0) {
        ++pos;
        for (int j = 0; j < 4; ++j) {
          const double dj = dboxes[k][j].item<double>(), g = gloc[i][j][k].item<double>();
          double t = 0;
          if (j < 2)
            t = (g - dj) / dboxes[k][j + 2].item<double>() / sxy;
          else
            t = std::log(g / dj) / swh;
          const double diff = std::abs(ploc[i][j][k].item<double>() - t);
          sl1 += diff < 1 ? 0.5 * diff * diff : diff - 0.5;
        }
      }
    }
    if (pos == 0) continue;
    std::vector<int64_t> negs;
    for (int64_t k = 0; k < a; ++k)
      if (glabel[i][k].item<int64_t>() == 0) negs.push_back(k);
    std::sort(negs.begin(), negs.end(), [&](int64_t x, int64_t y) { return ce[x] > ce[y]; });
    double closs = 0;
    for (int64_t k = 0; k < a; ++k)
      if (glabel[i][k].item<int64_t>() > 0) closs += ce[k];
    for (int j = 0; j < 3 * pos && j < static_cast<int>(negs.size()); ++j) closs += ce[negs[j]];
    total += (sl1 + closs) / pos;
  }
  EXPECT_NEAR(got, total / n, 1e-4 * std::max(1.0, std::abs(total)));
}

TEST(Ssd, DecodeKeepsTheBestOfOverlappingBoxesPerClass) {
  // Three default boxes: 0 and 1 overlap (IoU 0.6), 2 is apart. Zero offsets: the boxes are the
  // default boxes.
  const torch::Tensor ltrb =
      torch::tensor({0.1f, 0.1f, 0.5f, 0.5f, 0.1f, 0.1f, 0.5f, 0.34f, 0.6f, 0.6f, 0.9f, 0.9f})
          .view({3, 4});
  const torch::Tensor dboxes = LtrbToXywh(ltrb);
  const torch::Tensor ploc = torch::zeros({1, 4, 3});
  // Class 1 likely for boxes 0 (strongest) and 1; class 2 for box 2; background low.
  torch::Tensor logits = torch::full({1, 3, 3}, -5.0f);
  logits[0][1][0] = 5.0f;
  logits[0][1][1] = 4.0f;
  logits[0][2][2] = 3.0f;
  std::vector<Detections> det =
      SsdDecode(ploc, logits, dboxes, 0.1, 0.2, SsdDecodeOptions{0.05, 0.5, 200, 200});
  ASSERT_EQ(det.size(), 1u);
  ASSERT_EQ(det[0].scores.size(0), 2);
  EXPECT_EQ(det[0].labels[0].item<int64_t>(), 1);
  EXPECT_EQ(det[0].labels[1].item<int64_t>(), 2);
  EXPECT_TRUE(torch::allclose(det[0].boxes[0], ltrb[0], 1e-5, 1e-5));
  EXPECT_TRUE(torch::allclose(det[0].boxes[1], ltrb[2], 1e-5, 1e-5));
  EXPECT_GT(det[0].scores[0].item<float>(), det[0].scores[1].item<float>());
  // max_output 1 keeps only the best.
  det = SsdDecode(ploc, logits, dboxes, 0.1, 0.2, SsdDecodeOptions{0.05, 0.5, 200, 1});
  EXPECT_EQ(det[0].scores.size(0), 1);
}

}  // namespace
}  // namespace trainbench::models

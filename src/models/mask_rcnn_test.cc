#include "models/mask_rcnn.h"

#include <ATen/autocast_mode.h>
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "vision/boxes.h"

namespace trainbench::models {
namespace {

using torch::indexing::Slice;

torch::Tensor Boxes(std::vector<float> v) { return torch::tensor(v).view({-1, 4}); }

void ExpectBox(const torch::Tensor& b, std::vector<float> want) {
  for (int k = 0; k < 4; ++k) EXPECT_NEAR(b[k].item<float>(), want[k], 1e-5) << "coordinate " << k;
}

// A 64x64 image with two filled rectangles and their targets.
struct Scene {
  torch::Tensor image;
  MaskRcnnTarget target;
};
Scene TwoObjects() {
  torch::manual_seed(3);
  Scene s;
  s.image = torch::rand({1, 3, 64, 64}) * 0.2;
  s.target.boxes = Boxes({8, 6, 28, 30, 36, 30, 60, 56});
  s.target.labels = torch::tensor({1, 2}, torch::kLong);
  s.target.masks = torch::zeros({2, 64, 64}, torch::kUInt8);
  s.target.masks[0].index_put_({Slice(6, 30), Slice(8, 28)}, 1);
  s.target.masks[1].index_put_({Slice(30, 56), Slice(36, 60)}, 1);
  s.image[0][0].index_put_({Slice(6, 30), Slice(8, 28)}, 1.0);
  s.image[0][2].index_put_({Slice(30, 56), Slice(36, 60)}, 1.0);
  return s;
}

TEST(MaskRcnn, AnchorsPerLevelAsTheReferenceGenerator) {
  const auto o = MiniMaskRcnnOptions(3, 128);
  EXPECT_EQ(o.anchor_sizes, (std::vector<double>{8, 16, 32, 64, 128}));
  // A 64x64 padded batch: P2..P6 of 16, 8, 4, 2, 1 cells, 3 anchors each.
  const auto anchors = MakeFpnAnchors(o, {{16, 16}, {8, 8}, {4, 4}, {2, 2}, {1, 1}});
  ASSERT_EQ(anchors.size(), 5u);
  const std::vector<int64_t> cells = {256, 64, 16, 4, 1};
  for (size_t l = 0; l < 5; ++l) EXPECT_EQ(anchors[l].size(0), 3 * cells[l]);
  // P2 (stride 4, size 8): ratio 0.5 -> round(sqrt(32)) = 6, round(3) = 3, x2 -> 12 x 6 about
  // the cell centre (2, 2); ratio 2 -> 6 x 12.
  ExpectBox(anchors[0][0], {-4, -1, 8, 5});
  ExpectBox(anchors[0][1], {-2, -2, 6, 6});
  ExpectBox(anchors[0][2], {-1, -4, 5, 8});
  // Row 1, column 2, ratio 1: centre (10, 6).
  ExpectBox(anchors[0][(1 * 16 + 2) * 3 + 1], {6, 2, 14, 10});
  // P6 (stride 64, size 128), its single cell: centre (32, 32).
  ExpectBox(anchors[4][1], {-32, -32, 96, 96});
  // The reference R-50-FPN at stride 16 (size 128, ratio 0.5): Detectron's [-84, -40, 99, 55]
  // (+1 on x2, y2 in continuous coordinates), i.e. 184 x 96 about (8, 8).
  const auto full = MakeFpnAnchors(MaskRcnnR50FpnOptions(), {{1, 1}, {1, 1}, {1, 1}});
  ExpectBox(full[2][0], {-84, -40, 100, 56});
  ExpectBox(full[0][1], {-14, -14, 18, 18});  // stride 4, size 32
}

TEST(MaskRcnn, RpnLabelsFollowTheMatcherAndVisibility) {
  const auto o = MiniMaskRcnnOptions(3, 128);
  const auto gt = Boxes({20, 20, 60, 60, 80, 80, 120, 120, 0, 70, 40, 110});
  const auto anchors = Boxes({
      20,  20,  60,  52,   // 0: IoU 0.8 with gt 0 -> positive
      20,  20,  60,  28,   // 1: IoU 0.2 -> negative
      20,  20,  60,  40,   // 2: IoU 0.5 -> between the thresholds: ignored
      80,  80,  120, 100,  // 3: IoU 0.5, but gt 1's best anchor -> positive (low-quality match)
      -1,  70,  39,  110,  // 4: IoU 0.95 with gt 2 but crosses the left border -> ignored
      0,   70,  40,  100,  // 5: IoU 0.75 with gt 2, inside -> positive
      100, 0,   120, 20,   // 6: no overlap -> negative
      100, 100, 128, 128   // 7: touches the border from inside: visible; IoU 0.16 with gt 1
  });
  const auto t = RpnAnchorLabels(anchors, gt, 128, 128, o);
  const std::vector<float> want = {1, 0, -1, 1, -1, 1, 0, 0};
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_EQ(t.labels[i].item<float>(), want[i]) << "anchor " << i;
  EXPECT_EQ(t.matched[0].item<int64_t>(), 0);
  EXPECT_EQ(t.matched[3].item<int64_t>(), 1);
  EXPECT_EQ(t.matched[5].item<int64_t>(), 2);
  // Visibility alone, and a straddle threshold that lets anchor 4 in.
  EXPECT_FALSE(AnchorsInsideImage(anchors, 128, 128)[4].item<bool>());
  EXPECT_TRUE(AnchorsInsideImage(anchors, 128, 128, 1.0)[4].item<bool>());
  EXPECT_FALSE(AnchorsInsideImage(anchors, 127, 128)[7].item<bool>());
  // No ground truth: every visible anchor negative.
  const auto empty = RpnAnchorLabels(anchors, torch::zeros({0, 4}), 128, 128, o);
  EXPECT_EQ(empty.labels.eq(0).sum().item<int64_t>(), 7);
  EXPECT_EQ(empty.labels[4].item<float>(), -1);
}

TEST(MaskRcnn, SamplerRespectsCountAndPositiveFraction) {
  auto labels = torch::zeros({2000});
  labels.slice(0, 0, 300).fill_(1);
  labels.slice(0, 300, 500).fill_(-1);
  data::Rng rng(7);
  auto [pos, neg] = SampleFgBg(labels, 256, 0.5, rng);
  EXPECT_EQ(pos.numel(), 128);
  EXPECT_EQ(neg.numel(), 128);
  EXPECT_TRUE(labels.index_select(0, pos).eq(1).all().item<bool>());
  EXPECT_TRUE(labels.index_select(0, neg).eq(0).all().item<bool>());
  EXPECT_EQ(std::get<0>(at::_unique(torch::cat({pos, neg}))).numel(), 256);  // no repeats
  // Few positives: all of them, negatives fill the batch; the RoI head's 512 at 25%.
  labels.slice(0, 10, 300).fill_(0);
  std::tie(pos, neg) = SampleFgBg(labels, 256, 0.5, rng);
  EXPECT_EQ(pos.numel(), 10);
  EXPECT_EQ(neg.numel(), 246);
  labels.slice(0, 0, 300).fill_(2);
  std::tie(pos, neg) = SampleFgBg(labels, 512, 0.25, rng);
  EXPECT_EQ(pos.numel(), 128);
  EXPECT_EQ(neg.numel(), 384);
  // Deterministic given the seed.
  data::Rng a(11), b(11);
  EXPECT_TRUE(SampleFgBg(labels, 64, 0.5, a).second.equal(SampleFgBg(labels, 64, 0.5, b).second));
}

TEST(MaskRcnn, RoiLevelsOfKnownSizes) {
  const auto boxes =
      Boxes({0, 0, 224, 224, 10, 10, 122, 122, 0, 0, 448, 448, 5, 5, 9, 9, 0, 0, 2000, 1000});
  const auto levels = MaskRcnnRoiLevels(boxes, MaskRcnnR50FpnOptions());
  EXPECT_TRUE(levels.equal(torch::tensor({4, 3, 5, 2, 5}, torch::kLong)));
  // The mini model's canonical scale is 224 / 4 = 56 at 128 pixels.
  const auto mini = MiniMaskRcnnOptions(3, 128);
  EXPECT_DOUBLE_EQ(mini.roi_canonical_scale, 56.0);
  EXPECT_TRUE(MaskRcnnRoiLevels(Boxes({0, 0, 56, 56, 0, 0, 28, 28, 0, 0, 112, 112}), mini)
                  .equal(torch::tensor({4, 3, 5}, torch::kLong)));
}

TEST(MaskRcnn, MaskTargetOfAnExactBoxIsAllOnes) {
  auto masks = torch::zeros({2, 64, 64}, torch::kUInt8);
  masks[1].index_put_({Slice(10, 30), Slice(20, 45)}, 1);  // rows 10..29, columns 20..44
  const auto boxes = Boxes({20, 10, 45, 30, 20, 10, 45, 30, 32.5, 10, 57.5, 30});
  const auto t = MaskRcnnMaskTargets(masks, boxes, torch::tensor({1, 0, 1}, torch::kLong), 28);
  ASSERT_EQ(t.sizes(), (std::vector<int64_t>{3, 28, 28}));
  EXPECT_TRUE(t[0].eq(1).all().item<bool>());
  EXPECT_TRUE(t[1].eq(0).all().item<bool>());  // matched to the empty mask
  // A box shifted by half its width: the left half ones, the right half zeros.
  EXPECT_TRUE(t[2].index({Slice(), Slice(0, 14)}).eq(1).all().item<bool>());
  EXPECT_TRUE(t[2].index({Slice(), Slice(14, 28)}).eq(0).all().item<bool>());
}

// The losses Losses() returns.
const std::vector<std::string> kLossNames = {"loss_objectness", "loss_rpn_box_reg",
                                             "loss_classifier", "loss_box_reg", "loss_mask"};

// The loss tests' network: a 3-class mini Mask R-CNN for 64-pixel images, seeded, in train mode,
// on one thread.
MaskRcnn TrainingNet() {
  torch::set_num_threads(1);
  torch::manual_seed(0);
  MaskRcnn net(MiniMaskRcnnOptions(3, 64, 8, 1, 16));
  net->train();
  return net;
}

TEST(MaskRcnn, LossesAreFiniteAndSgdReducesThem) {
  MaskRcnn net = TrainingNet();
  const auto scene = TwoObjects();
  torch::optim::SGD opt(net->parameters(), torch::optim::SGDOptions(0.01).momentum(0.9));
  double first = 0, last = 0;
  for (int step = 0; step < 8; ++step) {
    data::Rng rng(5);  // the same sample of anchors and RoIs each step
    auto losses = net->Losses(scene.image, {{64, 64}}, {scene.target}, rng);
    ASSERT_EQ(losses.size(), 5u);
    torch::Tensor total = torch::zeros({});
    for (const auto& name : kLossNames) {
      ASSERT_TRUE(losses.count(name)) << name;
      EXPECT_EQ(losses[name].dim(), 0) << name;
      EXPECT_TRUE(std::isfinite(losses[name].item<double>())) << name;
      total = total + losses[name];
    }
    if (step == 0) {
      first = total.item<double>();
      EXPECT_NEAR(losses["loss_objectness"].item<double>(), std::log(2.0), 0.05);
      EXPECT_NEAR(losses["loss_classifier"].item<double>(), std::log(3.0), 0.05);
      EXPECT_GT(losses["loss_box_reg"].item<double>(), 0.0);  // GT boxes give positives
    }
    last = total.item<double>();
    opt.zero_grad();
    total.backward();
    opt.step();
  }
  RecordProperty("first_total_loss", std::to_string(first));
  RecordProperty("last_total_loss", std::to_string(last));
  EXPECT_LT(last, 0.8 * first) << "first " << first << " last " << last;
}

TEST(MaskRcnn, DetectReturnsAtMost100SortedWith28x28Masks) {
  torch::set_num_threads(1);
  torch::manual_seed(1);
  MaskRcnn net(MiniMaskRcnnOptions(3, 64, 8, 1, 16));
  net->eval();
  auto images = torch::rand({2, 3, 64, 64});
  const ImageSizes sizes = {{64, 64}, {48, 56}};
  const auto dets = net->Detect(images, sizes);
  ASSERT_EQ(dets.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    const auto& d = dets[i];
    const int64_t n = d.boxes.size(0);
    EXPECT_GT(n, 0);  // untrained: softmax ~ 1/3 per class, far above 0.05
    EXPECT_LE(n, 100);
    EXPECT_EQ(d.scores.size(0), n);
    EXPECT_EQ(d.labels.size(0), n);
    EXPECT_EQ(d.masks.sizes(), (std::vector<int64_t>{n, 28, 28}));
    EXPECT_TRUE((d.scores.slice(0, 1) <= d.scores.slice(0, 0, n - 1)).all().item<bool>());
    EXPECT_TRUE((d.labels >= 1).all().item<bool>() && (d.labels <= 2).all().item<bool>());
    EXPECT_TRUE((d.masks >= 0).all().item<bool>() && (d.masks <= 1).all().item<bool>());
    EXPECT_LE(d.boxes.select(1, 2).max().item<float>(), sizes[i].second);
    EXPECT_LE(d.boxes.select(1, 3).max().item<float>(), sizes[i].first);
  }
  // With 1000 candidates per class on the first image the cap binds.
  EXPECT_EQ(dets[0].boxes.size(0), 100);
  MaskRcnnDetectOptions few;
  few.detections_per_img = 7;
  EXPECT_EQ(net->Detect(images, sizes, few)[1].boxes.size(0), 7);
  EXPECT_GT(net->ForwardMacs(64, 64), net->trunk->ForwardMacs(64, 64));
}

// LibTorch's CPU autocast in bf16 for a scope (as training::AutocastScope, which models do not
// link).
class Bf16Autocast {
 public:
  Bf16Autocast() {
    at::autocast::set_autocast_cpu_dtype(torch::kBFloat16);
    at::autocast::set_cpu_enabled(true);
    at::autocast::increment_nesting();
  }
  ~Bf16Autocast() {
    if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
    at::autocast::set_cpu_enabled(false);
  }
};

// Under bf16 autocast the network computes in bf16 and everything after it in fp32: the losses
// are fp32 scalars within bf16 rounding of the fp32 ones, every parameter gets a finite fp32
// gradient, and detections come back in fp32. NHWC weights and images give the fp32 losses.
TEST(MaskRcnn, Bf16AutocastAndChannelsLastKeepTheLossesAndDetections) {
  MaskRcnn net = TrainingNet();
  const auto scene = TwoObjects();
  auto losses_of = [&](const torch::Tensor& image, bool bf16) {
    data::Rng rng(5);
    std::optional<Bf16Autocast> scope;
    if (bf16) scope.emplace();
    return net->Losses(image, {{64, 64}}, {scene.target}, rng);
  };
  const auto fp = losses_of(scene.image, false);
  auto bf = losses_of(scene.image, true);
  double max_diff = 0;
  torch::Tensor total = torch::zeros({});
  for (const auto& name : kLossNames) {
    ASSERT_TRUE(bf.count(name)) << name;
    EXPECT_EQ(bf[name].scalar_type(), torch::kFloat) << name;
    const double f = fp.at(name).item<double>(), b = bf[name].item<double>();
    EXPECT_TRUE(std::isfinite(b)) << name;
    EXPECT_NEAR(b, f, 0.05 * std::max(std::abs(f), 0.1)) << name;  // bf16 keeps 8 bits of mantissa
    max_diff = std::max(max_diff, std::abs(b - f));
    total = total + bf[name];
  }
  EXPECT_GT(max_diff, 0.0) << "bf16 autocast should round somewhere (was it on?)";
  total.backward();
  int with_grad = 0;
  for (const auto& p : net->named_parameters()) {
    if (!p.value().grad().defined()) continue;
    ++with_grad;
    EXPECT_EQ(p.value().grad().scalar_type(), torch::kFloat) << p.key();
    EXPECT_TRUE(torch::isfinite(p.value().grad()).all().item<bool>()) << p.key();
  }
  EXPECT_EQ(with_grad, static_cast<int>(net->parameters().size()));

  // Channels-last: the same function, in fp32 within float rounding.
  net->zero_grad();
  for (auto& p : net->parameters()) {
    if (p.dim() == 4) p.set_data(p.data().contiguous(torch::MemoryFormat::ChannelsLast));
  }
  const auto nhwc = losses_of(scene.image.contiguous(torch::MemoryFormat::ChannelsLast), false);
  for (const auto& name : kLossNames) {
    EXPECT_NEAR(nhwc.at(name).item<double>(), fp.at(name).item<double>(), 1e-4) << name;
  }

  net->eval();
  std::vector<MaskRcnnDetections> dets;
  {
    Bf16Autocast scope;
    dets = net->Detect(scene.image, {{64, 64}});
  }
  ASSERT_EQ(dets.size(), 1u);
  const auto& d = dets[0];
  EXPECT_GT(d.boxes.size(0), 0);
  for (const auto* t : {&d.boxes, &d.scores, &d.masks}) EXPECT_EQ(t->scalar_type(), torch::kFloat);
  EXPECT_TRUE((d.masks >= 0).all().item<bool>() && (d.masks <= 1).all().item<bool>());
  EXPECT_TRUE(
      (d.scores.slice(0, 1) <= d.scores.slice(0, 0, d.scores.size(0) - 1)).all().item<bool>());
}

TEST(MaskRcnn, R50FpnHasTheReferenceParameterCount) {
  MaskRcnn net(MaskRcnnR50FpnOptions(81));
  // maskrcnn-benchmark's e2e_mask_rcnn_R_50_FPN_1x for 81 classes: 44,347,573 parameters, its
  // FrozenBatchNorm2d affine values being buffers (torchvision's maskrcnn_resnet50_fpn, 91
  // classes: 44,401,393; minus 10 classes x (1025 + 4 x 1025 + 257)). Trunk convolutions
  // 23,454,912; FPN 3,344,384; RPN 593,935; fc6/fc7 13,895,680; predictor 415,125; mask head
  // 2,643,537. Here the trunk's BatchNorm is trainable: + 53,120 (26,560 channels).
  int64_t total = 0, bn = 0;
  for (const auto& p : net->named_parameters()) {
    total += p.value().numel();
    const auto& k = p.key();
    if (k.rfind("trunk.", 0) == 0 &&
        (k.find(".bn") != std::string::npos || k.find("downsample.1") != std::string::npos)) {
      bn += p.value().numel();
    }
  }
  EXPECT_EQ(total - bn, 44347573);
  EXPECT_EQ(bn, 53120);
  EXPECT_TRUE(net->named_parameters().contains("trunk.layer4.2.conv3.weight"));
  EXPECT_TRUE(net->named_parameters().contains("mask_fcn_logits.weight"));
  // Frozen trunk BatchNorm (the reference): no gradients, eval mode in training.
  auto o = MaskRcnnR50FpnOptions(81);
  o.freeze_trunk_bn = true;
  MaskRcnn frozen(o);
  frozen->train();
  EXPECT_FALSE(frozen->trunk->named_parameters()["bn1.weight"].requires_grad());
  EXPECT_FALSE(frozen->trunk->named_modules()["bn1"]->is_training());
  EXPECT_TRUE(frozen->fc6->is_training());
  // Forward MACs of an 800 x 800 image: the heads are counted on top of the trunk (fc6 alone is
  // 12.8 M MACs per RoI, 512 RoIs), and the total is of the expected order (well under 400 G).
  const int64_t macs = net->ForwardMacs(800, 800);
  RecordProperty("r50_fpn_train_macs_800", std::to_string(macs));
  RecordProperty("r50_fpn_test_macs_800", std::to_string(net->ForwardMacs(800, 800, false)));
  EXPECT_GT(macs, net->trunk->ForwardMacs(800, 800) + 512LL * 12845056);
  EXPECT_LT(macs, 400LL * 1000 * 1000 * 1000);
}

}  // namespace
}  // namespace trainbench::models

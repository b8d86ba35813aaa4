#include "vision/roi_align.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "vision/test_util.h"

namespace trainbench::vision {
namespace {

using VisionRoiAlignTest = testing::VisionTest;

// Independent reference in double: the value of `plane` [H, W] at (y, x) as RoIAlign samples it
// (0 outside [-1, H] x [-1, W], else clamped into the map and interpolated bilinearly).
double Sample(const torch::TensorAccessor<double, 2>& plane, int64_t H, int64_t W, double y,
              double x) {
  if (y < -1.0 || y > H || x < -1.0 || x > W) return 0.0;
  y = std::min(std::max(y, 0.0), static_cast<double>(H - 1));
  x = std::min(std::max(x, 0.0), static_cast<double>(W - 1));
  const int64_t y0 = static_cast<int64_t>(std::floor(y)), x0 = static_cast<int64_t>(std::floor(x));
  const int64_t y1 = std::min(y0 + 1, H - 1), x1 = std::min(x0 + 1, W - 1);
  const double fy = y - y0, fx = x - x0;
  return (1 - fy) * ((1 - fx) * plane[y0][x0] + fx * plane[y0][x1]) +
         fy * ((1 - fx) * plane[y1][x0] + fx * plane[y1][x1]);
}

torch::Tensor ReferenceRoiAlign(const torch::Tensor& input, const torch::Tensor& rois,
                                const RoiAlignOptions& o) {
  const auto x = input.to(torch::kDouble);
  const auto r = rois.to(torch::kDouble);
  const int64_t K = r.size(0), C = x.size(1), H = x.size(2), W = x.size(3);
  auto out = torch::zeros({K, C, o.output_h, o.output_w}, torch::kDouble);
  auto xa = x.accessor<double, 4>();
  auto ra = r.accessor<double, 2>();
  auto oa = out.accessor<double, 4>();
  for (int64_t k = 0; k < K; ++k) {
    const int64_t n = static_cast<int64_t>(ra[k][0]);
    const double shift = o.aligned ? 0.5 : 0.0;
    const double x1 = ra[k][1] * o.spatial_scale - shift, y1 = ra[k][2] * o.spatial_scale - shift;
    double w = ra[k][3] * o.spatial_scale - shift - x1, h = ra[k][4] * o.spatial_scale - shift - y1;
    if (!o.aligned) {
      w = std::max(w, 1.0);
      h = std::max(h, 1.0);
    }
    const double bw = w / o.output_w, bh = h / o.output_h;
    const int64_t gh =
        o.sampling_ratio > 0 ? o.sampling_ratio : static_cast<int64_t>(std::ceil(bh));
    const int64_t gw =
        o.sampling_ratio > 0 ? o.sampling_ratio : static_cast<int64_t>(std::ceil(bw));
    for (int64_t c = 0; c < C; ++c) {
      for (int64_t i = 0; i < o.output_h; ++i) {
        for (int64_t j = 0; j < o.output_w; ++j) {
          double sum = 0;
          for (int64_t a = 0; a < gh; ++a) {
            for (int64_t b = 0; b < gw; ++b) {
              const double sy = y1 + i * bh + (a + 0.5) * bh / gh;
              const double sx = x1 + j * bw + (b + 0.5) * bw / gw;
              sum += Sample(xa[n][c], H, W, sy, sx);
            }
          }
          oa[k][c][i][j] = gh * gw > 0 ? sum / (gh * gw) : 0.0;
        }
      }
    }
  }
  return out;
}

// RoIs partly outside the map, tiny, and large, in image coordinates of a map of `scale`.
torch::Tensor RandomRois(int64_t k, int64_t batch, double image_h, double image_w,
                         torch::Generator gen) {
  auto idx = torch::randint(0, batch, {k, 1}, gen).to(torch::kDouble);
  auto x = torch::rand({k, 1}, gen, torch::kDouble) * image_w * 1.2 - 0.1 * image_w;
  auto y = torch::rand({k, 1}, gen, torch::kDouble) * image_h * 1.2 - 0.1 * image_h;
  auto w = torch::rand({k, 1}, gen, torch::kDouble) * image_w * 0.8;
  auto h = torch::rand({k, 1}, gen, torch::kDouble) * image_h * 0.8;
  // Plus a degenerate RoI (zero width) and one smaller than a cell, raised to 1 x 1 without
  // `aligned`.
  const auto extra =
      torch::tensor({{0.0, 2.0, 1.0, 2.0, 4.0}, {0.0, 3.2, 2.1, 3.3, 2.4}}, torch::kDouble);
  return torch::cat({torch::cat({idx, x, y, x + w, y + h}, 1), extra}, 0);
}

struct Config {
  int64_t oh, ow;
  double scale;
  int64_t sampling;
  bool aligned;
};

const std::vector<Config> kConfigs = {
    {7, 7, 1.0, -1, false}, {7, 7, 0.5, 2, false},   {2, 3, 0.25, 0, true},
    {5, 4, 1.0, 2, true},   {14, 14, 0.5, -1, true}, {1, 1, 1.0, 3, false},
};

RoiAlignOptions Options(const Config& c) {
  RoiAlignOptions o;
  o.output_h = c.oh;
  o.output_w = c.ow;
  o.spatial_scale = c.scale;
  o.sampling_ratio = c.sampling;
  o.aligned = c.aligned;
  return o;
}

TEST_F(VisionRoiAlignTest, ForwardMatchesReference) {
  int64_t seed = 0;
  for (const auto& config : kConfigs) {
    auto gen = at::detail::createCPUGenerator(++seed);
    const auto o = Options(config);
    const auto input = torch::randn({2, 3, 12, 17}, gen, torch::kDouble);
    const auto rois = RandomRois(9, 2, 12 / config.scale, 17 / config.scale, gen);
    const auto expected = ReferenceRoiAlign(input, rois, o);
    EXPECT_TRUE(torch::allclose(RoiAlign(input, rois, o), expected, 1e-12, 1e-12))
        << "config " << seed;
    const auto f = RoiAlign(input.to(torch::kFloat), rois.to(torch::kFloat), o);
    EXPECT_EQ(f.scalar_type(), torch::kFloat);
    EXPECT_TRUE(torch::allclose(f.to(torch::kDouble), expected, 1e-4, 1e-5)) << "config " << seed;
  }
}

TEST_F(VisionRoiAlignTest, ConstantMapGivesConstant) {
  const auto input = torch::full({1, 2, 10, 10}, 3.5);
  const auto rois = torch::tensor({{0.0f, 1.0f, 1.5f, 8.0f, 9.0f}, {0.0f, 0.0f, 0.0f, 9.0f, 9.0f}});
  for (bool aligned : {false, true}) {
    RoiAlignOptions o;
    o.aligned = aligned;
    o.output_h = o.output_w = 4;
    if (aligned) o.output_h = 3;
    EXPECT_TRUE(torch::allclose(RoiAlign(input, rois, o), torch::full({2, 2, o.output_h, 4}, 3.5)));
  }
}

TEST_F(VisionRoiAlignTest, LinearRampGivesBinCentre) {
  // f(y, x) = 2x - 3y + 1: bilinear interpolation is exact for it, and the samples of a bin are
  // symmetric about the bin's centre, so each output is f at the bin centre.
  const int64_t H = 20, W = 24;
  auto ys = torch::arange(H, torch::kDouble).view({H, 1}).expand({H, W});
  auto xs = torch::arange(W, torch::kDouble).view({1, W}).expand({H, W});
  const auto input = (2 * xs - 3 * ys + 1).view({1, 1, H, W});
  const auto rois = torch::tensor({{0.0, 2.5, 3.0, 17.0, 15.25}}, torch::kDouble);
  RoiAlignOptions o;
  o.aligned = true;
  o.output_h = 3;
  o.output_w = 5;
  o.sampling_ratio = 2;
  const auto out = RoiAlign(input, rois, o);
  const double x1 = 2.5 - 0.5, y1 = 3.0 - 0.5, bw = (17.0 - 2.5) / 5, bh = (15.25 - 3.0) / 3;
  for (int64_t i = 0; i < 3; ++i) {
    for (int64_t j = 0; j < 5; ++j) {
      const double cx = x1 + (j + 0.5) * bw, cy = y1 + (i + 0.5) * bh;
      EXPECT_NEAR(out[0][0][i][j].item<double>(), 2 * cx - 3 * cy + 1, 1e-12);
    }
  }
}

TEST_F(VisionRoiAlignTest, BackwardMatchesFiniteDifferences) {
  int64_t seed = 100;
  for (const auto& config : kConfigs) {
    auto gen = at::detail::createCPUGenerator(++seed);
    const auto o = Options(config);
    auto input = torch::randn({2, 2, 5, 6}, gen, torch::kDouble).requires_grad_(true);
    auto rois = RandomRois(4, 2, 5 / config.scale, 6 / config.scale, gen).requires_grad_(true);
    const auto weights = torch::randn({6, 2, config.oh, config.ow}, gen, torch::kDouble);
    (RoiAlign(input, rois, o) * weights).sum().backward();
    EXPECT_FALSE(rois.grad().defined());
    const auto grad = input.grad();
    ASSERT_TRUE(grad.defined());
    torch::NoGradGuard no_grad;
    auto x = input.detach().clone();
    auto flat = x.view({-1});
    const double eps = 1e-6;
    for (int64_t i = 0; i < flat.numel(); ++i) {
      const double v = flat[i].item<double>();
      flat[i] = v + eps;
      const double up = (RoiAlignForward(x, rois, o) * weights).sum().item<double>();
      flat[i] = v - eps;
      const double down = (RoiAlignForward(x, rois, o) * weights).sum().item<double>();
      flat[i] = v;
      EXPECT_NEAR(grad.view({-1})[i].item<double>(), (up - down) / (2 * eps), 1e-6)
          << "config " << seed << " element " << i;
    }
  }
}

TEST_F(VisionRoiAlignTest, BackwardIsTheAdjointInFloat) {
  auto gen = at::detail::createCPUGenerator(5);
  RoiAlignOptions o;
  o.output_h = o.output_w = 7;
  o.spatial_scale = 0.25;
  o.sampling_ratio = 2;
  const auto x = torch::randn({2, 8, 25, 30}, gen);
  const auto rois = RandomRois(40, 2, 100, 120, gen).to(torch::kFloat);
  const auto g = torch::randn({42, 8, 7, 7}, gen);
  const double lhs = (RoiAlignForward(x, rois, o) * g).sum().item<double>();
  const double rhs = (x * RoiAlignBackward(g, rois, o, 2, 8, 25, 30)).sum().item<double>();
  EXPECT_NEAR(lhs, rhs, 1e-3 * std::abs(lhs) + 1e-3);
}

TEST_F(VisionRoiAlignTest, EmptyRois) {
  const auto x = torch::randn({1, 3, 8, 8}, torch::requires_grad());
  const auto out = RoiAlign(x, torch::zeros({0, 5}), RoiAlignOptions{});
  EXPECT_EQ(out.sizes(), (std::vector<int64_t>{0, 3, 7, 7}));
  out.sum().backward();
  EXPECT_TRUE(x.grad().equal(torch::zeros_like(x)));
}

TEST_F(VisionRoiAlignTest, BoxesToRois) {
  const auto rois =
      BoxesToRois({torch::ones({2, 4}), torch::zeros({0, 4}), torch::full({1, 4}, 2.0)});
  EXPECT_TRUE(rois.equal(torch::tensor({{0.0f, 1.0f, 1.0f, 1.0f, 1.0f},
                                        {0.0f, 1.0f, 1.0f, 1.0f, 1.0f},
                                        {2.0f, 2.0f, 2.0f, 2.0f, 2.0f}})));
}

TEST_F(VisionRoiAlignTest, FpnLevels) {
  auto square = [](float side) { return std::array<float, 4>{10, 10, 10 + side, 10 + side}; };
  const auto boxes = testing::Boxes({square(224), square(112), square(448), square(1000),
                                     square(10), square(223), square(111.9f)});
  EXPECT_TRUE(FpnLevels(boxes).equal(torch::tensor({4, 3, 5, 5, 2, 3, 2}, torch::kLong)));
}

TEST_F(VisionRoiAlignTest, MultiScalePoolsFromTheAssignedLevel) {
  auto gen = at::detail::createCPUGenerator(11);
  // Levels 2..3 of a 256 x 256 image: strides 4 and 8.
  auto p2 = torch::randn({1, 2, 64, 64}, gen, torch::kDouble).requires_grad_(true);
  auto p3 = torch::randn({1, 2, 32, 32}, gen, torch::kDouble).requires_grad_(true);
  const auto rois = torch::tensor({{0.0, 10.0, 10.0, 40.0, 40.0},   // sqrt(area) 30: level 2
                                   {0.0, 0.0, 0.0, 200.0, 150.0}},  // 173: level 3
                                  torch::kDouble);
  RoiAlignOptions o;
  o.sampling_ratio = 2;
  const auto out = MultiScaleRoiAlign({p2, p3}, rois, o);
  RoiAlignOptions o2 = o, o3 = o;
  o2.spatial_scale = 0.25;
  o3.spatial_scale = 0.125;
  EXPECT_TRUE(out[0].equal(RoiAlignForward(p2, rois.slice(0, 0, 1), o2)[0]));
  EXPECT_TRUE(out[1].equal(RoiAlignForward(p3, rois.slice(0, 1, 2), o3)[0]));
  out.sum().backward();
  EXPECT_GT(p2.grad().abs().sum().item<double>(), 0);
  EXPECT_GT(p3.grad().abs().sum().item<double>(), 0);
}

}  // namespace
}  // namespace trainbench::vision

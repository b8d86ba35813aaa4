#include "models/go_net.h"

#include <ATen/autocast_mode.h>
#include <gtest/gtest.h>

namespace trainbench::models {
namespace {

TEST(GoNet, ShapesAndRanges) {
  torch::manual_seed(1);
  GoNet net(GoNetOptions().board_size(9).filters(16).blocks(2).value_fc(32));
  auto [p, v] = net->forward(torch::randn({4, 17, 9, 9}));
  EXPECT_EQ(p.sizes(), (std::vector<int64_t>{4, 82}));
  EXPECT_EQ(v.sizes(), (std::vector<int64_t>{4}));
  EXPECT_TRUE((v.abs() <= 1).all().item<bool>());
  EXPECT_EQ(net->trunk->size(), 2u);
}

// The folded network computes the network's eval-mode function: with running statistics and
// affine parameters away from their initial values (else folding would change nothing), fp32
// and NHWC within float rounding, bf16 within bf16's; and a network with the initial statistics
// is not what a trained one gives (the folding reads the current values).
TEST(FoldedGoNet, IsTheNetworkInEvalMode) {
  torch::manual_seed(6);
  GoNet net(GoNetOptions().board_size(9).filters(16).blocks(2).value_fc(32));
  GoNet fresh(GoNetOptions().board_size(9).filters(16).blocks(2).value_fc(32));
  {
    torch::NoGradGuard no_grad;
    for (auto& item : net->named_buffers()) {
      torch::Tensor& b = item.value();
      if (item.key().find("running_mean") != std::string::npos) b.copy_(torch::randn_like(b) * 0.5);
      if (item.key().find("running_var") != std::string::npos) b.copy_(torch::rand_like(b) + 0.5);
    }
    for (auto& item : net->named_parameters()) {
      torch::Tensor& p = item.value();
      if (item.key().find("bn") != std::string::npos) p.copy_(p + torch::randn_like(p) * 0.3);
    }
    auto from = net->parameters(), to = fresh->parameters();
    for (size_t k = 0; k < from.size(); ++k)
      to[k].copy_(from[k]);  // the same weights, initial statistics
  }
  net->eval();
  fresh->eval();
  {
    torch::NoGradGuard
        no_grad;  // logits of a trained network's magnitude (~10), not an initial one's (~1)
    net->policy_fc->weight.mul_(8.0);
    fresh->policy_fc->weight.copy_(net->policy_fc->weight);
  }
  torch::Tensor x = torch::rand({8, 17, 9, 9}).round();
  torch::NoGradGuard no_grad;
  auto [p, v] = net->forward(x);
  auto [fp, fv] = FoldedGoNet(*net).forward(x);
  EXPECT_EQ(fp.scalar_type(), torch::kFloat32);
  EXPECT_TRUE(torch::allclose(fp, p, 1e-4, 1e-4)) << (fp - p).abs().max().item<float>();
  EXPECT_TRUE(torch::allclose(fv, v, 1e-4, 1e-4)) << (fv - v).abs().max().item<float>();
  auto [cp, cv] = FoldedGoNet(*net, torch::kFloat32, true).forward(x);
  EXPECT_TRUE(torch::allclose(cp, p, 1e-4, 1e-4));
  EXPECT_TRUE(torch::allclose(cv, v, 1e-4, 1e-4));
  auto [bp, bv] = FoldedGoNet(*net, torch::kBFloat16, true).forward(x);
  EXPECT_EQ(bp.scalar_type(), torch::kFloat32);
  EXPECT_EQ(bv.scalar_type(), torch::kFloat32);
  const float scale = p.abs().max().item<float>();
  EXPECT_LT((bp - p).abs().max().item<float>(), 0.05f * scale + 0.05f);
  EXPECT_LT((bv - v).abs().max().item<float>(), 0.05f);
  EXPECT_GT((bp - p).abs().max().item<float>(), 0.0f) << "bf16 should round somewhere";
  {
    // The folded network ignores autocast: the fp32 heads are not cast down by the caller's scope.
    const bool was = at::autocast::is_cpu_enabled();
    const at::ScalarType was_dtype = at::autocast::get_autocast_cpu_dtype();
    at::autocast::set_cpu_enabled(true);
    at::autocast::set_autocast_cpu_dtype(at::kBFloat16);
    auto [ap, av] = FoldedGoNet(*net, torch::kBFloat16, true).forward(x);
    auto [afp, afv] = FoldedGoNet(*net).forward(x);
    at::autocast::set_cpu_enabled(was);
    at::autocast::set_autocast_cpu_dtype(was_dtype);
    at::autocast::clear_cache();
    EXPECT_TRUE(torch::equal(ap, bp));
    EXPECT_TRUE(torch::equal(av, bv));
    EXPECT_TRUE(torch::equal(afp, fp)) << "an fp32 folded network under bf16 autocast";
  }
  auto [np, nv] = FoldedGoNet(*fresh).forward(x);
  EXPECT_GT((np - p).abs().max().item<float>(), 0.1f) << "the statistics should matter";
  // A snapshot: training the network afterwards does not change the folded one.
  const FoldedGoNet snapshot(*net);
  net->policy_fc->weight.add_(1.0);
  auto [sp, sv] = snapshot.forward(x);
  EXPECT_TRUE(torch::allclose(sp, fp, 1e-6, 1e-6)) << "the folded network shares a parameter";
}

TEST(GoNet, LearnsAFixedTarget) {
  // A few steps on one batch must lower both losses (the heads are wired to the trunk).
  torch::manual_seed(2);
  GoNet net(GoNetOptions().board_size(5).filters(8).blocks(1).value_fc(8));
  torch::Tensor x = torch::randn({16, 17, 5, 5});
  torch::Tensor move = torch::randint(0, 26, {16});
  torch::Tensor z = torch::rand({16}) * 2 - 1;
  torch::optim::SGD opt(net->parameters(), torch::optim::SGDOptions(0.1).momentum(0.9));
  auto loss = [&] {
    auto [p, v] = net->forward(x);
    return std::make_pair(torch::cross_entropy_loss(p, move), torch::mse_loss(v, z));
  };
  auto [p0, v0] = loss();
  for (int i = 0; i < 30; ++i) {
    auto [pl, vl] = loss();
    opt.zero_grad();
    (pl + vl).backward();
    opt.step();
  }
  auto [p1, v1] = loss();
  EXPECT_LT(p1.item<double>(), 0.5 * p0.item<double>());
  EXPECT_LT(v1.item<double>(), 0.5 * v0.item<double>());
}

TEST(GoNet, MacsOfMiniGo9x9) {
  GoNet net{GoNetOptions()};
  // stem 81*17*32*9 + 9 blocks * 2 * 81*32*32*9 + heads.
  EXPECT_EQ(net->ForwardMacs(), 81 * 17 * 32 * 9 + 9 * 2 * 81 * 32 * 32 * 9 + 81 * 32 * 2 +
                                    2 * 81 * 82 + 81 * 32 + 81 * 64 + 64);
}

}  // namespace
}  // namespace trainbench::models

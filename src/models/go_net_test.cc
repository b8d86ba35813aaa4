#include "models/go_net.h"

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
  EXPECT_EQ(net->ForwardMacs(), 81 * 17 * 32 * 9 + 9 * 2 * 81 * 32 * 32 * 9 + 81 * 32 * 2 + 2 * 81 * 82 + 81 * 32 +
                                    81 * 64 + 64);
}

}  // namespace
}  // namespace trainbench::models

#include "models/neumf.h"

#include <gtest/gtest.h>

namespace trainbench::models {
namespace {

TEST(NeuMFTest, ReferenceParameterNamesAndShapes) {
  NeuMF m(NeuMFOptions(100, 50).mf_dim(64).mlp_layer_sizes({256, 256, 128, 64}));
  auto p = m->named_parameters();
  EXPECT_EQ(p["mf_user_embed.weight"].sizes(), (std::vector<int64_t>{100, 64}));
  EXPECT_EQ(p["mf_item_embed.weight"].sizes(), (std::vector<int64_t>{50, 64}));
  EXPECT_EQ(p["mlp_user_embed.weight"].sizes(), (std::vector<int64_t>{100, 128}));
  EXPECT_EQ(p["mlp_item_embed.weight"].sizes(), (std::vector<int64_t>{50, 128}));
  EXPECT_EQ(p["mlp.0.weight"].sizes(), (std::vector<int64_t>{256, 256}));
  EXPECT_EQ(p["mlp.1.weight"].sizes(), (std::vector<int64_t>{128, 256}));
  EXPECT_EQ(p["mlp.2.weight"].sizes(), (std::vector<int64_t>{64, 128}));
  EXPECT_EQ(p["final.weight"].sizes(), (std::vector<int64_t>{1, 128}));
  // Embeddings (100+50) x (64+128), MLP 256*256+256 + 256*128+128 + 128*64+64, final 128+1.
  int64_t n = 0;
  for (const auto& t : m->parameters()) n += t.numel();
  EXPECT_EQ(n, 150 * 192 + (65536 + 256) + (32768 + 128) + (8192 + 64) + 129);
}

TEST(NeuMFTest, ReferenceInitialisation) {
  torch::manual_seed(0);
  NeuMF m(NeuMFOptions(5000, 5000).mf_dim(64));
  auto p = m->named_parameters();
  EXPECT_NEAR(p["mf_user_embed.weight"].std().item<double>(), 0.01, 0.0005);
  const double glorot = std::sqrt(6.0 / (256 + 256));
  EXPECT_LE(p["mlp.0.weight"].abs().max().item<double>(), glorot);
  EXPECT_GT(p["mlp.0.weight"].abs().max().item<double>(), 0.95 * glorot);
  const double lecun = std::sqrt(3.0 / 128);
  EXPECT_LE(p["final.weight"].abs().max().item<double>(), lecun);
}

TEST(NeuMFTest, FactorisedScoreEqualsForwardOnEveryPair) {
  torch::manual_seed(1);
  NeuMF m(NeuMFOptions(30, 40).mf_dim(8).mlp_layer_sizes({16, 12, 6}));
  // Larger weights than the N(0, 0.01) init, so every term matters.
  {
    torch::NoGradGuard g;
    for (auto& t : m->parameters()) t.normal_(0.0, 0.5);
  }
  m->eval();
  torch::NoGradGuard g;
  torch::Tensor users = torch::tensor({3, 0, 29, 7}, torch::kInt64);
  torch::Tensor items = torch::randint(0, 40, {4, 11}, torch::kInt64);
  torch::Tensor fast = NeuMFScorer(m).Score(users, items);
  ASSERT_EQ(fast.sizes(), (std::vector<int64_t>{4, 11}));
  torch::Tensor slow =
      m->forward(users.unsqueeze(1).expand({4, 11}).reshape({-1}), items.reshape({-1}))
          .view({4, 11});
  EXPECT_TRUE(torch::allclose(fast, slow, 1e-4, 1e-5)) << (fast - slow).abs().max().item<double>();
}

// The fused CPU gather (one pass per pair) gives the tensor operations' values; bf16 MLP layers
// stay within bf16 rounding of them; an out-of-range candidate is an error naming the pair.
TEST(NeuMFTest, FusedGatherAndBf16LayersScoreAsTheTensorOperations) {
  torch::manual_seed(2);
  NeuMF m(NeuMFOptions(30, 40).mf_dim(8).mlp_layer_sizes({16, 12, 6}));
  {
    torch::NoGradGuard g;
    for (auto& t : m->parameters()) t.normal_(0.0, 0.5);
  }
  m->eval();
  torch::NoGradGuard g;
  torch::Tensor users = torch::tensor({3, 0, 29, 7, 12}, torch::kInt64);
  torch::Tensor items = torch::randint(0, 40, {5, 37}, torch::kInt64);
  const torch::Tensor plain = NeuMFScorer(m).Score(users, items);
  const torch::Tensor fused =
      NeuMFScorer(m, NeuMFScorerOptions().fused_gather(true)).Score(users, items);
  ASSERT_EQ(fused.sizes(), plain.sizes());
  EXPECT_TRUE(torch::allclose(fused, plain, 1e-5, 1e-5))
      << (fused - plain).abs().max().item<double>();
  for (bool f : {false, true}) {
    const torch::Tensor bf =
        NeuMFScorer(m, NeuMFScorerOptions().fused_gather(f).mlp_dtype(torch::kBFloat16))
            .Score(users, items);
    EXPECT_EQ(bf.scalar_type(), torch::kFloat32);
    const double err = (bf - plain).abs().max().item<double>();
    const double scale = plain.abs().max().item<double>();
    EXPECT_LT(err, 0.03 * scale) << "fused " << f;  // bf16 keeps 8 bits of mantissa
    EXPECT_GT(err, 0.0) << "fused " << f;           // the layers did run in bf16
  }
  torch::Tensor bad = items.clone();
  bad[2][5] = 40;
  try {
    NeuMFScorer(m, NeuMFScorerOptions().fused_gather(true)).Score(users, bad);
    FAIL() << "an item index past the table was accepted";
  } catch (const c10::Error& e) {
    EXPECT_NE(std::string(e.what()).find("pair 79 (user 29, item 40) is out of range"),
              std::string::npos)
        << e.what();
  }
}

TEST(NeuMFTest, RejectsOddFirstLayer) {
  EXPECT_THROW(NeuMF(NeuMFOptions(3, 3).mlp_layer_sizes({15, 8})), std::invalid_argument);
}

}  // namespace
}  // namespace trainbench::models

#include "workloads/ranking_metrics.h"

#include <gtest/gtest.h>

#include <cmath>

namespace trainbench::workloads {
namespace {

TEST(RankingMetricsTest, RanksCountNegativesScoringAtLeastThePositive) {
  // Positive in column 0. Row 0: best -> rank 0. Row 1: two negatives above -> rank 2.
  // Row 2: one tie, one above -> rank 2 (ties count against). Row 3: all equal -> rank 3.
  torch::Tensor s = torch::tensor(
      {{0.9, 0.1, 0.2, 0.3}, {0.5, 0.6, 0.7, 0.1}, {0.5, 0.5, 0.9, 0.1}, {0.2, 0.2, 0.2, 0.2}});
  EXPECT_TRUE(torch::equal(PositiveRanks(s), torch::tensor({0, 2, 2, 3}, torch::kInt64)));
}

TEST(RankingMetricsTest, HitRateAndNdcgByHand) {
  torch::Tensor s =
      torch::tensor({{0.9, 0.1, 0.2, 0.3},    // rank 0: hit, ndcg 1
                     {0.5, 0.6, 0.7, 0.1},    // rank 2: hit at K=3, ndcg 1/log2(4) = 0.5
                     {0.1, 0.5, 0.9, 0.3}});  // rank 3: no hit at K=3
  RankingSums k3;
  AccumulateRanking(s, 3, &k3);
  EXPECT_EQ(k3.users, 3);
  EXPECT_DOUBLE_EQ(k3.hits, 2.0);
  EXPECT_NEAR(k3.ndcg, 1.0 + 0.5, 1e-12);
  RankingSums k1;
  AccumulateRanking(s, 1, &k1);
  EXPECT_DOUBLE_EQ(k1.hits, 1.0);
  EXPECT_NEAR(k1.ndcg, 1.0, 1e-12);
  // Accumulates over batches: rank 1 -> ndcg log(2)/log(3).
  AccumulateRanking(torch::tensor({{0.5, 0.9, 0.1}}), 3, &k3);
  EXPECT_EQ(k3.users, 4);
  EXPECT_DOUBLE_EQ(k3.hits, 3.0);
  EXPECT_NEAR(k3.ndcg, 1.5 + std::log(2.0) / std::log(3.0), 1e-12);
}

TEST(RankingMetricsTest, UniformScoresGetNoHit) {
  RankingSums s;
  AccumulateRanking(torch::zeros({5, 1000}), 10, &s);
  EXPECT_EQ(s.hits, 0.0);
  EXPECT_EQ(s.ndcg, 0.0);
}

TEST(RankingMetricsTest, NanPositiveIsNoHit) {
  torch::Tensor s = torch::tensor({{NAN, 0.1f, 0.2f}});
  EXPECT_EQ(PositiveRanks(s).item<int64_t>(), 3);
  RankingSums r;
  AccumulateRanking(s, 3, &r);  // K = C: any real rank would be a hit
  EXPECT_EQ(r.hits, 0.0);
  EXPECT_EQ(r.ndcg, 0.0);
}

TEST(RankingMetricsTest, PositiveInAnotherColumn) {
  torch::Tensor s = torch::tensor({{0.1, 0.9, 0.5}});
  EXPECT_EQ(PositiveRanks(s, 2).item<int64_t>(), 1);
}

}  // namespace
}  // namespace trainbench::workloads

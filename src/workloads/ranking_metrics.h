// Leave-one-out ranking metrics of NCF: each user has one held-out positive among C candidate
// items (the positive and C-1 sampled negatives). The positive's rank is the number of
// negatives scoring at least as high as it (ties count against the model, so a model that
// scores everything alike gets no hit); then, with cut-off K:
//   HR@K   = 1 if rank < K else 0
//   NDCG@K = log(2) / log(rank + 2) if rank < K else 0   (one relevant item: IDCG = 1)
// averaged over users. Computed with tensor ops on the scores' device.
#pragma once

#include <torch/torch.h>

namespace trainbench::workloads {

struct RankingSums {
  double hits = 0;  // sum of HR@K over users
  double ndcg = 0;  // sum of NDCG@K over users
  int64_t users = 0;
};

// scores: [B, C] with the positive in column `positive_column` (0 in trainbench's layout).
// Returns per-user ranks [B] (int64) in 0..C-1; a NaN positive gets rank C (no hit for K <= C).
torch::Tensor PositiveRanks(const torch::Tensor& scores, int64_t positive_column = 0);

// Adds the batch's HR@K and NDCG@K sums to *sums (synchronises the device once).
void AccumulateRanking(const torch::Tensor& scores, int64_t k, RankingSums* sums,
                       int64_t positive_column = 0);

}  // namespace trainbench::workloads

#include "workloads/ranking_metrics.h"

#include <cmath>

namespace trainbench::workloads {

torch::Tensor PositiveRanks(const torch::Tensor& scores, int64_t positive_column) {
  TORCH_CHECK(scores.dim() == 2, "scores must be [users, candidates]");
  torch::Tensor pos = scores.narrow(1, positive_column, 1);
  // Every column scoring >= the positive, minus the positive itself.
  // A NaN positive (a diverged model) ranks last: no hit.
  torch::Tensor rank = scores.ge(pos).sum(1) - 1;
  return torch::where(pos.squeeze(1).isnan(), torch::full_like(rank, scores.size(1)), rank);
}

void AccumulateRanking(const torch::Tensor& scores, int64_t k, RankingSums* sums,
                       int64_t positive_column) {
  torch::Tensor rank = PositiveRanks(scores, positive_column).to(torch::kFloat64);
  torch::Tensor hit = rank.lt(static_cast<double>(k)).to(torch::kFloat64);
  torch::Tensor ndcg = hit * (std::log(2.0) / torch::log(rank + 2.0));
  torch::Tensor both = torch::stack({hit.sum(), ndcg.sum()}).cpu();
  sums->hits += both[0].item<double>();
  sums->ndcg += both[1].item<double>();
  sums->users += scores.size(0);
}

}  // namespace trainbench::workloads

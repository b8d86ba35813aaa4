// The MCTS Evaluator backed by the Go network: input planes for each position (go/features.h),
// one batched forward pass in eval mode without gradients, softmax priors and the value head.
// The forward pass runs in the caller's autocast state (AutocastScope: a bf16 search); priors and
// values come back as fp32. With `channels_last` the input planes are NHWC (for a network whose
// weights are, ToChannelsLast).
#pragma once

#include <torch/torch.h>

#include <memory>

#include "go/mcts.h"
#include "models/go_net.h"

namespace trainbench::workloads {

class GoNetEvaluator : public go::Evaluator {
 public:
  GoNetEvaluator(models::GoNet net, torch::Device device, int history = go::Position::kHistory,
                 bool channels_last = false);
  // The same network with its BatchNorms folded (models::FoldedGoNet, shared read-only).
  GoNetEvaluator(std::shared_ptr<const models::FoldedGoNet> folded, torch::Device device,
                 int history = go::Position::kHistory, bool channels_last = false);
  void Evaluate(const std::vector<const go::Position*>& positions,
                std::vector<go::Evaluation>* out) override;
  int64_t positions_evaluated() const { return evaluated_; }

 private:
  models::GoNet net_{nullptr};
  std::shared_ptr<const models::FoldedGoNet> folded_;
  torch::Device device_;
  int history_;
  bool channels_last_;
  int64_t evaluated_ = 0;
};

// The input planes of `positions` as a [B, planes, N, N] float tensor on `device`.
torch::Tensor GoFeatures(const std::vector<const go::Position*>& positions, int history,
                         const torch::Device& device);

}  // namespace trainbench::workloads

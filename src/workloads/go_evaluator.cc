#include "workloads/go_evaluator.h"

#include <tuple>

#include "core/error.h"
#include "go/features.h"

namespace trainbench::workloads {

torch::Tensor GoFeatures(const std::vector<const go::Position*>& positions, int history,
                         const torch::Device& device) {
  TB_CHECK(!positions.empty(), "GoFeatures of no positions");
  const int n = positions[0]->board.size();
  const int64_t per = static_cast<int64_t>(go::FeaturePlanes(history)) * n * n;
  torch::Tensor t =
      torch::empty({static_cast<int64_t>(positions.size()), go::FeaturePlanes(history), n, n});
  float* out = t.data_ptr<float>();
  for (size_t k = 0; k < positions.size(); ++k)
    go::WriteFeatures(*positions[k], history, out + k * per);
  return device.is_cpu() ? t : t.to(device);
}

GoNetEvaluator::GoNetEvaluator(models::GoNet net, torch::Device device, int history,
                               bool channels_last)
    : net_(std::move(net)), device_(device), history_(history), channels_last_(channels_last) {}

GoNetEvaluator::GoNetEvaluator(std::shared_ptr<const models::FoldedGoNet> folded,
                               torch::Device device, int history, bool channels_last)
    : folded_(std::move(folded)),
      device_(device),
      history_(history),
      channels_last_(channels_last) {}

void GoNetEvaluator::Evaluate(const std::vector<const go::Position*>& positions,
                              std::vector<go::Evaluation>* out) {
  out->clear();
  if (positions.empty()) return;
  torch::NoGradGuard no_grad;
  torch::Tensor x = GoFeatures(positions, history_, device_);
  if (channels_last_) x = x.contiguous(torch::MemoryFormat::ChannelsLast);
  torch::Tensor logits, value;
  if (folded_) {
    std::tie(logits, value) = folded_->forward(x);
  } else {
    // Toggled only when needed: concurrent self-play threads share a network already in eval mode.
    const bool was_training = net_->is_training();
    if (was_training) net_->eval();
    std::tie(logits, value) = net_->forward(x);
    if (was_training) net_->train();
  }
  // fp32 whatever the autocast dtype (for fp32, to() returns the tensor itself).
  torch::Tensor priors = torch::softmax(logits.to(torch::kFloat32), 1).to(torch::kCPU).contiguous();
  torch::Tensor values = value.to(torch::kFloat32).to(torch::kCPU).contiguous();
  const int64_t moves = priors.size(1);
  const float* p = priors.data_ptr<float>();
  const float* v = values.data_ptr<float>();
  out->resize(positions.size());
  for (size_t k = 0; k < positions.size(); ++k) {
    (*out)[k].priors.assign(p + k * moves, p + (k + 1) * moves);
    (*out)[k].value = v[k];
  }
  evaluated_ += static_cast<int64_t>(positions.size());
}

}  // namespace trainbench::workloads

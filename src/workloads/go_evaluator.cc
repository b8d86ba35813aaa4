#include "workloads/go_evaluator.h"

#include "core/error.h"
#include "go/features.h"

namespace trainbench::workloads {

torch::Tensor GoFeatures(const std::vector<const go::Position*>& positions, int history, const torch::Device& device) {
  TB_CHECK(!positions.empty(), "GoFeatures of no positions");
  const int n = positions[0]->board.size();
  const int64_t per = static_cast<int64_t>(go::FeaturePlanes(history)) * n * n;
  torch::Tensor t = torch::empty({static_cast<int64_t>(positions.size()), go::FeaturePlanes(history), n, n});
  float* out = t.data_ptr<float>();
  for (size_t k = 0; k < positions.size(); ++k) go::WriteFeatures(*positions[k], history, out + k * per);
  return device.is_cpu() ? t : t.to(device);
}

GoNetEvaluator::GoNetEvaluator(models::GoNet net, torch::Device device, int history)
    : net_(std::move(net)), device_(device), history_(history) {}

void GoNetEvaluator::Evaluate(const std::vector<const go::Position*>& positions, std::vector<go::Evaluation>* out) {
  out->clear();
  if (positions.empty()) return;
  torch::NoGradGuard no_grad;
  // Toggled only when needed: concurrent self-play threads share a network already in eval mode.
  const bool was_training = net_->is_training();
  if (was_training) net_->eval();
  auto [logits, value] = net_->forward(GoFeatures(positions, history_, device_));
  if (was_training) net_->train();
  torch::Tensor priors = torch::softmax(logits, 1).to(torch::kCPU).contiguous();
  torch::Tensor values = value.to(torch::kCPU).contiguous();
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

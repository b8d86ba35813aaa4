#include "training/data_parallel.h"

#include "core/error.h"

namespace trainbench::training {

std::shared_ptr<dist::ProcessGroup> RunGroup(const train::RunContext& ctx) {
  if (ctx.group) return ctx.group;
  TB_CHECK(ctx.world_size == 1, "a run with world size > 1 has no process group");
  return dist::MakeLocalGroup();
}

std::unique_ptr<dist::GradientReducer> MakeDataParallel(
    const std::shared_ptr<dist::ProcessGroup>& group, torch::nn::Module& model,
    std::vector<torch::Tensor> sparse) {
  if (group->size() == 1) return nullptr;
  dist::BroadcastModuleState(*group, model, 0);
  return std::make_unique<dist::GradientReducer>(group, model.parameters(), std::move(sparse));
}

void SyncForEvaluation(dist::ProcessGroup& group, torch::nn::Module& model) {
  if (group.size() == 1) return;
  dist::CheckReplicasIdentical(group, model.parameters(), "model parameter");
  dist::BroadcastTensors(group, model.buffers(), 0);
}

}  // namespace trainbench::training

// Data-parallel plumbing of a workload: its process group, the model's replication and gradient
// reducer, and the check before a sharded evaluation (docs/data_parallel.md).
#pragma once

#include <torch/torch.h>

#include <memory>
#include <vector>

#include "dist/gradient_reducer.h"
#include "dist/process_group.h"
#include "train/workload.h"

namespace trainbench::training {

// The run's data-parallel group: ctx.group, or the local group for one process.
std::shared_ptr<dist::ProcessGroup> RunGroup(const train::RunContext& ctx);

// Data-parallel set-up of a freshly built model: rank 0's parameters and buffers go to every
// rank, and for world size > 1 a GradientReducer over its parameters (`sparse`: the ones with
// sparse gradients) is returned; null for one process.
std::unique_ptr<dist::GradientReducer> MakeDataParallel(
    const std::shared_ptr<dist::ProcessGroup>& group, torch::nn::Module& model,
    std::vector<torch::Tensor> sparse = {});

// Before a data-parallel evaluation: throws core::Error if the ranks' parameters differ (they
// must be identical after every step), then gives every rank rank 0's buffers (BatchNorm's
// running statistics are per rank during training, as MLPerf's model_bn_span says).
void SyncForEvaluation(dist::ProcessGroup& group, torch::nn::Module& model);

}  // namespace trainbench::training

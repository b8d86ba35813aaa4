// A workload's report of one optimizer step to the harness (train::TrainControl), with the
// divergence check on the loss.
#pragma once

#include <torch/torch.h>

#include <cstdint>

#include "train/workload.h"

namespace trainbench::training {

// After an optimizer step (the run's `step`-th): reads the loss only every `every` steps
// (reading it synchronises a GPU), throws core::Error("training diverged: ...") when that value
// is infinite or NaN, and returns control.OnStep(samples, loss) with NaN for an unread loss.
bool ReportStep(train::TrainControl& control, const torch::Tensor& loss, int64_t step,
                int64_t every, int64_t samples);

}  // namespace trainbench::training

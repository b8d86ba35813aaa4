// Learning-rate schedules of the reference recipes, as pure functions of the step.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace trainbench::training {

// MLPerf ResNet schedule: linear warmup from base_lr / warmup_steps to base_lr over
// `warmup_steps`, then polynomial decay  end + (base - end) * (1 - t / decay_steps)^power  over
// `decay_steps` steps (t counted after warmup), then end_lr.
struct PolyWarmupSchedule {
  double base_lr = 0.1;
  double end_lr = 1e-4;
  double power = 2.0;
  int64_t warmup_steps = 0;
  int64_t decay_steps = 1;

  double operator()(int64_t step) const {  // step: 0-based optimizer step
    if (step < warmup_steps) return base_lr * static_cast<double>(step + 1) / warmup_steps;
    double t = static_cast<double>(std::min(step - warmup_steps, decay_steps));
    double frac = 1.0 - t / static_cast<double>(std::max<int64_t>(decay_steps, 1));
    return end_lr + (base_lr - end_lr) * std::pow(frac, power);
  }
};

}  // namespace trainbench::training

#include "training/step_report.h"

#include <cmath>
#include <string>

#include "core/error.h"

namespace trainbench::training {

bool ReportStep(train::TrainControl& control, const torch::Tensor& loss, int64_t step,
                int64_t every, int64_t samples) {
  const bool read = every > 0 && step % every == 0;
  const double value = read ? loss.item<double>() : NAN;
  if (read && !std::isfinite(value)) {
    throw core::Error("training diverged: loss is " + std::to_string(value) + " at step " +
                      std::to_string(step));
  }
  return control.OnStep(samples, value);
}

}  // namespace trainbench::training

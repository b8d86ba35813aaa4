// What the report shows of one run beyond its summary numbers, read from its parsed log: the
// evaluation curve and the training throughput over wall-clock time since run_start, the
// quality target the run aimed at, the configuration (requested and effective) and the build
// and machine provenance, whose git revision the results history files the run under.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/json.h"
#include "core/log_reader.h"

namespace trainbench::report {

// One sample of a curve.
struct CurvePoint {
  double minutes = 0;  // since the run's first run_start
  double value = 0;
  std::optional<double> epoch;  // epoch_num (MLLOG) or "epoch" (v0.5) when logged
};

struct RunDetails {
  // eval_accuracy values, in log order, as fractions: Mask R-CNN's {"BBOX", "SEGM"} as BBOX,
  // BLEU logged in 0-100 (trainbench's older logs, MLPerf v0.5) / 100 (core/eval_accuracy.h).
  std::vector<CurvePoint> eval;
  std::vector<CurvePoint> throughput;  // tracked_stats "throughput", samples/s, per epoch
  // trainbench_quality_target (MLLOG) or v0.5 eval_target, on the scale of `eval`.
  std::optional<double> quality_target;
  std::string metric = "eval_accuracy";  // the target's metadata.metric when logged
  core::Json config_requested;           // null when not logged
  core::Json config_effective;           // null when not logged
  core::Json provenance;                 // null when not logged
  std::string git_revision;              // provenance.git_revision; "" when not logged
};

// Extracts the details of `log`. Events before run_start (or in a log without run_start) are
// timed from the first record. Evaluations without a number are left out of the curve.
// Never throws: what is missing stays empty.
RunDetails ExtractRunDetails(const core::ParsedLog& log);

}  // namespace trainbench::report

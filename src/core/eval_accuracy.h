// Reading eval_accuracy values back as one number, from any log trainbench reads: its own logs
// old and new, and MLPerf's (MLLOG and the legacy v0.5 lines). Since MLLOG v0.7 the value is a
// fraction (BLEU 25.0 is logged as 0.25) and Mask R-CNN logs an object {"BBOX": box mAP,
// "SEGM": mask mAP}; trainbench logs before that change, and MLPerf v0.5's, log BLEU in 0-100.
// Readers that plot, compare or print one number per evaluation use these two functions, so
// that old and new logs land on one scale.
#pragma once

#include <optional>
#include <string>

#include "core/json.h"
#include "core/log_reader.h"
#include "core/mllog_keys.h"

namespace trainbench::core {

// Header-only: readers of every layer use it without a link dependency.
namespace eval_accuracy_internal {

inline bool IsBleuBenchmark(const std::string& log_name) {
  return log_name == "gnmt" || log_name == "transformer";
}

}  // namespace eval_accuracy_internal

// The primary number of one logged eval_accuracy value: a number as it is; an object's "BBOX"
// (Mask R-CNN); an object's "value" (the v0.5 lines' {"epoch": e, "value": v}); nullopt for
// anything else.
inline std::optional<double> PrimaryAccuracy(const Json& value) {
  if (value.is_number()) return value.get<double>();
  if (auto b = NumberField(value, keys::kEvalBbox)) return b;
  return NumberField(value, keys::kLegacyValueField);
}

// What a log's evaluation values and quality target must be multiplied by to be fractions:
// 0.01 for a translation log (gnmt or transformer, by submission_benchmark or the v0.5 lines'
// benchmark) that logs BLEU in 0-100 - its quality target (trainbench_quality_target, v0.5
// eval_target) is above 1, or without a target one of its evaluations is; 1 otherwise. Decided
// per log, not per value: an old log's BLEU of 0.8 in its first epoch is 0.008.
inline double AccuracyUnit(const ParsedLog& log) {
  std::string name;
  if (const LogRecord* b = log.Find(keys::kSubmissionBenchmark); b && b->value.is_string()) {
    name = b->value.get<std::string>();
  } else if (!log.records.empty()) {
    name = log.records.front().benchmark;  // v0.5 lines name it on every line
  }
  if (!eval_accuracy_internal::IsBleuBenchmark(name)) return 1.0;
  for (const char* key : {keys::kTrainbenchQualityTarget, keys::kLegacyEvalTarget}) {
    if (const LogRecord* t = log.Find(key); t && t->value.is_number()) {
      return t->value.get<double>() > 1.0 ? 0.01 : 1.0;
    }
  }
  for (const LogRecord* r : log.FindAll(keys::kEvalAccuracy)) {
    if (auto v = PrimaryAccuracy(r->value); v && *v > 1.0) return 0.01;
  }
  return 1.0;
}

}  // namespace trainbench::core

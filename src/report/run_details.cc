#include "report/run_details.h"

#include "core/eval_accuracy.h"
#include "core/mllog_keys.h"

namespace trainbench::report {

namespace {

namespace keys = core::keys;

constexpr const char* kThroughputField = "throughput";
constexpr const char* kMetricField = "metric";
constexpr const char* kGitRevisionField = "git_revision";

std::optional<double> Number(const core::Json& j) {
  if (j.is_number()) return j.get<double>();
  return std::nullopt;
}

using core::NumberField;

}  // namespace

RunDetails ExtractRunDetails(const core::ParsedLog& log) {
  RunDetails d;
  if (log.records.empty()) return d;
  const core::LogRecord* start = log.Find(keys::kRunStart);
  const double t0 = start ? start->time_ms : log.records.front().time_ms;
  const bool legacy = log.format == core::LogFormat::kLegacyV05;
  auto minutes = [&](const core::LogRecord& r) { return (r.time_ms - t0) / 60000.0; };
  // Values and target as fractions, whatever the log's age (core/eval_accuracy.h).
  const double unit = core::AccuracyUnit(log);

  for (const auto& r : log.records) {
    if (r.key == keys::kEvalAccuracy) {
      CurvePoint p;
      p.minutes = minutes(r);
      // One number per evaluation: Mask R-CNN's {"BBOX", "SEGM"} gives BBOX, v0.5's
      // {"epoch", "value"} its value; BLEU of a 0-100 log becomes a fraction (unit, below).
      std::optional<double> v = core::PrimaryAccuracy(r.value);
      p.epoch = legacy && r.value.is_object() ? NumberField(r.value, keys::kLegacyEpochField)
                                              : NumberField(r.metadata, keys::kMdEpochNum);
      if (!v) continue;
      p.value = *v * unit;
      d.eval.push_back(p);
    } else if (r.key == keys::kTrackedStats) {
      auto v = NumberField(r.value, kThroughputField);
      if (!v) continue;
      d.throughput.push_back({minutes(r), *v, NumberField(r.metadata, keys::kMdEpochNum)});
    } else if (r.key == keys::kTrainbenchQualityTarget) {
      d.quality_target = Number(r.value);
      if (d.quality_target) *d.quality_target *= unit;
      if (r.metadata.is_object() && r.metadata.contains(kMetricField) &&
          r.metadata[kMetricField].is_string()) {
        d.metric = r.metadata[kMetricField].get<std::string>();
      }
    } else if (legacy && r.key == keys::kLegacyEvalTarget && !d.quality_target) {
      d.quality_target = Number(r.value);
      if (d.quality_target) *d.quality_target *= unit;
    } else if (r.key == keys::kTrainbenchConfigRequested) {
      d.config_requested = r.value;
    } else if (r.key == keys::kTrainbenchConfigEffective) {
      d.config_effective = r.value;
    } else if (r.key == keys::kTrainbenchProvenance) {
      d.provenance = r.value;
      if (r.value.is_object() && r.value.contains(kGitRevisionField) &&
          r.value[kGitRevisionField].is_string()) {
        d.git_revision = r.value[kGitRevisionField].get<std::string>();
      }
    }
  }
  return d;
}

}  // namespace trainbench::report

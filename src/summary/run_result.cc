#include "summary/run_result.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "core/mllog_keys.h"

namespace trainbench::summary {

namespace {

namespace keys = core::keys;

// Keys of the legacy v0.5 format (mlperf_compliance 0.0.10 `mlperf_log` tags).
constexpr const char* kLegacySeed = "run_set_random_seed";
constexpr const char* kLegacyTrainEpoch = "train_epoch";
constexpr const char* kLegacySuccessField = "success";
using keys::kLegacyEpochField;
using keys::kLegacyEvalTarget;
using keys::kLegacyValueField;

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

using core::NumberField;

std::string StringValue(const core::LogRecord* r) {
  if (!r || !r->value.is_string()) return "";
  return r->value.get<std::string>();
}

// v0.5 run_stop: {"success": true}; some submissions logged {"success": "true"}; a value the
// reader kept as text (a Python literal such as {'success': True}) is searched for the word.
// Returns nullopt when run_stop carries no success value at all (NVIDIA's v0.5 resnet and
// transformer logs end with a bare `run_stop`): the caller then judges the run by its evaluations.
std::optional<bool> LegacySuccess(const core::Json& v) {
  if (v.is_object()) {
    auto it = v.find(kLegacySuccessField);
    if (it == v.end()) return std::nullopt;
    if (it->is_boolean()) return it->get<bool>();
    if (it->is_string()) return Lower(it->get<std::string>()) == "true";
    return false;
  }
  if (v.is_string()) {
    std::string s = Lower(v.get<std::string>());
    size_t at = s.find(kLegacySuccessField);
    if (at == std::string::npos) return std::nullopt;
    size_t colon = s.find(':', at);
    if (colon == std::string::npos) return false;
    size_t val = s.find_first_not_of(" '\"", colon + 1);
    return val != std::string::npos && s.compare(val, 4, "true") == 0;
  }
  return std::nullopt;
}

// The quality an eval_accuracy line reports: its "value" field ({"epoch": 3, "value": 0.73}, or
// Mask R-CNN's {"epoch": 3, "value": {"BBOX": 0.38, "SEGM": 0.35}}), else the value itself (a bare
// number).
const core::Json& LegacyQuality(const core::Json& v) {
  if (v.is_object()) {
    auto it = v.find(kLegacyValueField);
    if (it != v.end()) return *it;
  }
  return v;
}

// Whether `quality` reaches `target`. Both are numbers in the unit the log uses (a fraction for
// top-1 and mAP, BLEU 0-100 for gnmt and transformer, each with its target in the same unit), or
// both objects (Mask R-CNN's {"BBOX": 0.377, "SEGM": 0.339}), reached when every number in the
// target is reached by the same field of the quality.
bool LegacyReached(const core::Json& quality, const core::Json& target) {
  if (target.is_number()) {
    return quality.is_number() && quality.get<double>() >= target.get<double>();
  }
  if (!target.is_object() || target.empty() || !quality.is_object()) return false;
  for (auto it = target.begin(); it != target.end(); ++it) {
    if (!it.value().is_number()) return false;
    auto q = quality.find(it.key());
    if (q == quality.end() || !q->is_number() || q->get<double>() < it.value().get<double>()) {
      return false;
    }
  }
  return true;
}

// v0.5's judgement of a run whose run_stop has no success value: the official v0.5 submission
// checker (mlperf/training v0.5, compliance/verify_submission/mlperf_submission_helper/checks.py,
// with bitfort/mlp_compliance's get_model_accuracy) counted a run as a success when the best
// eval_accuracy "value" in the log was >= the log's eval_target, which had to be a single value
// (logged once or repeated identically). Here: the same, also reading bare-number accuracies and
// object-valued targets; no eval_target, or several different ones, is not a success.
bool LegacyReachedTarget(const core::ParsedLog& log) {
  auto targets = log.FindAll(kLegacyEvalTarget);
  if (targets.empty()) return false;
  const core::Json& target = targets.front()->value;
  for (const auto* t : targets) {
    if (t->value != target) return false;
  }
  for (const auto* e : log.FindAll(keys::kEvalAccuracy)) {
    if (LegacyReached(LegacyQuality(e->value), target)) return true;
  }
  return false;
}

std::string MissingReason(const core::ParsedLog& log, const char* key) {
  std::string msg = std::string("no ") + key + " event";
  if (!log.errors.empty()) {
    msg += " (line " + std::to_string(log.errors.front().line_no) +
           " is malformed: " + log.errors.front().message + ")";
  }
  return msg;
}

void ExtractMllog(const core::ParsedLog& log, RunResult* run) {
  const core::LogRecord* stop = log.FindAll(keys::kRunStop).back();
  if (stop->metadata.contains(keys::kMdStatus) && stop->metadata[keys::kMdStatus].is_string()) {
    run->status = stop->metadata[keys::kMdStatus].get<std::string>();
  }
  run->converged = run->status == keys::kStatusSuccess;
  run->log_name = StringValue(log.Find(keys::kSubmissionBenchmark));
  run->trainbench_benchmark = StringValue(log.Find(keys::kTrainbenchBenchmark));
  run->scale = StringValue(log.Find(keys::kTrainbenchScale));
  run->division = StringValue(log.Find(keys::kSubmissionDivision));
  run->org = StringValue(log.Find(keys::kSubmissionOrg));
  if (const auto* seed = log.Find(keys::kSeed)) run->seed = seed->value;

  auto evals = log.FindAll(keys::kEvalAccuracy);
  if (!evals.empty()) run->final_accuracy = evals.back()->value;
  for (auto it = evals.rbegin(); it != evals.rend() && !run->epochs; ++it) {
    run->epochs = NumberField((*it)->metadata, keys::kMdEpochNum);
  }
  if (!run->epochs) {
    auto epochs = log.FindAll(keys::kEpochStop);
    if (!epochs.empty()) run->epochs = NumberField(epochs.back()->metadata, keys::kMdEpochNum);
  }
  if (!run->epochs) {
    // block_stop may carry only first_epoch_num; epoch_count then comes from its block_start.
    for (const char* key : {keys::kBlockStop, keys::kBlockStart}) {
      auto blocks = log.FindAll(key);
      if (blocks.empty()) continue;
      auto first = NumberField(blocks.back()->metadata, keys::kMdFirstEpochNum);
      if (!first) continue;
      auto count = NumberField(blocks.back()->metadata, keys::kMdEpochCount);
      if (!count) {
        for (const auto* b : log.FindAll(keys::kBlockStart)) {
          if (NumberField(b->metadata, keys::kMdFirstEpochNum) == first) {
            count = NumberField(b->metadata, keys::kMdEpochCount);
          }
        }
      }
      run->epochs = *first + (count ? *count - 1 : 0);
      break;
    }
  }
}

void ExtractLegacy(const core::ParsedLog& log, const core::LogRecord* start, RunResult* run) {
  const core::LogRecord* stop = log.FindAll(keys::kRunStop).back();
  // An explicit success flag wins; without one, the run converged when an evaluation reached the
  // logged target, as v0.5's checker judged it.
  std::optional<bool> success = LegacySuccess(stop->value);
  run->converged = success ? *success : LegacyReachedTarget(log);
  run->status = run->converged ? keys::kStatusSuccess : keys::kStatusAborted;
  run->log_name = start->benchmark;
  if (const auto* seed = log.Find(kLegacySeed)) run->seed = seed->value;
  auto evals = log.FindAll(keys::kEvalAccuracy);
  if (!evals.empty()) run->final_accuracy = LegacyQuality(evals.back()->value);
  for (auto it = evals.rbegin(); it != evals.rend() && !run->epochs; ++it) {
    run->epochs = NumberField((*it)->value, kLegacyEpochField);
  }
  if (!run->epochs) {
    auto epochs = log.FindAll(kLegacyTrainEpoch);
    for (auto it = epochs.rbegin(); it != epochs.rend() && !run->epochs; ++it) {
      if ((*it)->value.is_number()) run->epochs = (*it)->value.get<double>();
    }
  }
}

}  // namespace

std::string FileIssue::ToString() const {
  std::string s = path;
  if (line > 0) s += ":" + std::to_string(line);
  return s + ": " + message;
}

std::optional<RunResult> ExtractRun(const core::ParsedLog& log, FileIssue* skip,
                                    std::vector<FileIssue>* warnings) {
  auto fail = [&](int line, const std::string& msg) -> std::optional<RunResult> {
    *skip = FileIssue{log.path, line, msg};
    return std::nullopt;
  };
  if (log.records.empty()) {
    if (!log.errors.empty()) {
      return fail(log.errors.front().line_no,
                  "no usable log line (malformed: " + log.errors.front().message + ")");
    }
    return fail(0, "no :::MLLOG or :::MLPv0.5.0 lines");
  }
  auto starts = log.FindAll(keys::kRunStart);
  auto stops = log.FindAll(keys::kRunStop);
  if (starts.empty()) return fail(0, MissingReason(log, keys::kRunStart));
  if (stops.empty()) return fail(0, MissingReason(log, keys::kRunStop));
  const core::LogRecord* start = starts.front();
  const core::LogRecord* stop = stops.back();
  // A time the log reader accepts is finite, but their difference may not be (1.7e308 minus
  // -1.7e308): an infinite or NaN run time would be scored (NaN also hangs rank tests).
  const double minutes = (stop->time_ms - start->time_ms) / 60000.0;
  if (!std::isfinite(start->time_ms) || !std::isfinite(stop->time_ms) || !std::isfinite(minutes)) {
    return fail(stop->line_no, "the run time is not a finite number (run_start time_ms " +
                                   core::PythonFloatRepr(start->time_ms) + " at line " +
                                   std::to_string(start->line_no) + ", run_stop time_ms " +
                                   core::PythonFloatRepr(stop->time_ms) + ")");
  }
  if (stop->time_ms < start->time_ms) {
    return fail(stop->line_no,
                "run_stop is earlier than run_start (line " + std::to_string(start->line_no) + ")");
  }

  RunResult run;
  run.path = log.path;
  run.format = log.format;
  run.start_ms = start->time_ms;
  run.stop_ms = stop->time_ms;
  run.minutes = minutes;
  if (log.format == core::LogFormat::kLegacyV05) {
    ExtractLegacy(log, start, &run);
  } else {
    ExtractMllog(log, &run);
  }
  if (run.epochs && !std::isfinite(*run.epochs)) {
    // 1e308 + 1e308 epochs (first_epoch_num + epoch_count): no number to average or print.
    run.epochs.reset();
    if (warnings) warnings->push_back({log.path, 0, "the epoch count is not finite; ignored"});
  }

  if (warnings) {
    // One warning per file: a published log can hold many odd lines.
    if (!log.errors.empty()) {
      const auto& e = log.errors.front();
      std::string msg = "malformed line ignored: " + e.message;
      if (log.errors.size() > 1) {
        msg += " (and " + std::to_string(log.errors.size() - 1) + " more malformed lines)";
      }
      warnings->push_back({log.path, e.line_no, msg});
    }
    // A run that shared the machine (trainbench_cpu_share) may be slow for reasons outside the
    // system under test.
    if (const auto* share = log.Find(core::keys::kTrainbenchCpuShare)) {
      const std::optional<double> other = NumberField(share->value, "other");
      if (other && !(*other >= 0 && *other <= 1)) {
        // A share outside [0, 1] (or NaN) is no share: printing it as a percentage made
        // "-2147483648%" of an int cast.
        warnings->push_back({log.path, share->line_no,
                             "trainbench_cpu_share.other is " + core::PythonFloatRepr(*other) +
                                 ", not a share between 0 and 1; ignored"});
      } else if (other && *other > kBusyMachineShare) {
        warnings->push_back({log.path, share->line_no,
                             "other processes used " +
                                 std::to_string(static_cast<int>(std::lround(*other * 100))) +
                                 "% of the machine's CPU during this run (trainbench_cpu_share): "
                                 "its time may not be representative"});
      }
    }
    if (!log.other_format_lines.empty()) {
      const auto& o = log.other_format_lines.front();
      std::string msg = "line ignored: " + o.message;
      if (log.other_format_lines.size() > 1) {
        msg += " (and " + std::to_string(log.other_format_lines.size() - 1) + " more)";
      }
      warnings->push_back({log.path, o.line_no, msg});
    }
    // Identical duplicates (several ranks logging) are expected in v0.5 logs; distinct times are
    // worth a word.
    for (size_t i = 1; i < starts.size(); ++i) {
      if (starts[i]->time_ms != start->time_ms) {
        warnings->push_back({log.path, starts[i]->line_no,
                             std::to_string(starts.size()) +
                                 " run_start events; the time counts from the first (line " +
                                 std::to_string(start->line_no) + ")"});
        break;
      }
    }
  }
  return run;
}

core::Json FileIssuesToJson(const std::vector<FileIssue>& issues) {
  core::Json a = core::Json::array();
  for (const auto& i : issues) {
    core::Json j = core::Json::object();
    j["file"] = i.path;
    j["line"] = i.line > 0 ? core::Json(i.line) : core::Json(nullptr);
    j["reason"] = i.message;
    a.push_back(j);
  }
  return a;
}

}  // namespace trainbench::summary

// One timed run as the summarizer sees it, extracted from a parsed result log (MLLOG or the
// legacy MLPerf v0.5 format): its time (run_start .. run_stop), whether it converged, epochs to
// converge, seed, final accuracy and the benchmark identity the log carries. Also the record of
// a file that could not be used (skipped) or was used with a caveat (warning).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/json.h"
#include "core/log_reader.h"

namespace trainbench::summary {

struct RunResult {
  std::string path;  // the log file, as found under the scanned directory
  core::LogFormat format = core::LogFormat::kUnknown;

  // Identity. From the log: `log_name` is submission_benchmark (MLLOG) or the benchmark named on
  // the legacy lines; `trainbench_benchmark` and `scale` are trainbench's own keys (empty when
  // absent). From the folder layout (set by ScanResults): `system` and `benchmark_folder`.
  std::string log_name;
  std::string trainbench_benchmark;
  std::string scale;
  std::string system;
  std::string benchmark_folder;
  std::string division;  // submission_division, or the system's entry.json; "" when unknown
  std::string org;       // submission_org when logged

  // Timing: ms since the Unix epoch (fractional for legacy logs).
  double start_ms = 0;  // the first run_start
  double stop_ms = 0;   // the last run_stop
  double minutes = 0;   // (stop_ms - start_ms) / 60000

  bool converged = false;        // run_stop says success (legacy: or the target was reached)
  std::string status;            // "success", "aborted", ... as logged ("" when absent)
  std::optional<double> epochs;  // epoch number at convergence, as logged (see ExtractRun)
  core::Json seed;               // null when not logged
  core::Json final_accuracy;     // value of the last eval_accuracy; null when none
};

// A file that was skipped, or a caveat about one that was used.
struct FileIssue {
  std::string path;
  int line = 0;  // 0: not about one line
  std::string message;

  // "<path>:<line>: <message>" (no ":<line>" when line is 0).
  std::string ToString() const;
};

// [{"file": path, "line": n or null, "reason": message}, ...] for the JSON reporters.
core::Json FileIssuesToJson(const std::vector<FileIssue>& issues);

// Extracts the run from a parsed log. Returns nullopt and fills *skip when the log has no
// usable run: no log lines, no run_start or no run_stop, or run_stop before run_start (the
// first malformed line, if any, is named as the likely cause). Caveats on a usable run are
// appended to *warnings: malformed lines elsewhere (one warning per file, at the first such
// line, counting the others), run_start events with different times, and a run during which
// other processes used more than kBusyMachineShare of the machine's CPU.
//
// Rules: time = last run_stop - first run_start (duplicated lines from several ranks widen,
// never shorten, the interval). Converged: MLLOG run_stop metadata.status == "success";
// legacy run_stop value {"success": true} (also the string "true", any case, as some v0.5
// submissions logged it); a legacy run_stop with no success value (NVIDIA's v0.5 resnet and
// transformer) is judged as v0.5's checker did: converged when the best eval_accuracy (its
// "value", or a bare number) reached the log's one eval_target, in the log's own unit; an object
// target (Mask R-CNN's {"BBOX": .., "SEGM": ..}) needs every field reached in one evaluation.
// Epochs: MLLOG epoch_num of the last eval_accuracy, else of the last
// epoch_stop, else the last epoch of the last block (first_epoch_num + epoch_count - 1); legacy
// the "epoch" of the last eval_accuracy, else the value of the last train_epoch. Seed: MLLOG
// `seed`, legacy `run_set_random_seed`. Final accuracy: the last eval_accuracy value (legacy:
// its "value" field).
// Above this share of the machine's CPU taken by other processes during a run
// (trainbench_cpu_share.other), ExtractRun warns that the run's time may not be representative.
inline constexpr double kBusyMachineShare = 0.10;

std::optional<RunResult> ExtractRun(const core::ParsedLog& log, FileIssue* skip,
                                    std::vector<FileIssue>* warnings);

}  // namespace trainbench::summary

// What the RCP test reads from one result log, read as mlperf_logging's rcp_checker reads it
// (read_submission_file, commit 7bbf792): only lines holding ":::MLLOG " count, from the last
// marker on; a line *containing* "global_batch_size" sets the batch size and one containing
// "submission_benchmark" the benchmark (the substring, not the key, as the official reader
// tests); the epochs to converge are the epoch_num (rounded to 3 decimals) of the last line
// containing "eval_accuracy" or "eval_error" before a run_stop with status success; bert with
// bert_train_samples reads train_samples' value, the LLM benchmarks (llama2_70b_lora, flux1,
// llama31_*, gpt_oss_20b, deepseekv3_671b, qwen35_397b_grpo) metadata.samples_count, and
// stable_diffusion the first eval step with FID <= 90 and CLIP >= 0.15. A run whose last
// run_stop is not a success (or that has none) has not converged: 1e9 epochs.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/json.h"

namespace trainbench::rcp {

struct LogConvergence {
  std::string path;
  bool converged = false;
  double epochs = 0;                     // epochs (or samples) to converge; 1e9 when not converged
  core::Json bs = -1;                    // the logged global_batch_size value; -1 when absent
  std::optional<std::string> benchmark;  // submission_benchmark, when logged
  // trainbench's additions, from the parsed keys (not used by the test itself):
  std::string trainbench_benchmark;  // trainbench_benchmark, e.g. "image_classification"
  std::string trainbench_scale;      // trainbench_scale, e.g. "mini"
  std::string platform;              // submission_platform
  double samples = 0;  // samples trained to converge: the samples_count of the epoch_stop lines
                       // up to the converging epoch (0 when the log has none)
  core::Json hyperparams = core::Json::object();  // opt_name as "optimizer", then the opt_* keys
};

struct ReadOptions {
  std::string ruleset = "6.0.0";
  bool bert_train_samples = false;
};

// Reads a log's text; `path` names it in errors. Throws core::Error (file and line) where the
// official reader would stop with an exception: a marked line that is not JSON, a batch-size or
// eval line without the value the reader takes, a successful run_stop before any eval.
LogConvergence ReadConvergence(const std::string& text, const std::string& path,
                               const ReadOptions& o = {});
LogConvergence ReadConvergenceFile(const std::string& path, const ReadOptions& o = {});

// Python's round(x, 3) for a double.
double Round3(double x);

}  // namespace trainbench::rcp

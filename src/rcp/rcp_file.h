// RCP files: the JSON layout of mlperf_logging's rcp_checker/training_*/rcps_<benchmark>.json,
// so the official checker reads trainbench's files as they are (--custom_rcps):
//
//   { "<record name>": { "Benchmark": "resnet", "Creator": ..., "When": ..., "Platform": ...,
//                        "BS": 128, "Hyperparams": {...}, "Epochs to converge": [6, 5, ...],
//                        "trainbench": {...} }, ... }
//
// The official checker reads Benchmark, BS, Hyperparams and "Epochs to converge" ("samples to
// converge" for llama2_70b_lora and flux1) and ignores the other fields. trainbench adds, per
// record, "trainbench": the benchmark and scale, the source logs, the samples each run trained
// to converge, and the statistics the checker derives (olympic mean, stdev, the bound), for
// readers; `check --rcp` recomputes them from the epochs. Files live in configs/rcp/, one per
// benchmark and scale: configs/rcp/<benchmark>_<scale>.json.
#pragma once

#include <string>
#include <vector>

#include "core/json.h"
#include "rcp/rcp.h"
#include "rcp/rcp_log.h"

namespace trainbench::rcp {

// Parses an RCP file's text; throws core::Error naming `path` and the record.
std::vector<RcpRecord> ParseRcpJson(const std::string& text, const std::string& path);
std::vector<RcpRecord> LoadRcpFile(const std::string& path);

// Where the RCPs of a trainbench benchmark and scale live: <data root>/configs/rcp/<b>_<s>.json.
std::string RcpDir();
std::string RcpFilePath(const std::string& benchmark, const std::string& scale);

// The submission run count the test assumes for a benchmark: the official table's, else (for
// benchmarks the official checker does not know) the trainbench definition's runs per result
// for the scale. Throws core::Error when neither knows the benchmark.
int SubmissionRuns(const std::string& log_name, const std::string& scale);

// Builds the RCP JSON from reference runs: one record per (log name, batch size), named
// "<log name>_ref_<bs>", in batch-size order. Runs that did not converge are left out (and
// listed in *skipped). Throws core::Error when runs of one batch size disagree on benchmark,
// scale or hyperparameters, or when a batch size has fewer than 3 converged runs (the olympic
// mean needs them). `o.submission_runs` is ignored: each record's statistics use
// SubmissionRuns for its benchmark.
core::Json BuildRcpJson(const std::vector<LogConvergence>& runs, const RcpOptions& o,
                        std::vector<std::string>* skipped = nullptr);

}  // namespace trainbench::rcp

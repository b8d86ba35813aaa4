// The RCP test of one submission set (the result logs of one results folder), as
// mlperf_logging's rcp_checker.check_directory runs it: read each log's epochs to converge and
// batch size, refuse sets whose batch sizes or benchmarks differ, that have no batch size, or
// with more than one run that did not converge (4 for unet3d); then judge the set against the
// benchmark's RCPs (rcp.h). Shared by `check --rcp` and `summarize`.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "rcp/rcp.h"
#include "rcp/rcp_log.h"

namespace trainbench::rcp {

struct SetOptions {
  std::string rcp_file;  // empty: configs/rcp/<trainbench benchmark>_<scale>.json from the logs
  std::string ruleset = "6.0.0";
  bool pruned = true;
  bool bert_train_samples = false;
};

struct SetResult {
  std::vector<LogConvergence> logs;   // in the order given
  std::string benchmark;              // the logs' submission_benchmark ("" when unknown)
  std::string bs_text;                // the batch size as Python prints it ("-1" when unknown)
  std::string rcp_file;               // the RCP file used ("" when none was found)
  int submission_runs = 0;            // what the t-test assumed
  std::vector<std::string> warnings;  // e.g. RCP records of another benchmark
  Verdict verdict;
};

// Judges the logs as one set. Throws core::Error for input that cannot be judged: a log that
// cannot be read, a malformed RCP file, a benchmark whose submission run count is unknown. A set
// without an RCP file is MISSING ("no RCP data: <file> does not exist").
SetResult CheckSet(const std::vector<std::string>& logs, const SetOptions& o);

}  // namespace trainbench::rcp

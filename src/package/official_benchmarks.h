// What the official MLPerf Training tools (mlcommons/logging's package_checker and
// benchmark_meta.py, checked at commit 7bbf792) expect of trainbench's benchmarks, as data: how
// many result files a result must have, and whether the training 4.0.0 ruleset knows the
// benchmark at all (the package checker skips the others: "Skipping benchmark: ...").
#pragma once

#include <string>

namespace trainbench::package {

// The ruleset the package is laid out for and the official tools are run with.
inline constexpr const char* kOfficialRuleset = "4.0.0";

struct OfficialBenchmark {
  const char* log_name;  // MLLOG submission_benchmark, the results folder's name
  int result_files;      // exactly this many result_*.txt per result (package_checker)
  bool in_training_4_0;  // in benchmark_meta's allowed benchmarks of training 4.0
};

// The entry for `log_name`, or nullptr when the official tools do not know it.
const OfficialBenchmark* FindOfficialBenchmark(const std::string& log_name);

}  // namespace trainbench::package

// `trainbench package RESULTS... --org ORG -o DIR`: writes the MLPerf Training submission tree
// of trainbench results folders (docs/package.md):
//   DIR/ORG/results/<system>/<log name>/result_<i>.txt   the logs, byte for byte
//   DIR/ORG/systems/<system>.json                        the system description
// Nothing is written unless every log passes `trainbench check` (the trainbench ruleset): a
// failing, unreadable or misplaced log is refused, naming the file. DIR must not exist or be
// empty; the tree is built beside it and renamed into place, so DIR appears whole or not at
// all. What the official package checker will still object to (result counts, benchmarks its
// ruleset does not know, logs its closed or open rules reject) is printed as warnings.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "core/paths.h"

namespace trainbench::package {

struct PackageOptions {
  std::vector<std::string> results;        // trainbench results folders (or one system's folder)
  std::string org;                         // submitter, the package's top folder
  std::string output;                      // DIR: must not exist, or be empty
  std::string system;                      // "" : each run's system folder (RESULTS/<system>/...)
  std::string system_json;                 // "" : none; else the fields only a person knows
  std::string ruleset = "trainbench-1.0";  // what each log must pass (`trainbench check`)
  std::string rules_dir = core::RulesDir();
  std::string benchmarks_dir = core::BenchmarksDir();  // definitions: log_name of a benchmark
};

// Exit codes: 0 written (warnings allowed); 2 bad input (nothing written): a missing or empty
// results folder, a log that fails the check or cannot be read, no system name, an existing
// non-empty output, a bad --system-json. Messages go to `err`, the summary of what was written
// to `out`. Throws core::Error only where the CLI's own message is best (none today).
int RunPackageCommand(const PackageOptions& o, std::ostream& out, std::ostream& err);

}  // namespace trainbench::package

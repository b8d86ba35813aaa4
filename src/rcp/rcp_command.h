// `trainbench rcp build RESULTS... [-o FILE]`: builds an RCP file (rcp_file.h) from reference
// runs: every result_*.txt below the given folders (or the given files). The CLI owns the flags;
// this function owns the output and the exit code (0 written, 2 bad input).
#pragma once

#include <iostream>
#include <ostream>
#include <string>
#include <vector>

namespace trainbench::rcp {

struct BuildOptions {
  std::vector<std::string> paths;
  std::string output;  // empty: print the JSON
  std::string ruleset = "6.0.0";
  bool bert_train_samples = false;
};

int RunRcpBuildCommand(const BuildOptions& o, std::ostream& out = std::cout,
                       std::ostream& err = std::cerr);

// Every result_*.txt below `dir` (any depth; ".part" files excluded), sorted. Throws core::Error
// when `dir` cannot be read.
std::vector<std::string> FindResultLogs(const std::string& dir);

}  // namespace trainbench::rcp

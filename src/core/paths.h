// Where trainbench finds its versioned data (configs/benchmarks, rules): the directory named
// by $TRAINBENCH_DATA_DIR, else the source tree the binary was built from.
#pragma once

#include <string>

namespace trainbench::core {

std::string DataRoot();
std::string BenchmarksDir();  // <root>/configs/benchmarks
std::string RulesDir();       // <root>/rules

}  // namespace trainbench::core

#include "core/paths.h"

#include <cstdlib>

namespace trainbench::core {

std::string DataRoot() {
  const char* env = std::getenv("TRAINBENCH_DATA_DIR");
  if (env && *env) return env;
  return TRAINBENCH_SOURCE_DATA_DIR;
}

std::string BenchmarksDir() { return DataRoot() + "/configs/benchmarks"; }
std::string RulesDir() { return DataRoot() + "/rules"; }

}  // namespace trainbench::core

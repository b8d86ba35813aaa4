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

std::string UserDataDir() {
  const char* xdg = std::getenv("XDG_DATA_HOME");
  if (xdg && *xdg) return std::string(xdg) + "/trainbench";
  const char* home = std::getenv("HOME");
  if (home && *home) return std::string(home) + "/.local/share/trainbench";
  return ".trainbench";
}

std::string ExpandDataPath(const std::string& path) {
  const std::string token = "{user_data}";
  if (path.compare(0, token.size(), token) == 0) return UserDataDir() + path.substr(token.size());
  if (path.compare(0, 2, "~/") == 0) {
    const char* home = std::getenv("HOME");
    if (home && *home) return std::string(home) + path.substr(1);
  }
  return path;
}

}  // namespace trainbench::core

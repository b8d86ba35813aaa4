// Where trainbench finds its versioned data (configs/benchmarks, rules): the directory named
// by $TRAINBENCH_DATA_DIR, else the source tree the binary was built from.
#pragma once

#include <string>

namespace trainbench::core {

std::string DataRoot();
std::string BenchmarksDir();  // <root>/configs/benchmarks
std::string RulesDir();       // <root>/rules

// The user's data folder for trainbench: $XDG_DATA_HOME/trainbench, else
// $HOME/.local/share/trainbench, else ./.trainbench (no home).
std::string UserDataDir();
// Expands a leading "{user_data}" (UserDataDir()) or "~/" ($HOME) in a dataset path from a
// benchmark definition; other paths are returned as they are.
std::string ExpandDataPath(const std::string& path);

}  // namespace trainbench::core

// Build and machine provenance logged with every run: git revision of the build, compiler,
// CPU model and count, host and OS. The LibTorch layers add the LibTorch version and threads.
#pragma once

#include <string>

#include "core/json.h"

namespace trainbench::core {

std::string GitRevision();  // short hash, "-dirty" when the tree had local changes; "unknown"
std::string CompilerId();   // e.g. "GCC 12.2.0"
std::string CpuModel();     // from /proc/cpuinfo; "unknown" elsewhere
Json MachineProvenance();   // {git_revision, compiler, cpu_model, logical_cpus, hostname, os}

}  // namespace trainbench::core

// Build and machine provenance logged with every run: git revision of the build, compiler,
// CPU model and count, host and OS. The LibTorch layers add the LibTorch version and threads.
#pragma once

#include <set>
#include <string>

#include "core/json.h"

namespace trainbench::core {

std::string GitRevision();  // short hash, "-dirty" when the tree had local changes; "unknown"
std::string CompilerId();   // e.g. "GCC 12.2.0"
std::string CpuModel();     // from /proc/cpuinfo; "unknown" elsewhere
// The CPU's feature flags as Linux names them (/proc/cpuinfo's first "flags" line: avx2,
// avx512_bf16, amx_bf16, ...); empty elsewhere. ParseCpuFlags reads them from that text.
std::set<std::string> CpuFlags();
std::set<std::string> ParseCpuFlags(const std::string& cpuinfo);
Json MachineProvenance();  // {git_revision, compiler, cpu_model, logical_cpus, hostname, os}

}  // namespace trainbench::core

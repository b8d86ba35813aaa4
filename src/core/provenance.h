// Build and machine provenance logged with every run: git revision of the build, compiler,
// CPU model and count, host and OS. The LibTorch layers add the LibTorch version and threads.
#pragma once

#include <cstdint>
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
// {git_revision, compiler, cpu_model, logical_cpus, cpu_sockets, cpu_cores_per_socket,
//  memory_bytes, hostname, os}; the cpu_* counts and memory_bytes only where /proc says them.
Json MachineProvenance();
// From /proc/cpuinfo's text: distinct "physical id"s and the first "cpu cores" (0 when absent).
int CpuSockets(const std::string& cpuinfo);
int CpuCoresPerSocket(const std::string& cpuinfo);
// From /proc/meminfo's text: MemTotal in bytes (0 when absent).
uint64_t MemTotalBytes(const std::string& meminfo);

}  // namespace trainbench::core

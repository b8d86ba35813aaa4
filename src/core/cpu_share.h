// How much of the machine's CPU a run had to itself. A timed run on a machine that is also
// compiling, or running another job, is slower for reasons that have nothing to do with the
// system under test (on a 2-core machine, 2 OpenMP threads sharing a core with a compiler ran
// 3-10x slower), so the harness measures, over run_start .. run_stop, the share of the
// machine's CPU time (all cores) that this process used and the share other processes used,
// from /proc/stat and /proc/self/stat (Linux), and logs it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace trainbench::core {

struct CpuTimes {
  uint64_t machine_busy = 0;   // clock ticks, all cores: user nice system irq softirq steal
  uint64_t machine_total = 0;  // busy + idle + iowait
  uint64_t process = 0;        // this process (and `also`): utime + stime, all their threads
};

// Parse the aggregate "cpu " line of /proc/stat. nullopt when it is missing or malformed.
std::optional<CpuTimes> ParseProcStat(const std::string& proc_stat);
// utime + stime of /proc/<pid>/stat (fields 14 and 15, counted after the ")" that ends the
// command name, which may itself hold spaces and parentheses). nullopt when malformed.
std::optional<uint64_t> ParseProcessTicks(const std::string& pid_stat);
// Both, read now; nullopt where /proc is unavailable (not Linux). `also`: other processes whose
// CPU time counts as this process's (the other ranks of a data-parallel run on this machine);
// nullopt as well when one of them cannot be read.
std::optional<CpuTimes> ReadCpuTimes(const std::vector<int>& also = {});

struct CpuShare {
  double own = 0;    // fraction of the machine's CPU time used by this process, in [0, 1]
  double other = 0;  // fraction used by every other process (and the hypervisor's steal)
};
// The shares between two readings; nullopt when no time passed or the readings disagree.
std::optional<CpuShare> CpuShareBetween(const CpuTimes& before, const CpuTimes& after);

}  // namespace trainbench::core

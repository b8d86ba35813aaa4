#include "core/cpu_share.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <vector>

namespace trainbench::core {

namespace {

std::string ReadAll(const char* path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

std::optional<CpuTimes> ParseProcStat(const std::string& proc_stat) {
  std::istringstream in(proc_stat);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("cpu ", 0) != 0) continue;
    std::istringstream f(line.substr(4));
    std::vector<uint64_t> v;
    uint64_t x;
    while (f >> x) v.push_back(x);
    if (v.size() < 4) return std::nullopt;  // user nice system idle at the least
    v.resize(8, 0);                         // iowait irq softirq steal (older kernels lack some)
    CpuTimes t;
    t.machine_busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
    t.machine_total = t.machine_busy + v[3] + v[4];
    return t;
  }
  return std::nullopt;
}

std::optional<uint64_t> ParseProcessTicks(const std::string& pid_stat) {
  const size_t close = pid_stat.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream f(pid_stat.substr(close + 1));
  // After ")": field 3 (state) onwards; utime and stime are fields 14 and 15.
  std::string field;
  uint64_t utime = 0, stime = 0;
  for (int k = 3; k <= 15; ++k) {
    if (!(f >> field)) return std::nullopt;
    try {
      if (k == 14) utime = std::stoull(field);
      if (k == 15) stime = std::stoull(field);
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }
  return utime + stime;
}

std::optional<CpuTimes> ReadCpuTimes(const std::vector<int>& also) {
  std::optional<CpuTimes> t = ParseProcStat(ReadAll("/proc/stat"));
  std::optional<uint64_t> p = ParseProcessTicks(ReadAll("/proc/self/stat"));
  if (!t || !p) return std::nullopt;
  t->process = *p;
  for (int pid : also) {
    std::optional<uint64_t> q =
        ParseProcessTicks(ReadAll(("/proc/" + std::to_string(pid) + "/stat").c_str()));
    if (!q) return std::nullopt;
    t->process += *q;
  }
  return t;
}

std::optional<CpuShare> CpuShareBetween(const CpuTimes& a, const CpuTimes& b) {
  if (b.machine_total <= a.machine_total || b.machine_busy < a.machine_busy ||
      b.process < a.process) {
    return std::nullopt;
  }
  const double total = static_cast<double>(b.machine_total - a.machine_total);
  const double busy = static_cast<double>(b.machine_busy - a.machine_busy);
  const double own = std::min(busy, static_cast<double>(b.process - a.process));
  CpuShare s;
  s.own = std::clamp(own / total, 0.0, 1.0);
  s.other = std::clamp((busy - own) / total, 0.0, 1.0);
  return s;
}

}  // namespace trainbench::core

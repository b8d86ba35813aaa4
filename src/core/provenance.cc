#include "core/provenance.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>
#include <vector>

#include "git_revision.h"

namespace trainbench::core {

std::string GitRevision() { return TRAINBENCH_GIT_REVISION; }

std::string CompilerId() {
#if defined(__clang__)
  return std::string("Clang ") + __clang_version__;
#elif defined(__GNUC__)
  return "GCC " + std::to_string(__GNUC__) + "." + std::to_string(__GNUC_MINOR__) + "." +
         std::to_string(__GNUC_PATCHLEVEL__);
#else
  return "unknown";
#endif
}

std::string CpuModel() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos) {
        auto v = line.substr(colon + 1);
        auto first = v.find_first_not_of(" \t");
        return first == std::string::npos ? v : v.substr(first);
      }
    }
  }
  return "unknown";
}

std::set<std::string> ParseCpuFlags(const std::string& cpuinfo) {
  std::istringstream in(cpuinfo);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("flags", 0) != 0) continue;
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::istringstream words(line.substr(colon + 1));
    std::set<std::string> flags;
    for (std::string w; words >> w;) flags.insert(w);
    return flags;
  }
  return {};
}

std::set<std::string> CpuFlags() {
  std::ifstream in("/proc/cpuinfo");
  std::ostringstream text;
  text << in.rdbuf();
  return ParseCpuFlags(text.str());
}

namespace {

std::string ReadAll(const char* path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The value after "key<blanks>: " on each line whose name is `key`.
std::vector<std::string> ValuesOf(const std::string& text, const std::string& key) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key, 0) != 0) continue;
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    if (line.substr(0, colon).find_first_not_of(" \t", key.size()) != std::string::npos) continue;
    const size_t v = line.find_first_not_of(" \t", colon + 1);
    out.push_back(v == std::string::npos ? "" : line.substr(v));
  }
  return out;
}

}  // namespace

int CpuSockets(const std::string& cpuinfo) {
  const std::vector<std::string> ids = ValuesOf(cpuinfo, "physical id");
  return static_cast<int>(std::set<std::string>(ids.begin(), ids.end()).size());
}

int CpuCoresPerSocket(const std::string& cpuinfo) {
  const std::vector<std::string> v = ValuesOf(cpuinfo, "cpu cores");
  return v.empty() ? 0 : std::atoi(v.front().c_str());
}

uint64_t MemTotalBytes(const std::string& meminfo) {
  const std::vector<std::string> v = ValuesOf(meminfo, "MemTotal");
  if (v.empty()) return 0;
  return std::strtoull(v.front().c_str(), nullptr, 10) * 1024;  // "24683772 kB"
}

Json MachineProvenance() {
  Json j = Json::object();
  j["git_revision"] = GitRevision();
  j["compiler"] = CompilerId();
  j["cpu_model"] = CpuModel();
  j["logical_cpus"] = std::thread::hardware_concurrency();
  const std::string cpuinfo = ReadAll("/proc/cpuinfo");
  if (int sockets = CpuSockets(cpuinfo); sockets > 0) j["cpu_sockets"] = sockets;
  if (int cores = CpuCoresPerSocket(cpuinfo); cores > 0) j["cpu_cores_per_socket"] = cores;
  if (uint64_t mem = MemTotalBytes(ReadAll("/proc/meminfo")); mem > 0) j["memory_bytes"] = mem;
  char host[256] = {0};
  ::gethostname(host, sizeof(host) - 1);
  j["hostname"] = host;
  struct utsname u;
  if (::uname(&u) == 0) j["os"] = std::string(u.sysname) + " " + u.release + " " + u.machine;
  return j;
}

}  // namespace trainbench::core

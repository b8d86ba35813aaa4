#include "core/provenance.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <thread>

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

Json MachineProvenance() {
  Json j = Json::object();
  j["git_revision"] = GitRevision();
  j["compiler"] = CompilerId();
  j["cpu_model"] = CpuModel();
  j["logical_cpus"] = std::thread::hardware_concurrency();
  char host[256] = {0};
  ::gethostname(host, sizeof(host) - 1);
  j["hostname"] = host;
  struct utsname u;
  if (::uname(&u) == 0) j["os"] = std::string(u.sysname) + " " + u.release + " " + u.machine;
  return j;
}

}  // namespace trainbench::core

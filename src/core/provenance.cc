#include "core/provenance.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <fstream>
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

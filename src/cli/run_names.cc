// The names `run` and `run --suite` make folders of (commands.h).
#include <unistd.h>

#include <cctype>
#include <string>

#include "cli/commands.h"
#include "core/error.h"

namespace trainbench::cli {

std::string DefaultSystemName() {
  char host[256] = {0};
  ::gethostname(host, sizeof(host) - 1);
  std::string s = host[0] ? host : "local";
  for (char& c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') c = '_';
  }
  return s;
}

// --system and --org name one folder each under --results: "../../escaped" wrote outside it.
void CheckPathComponent(const char* flag, const std::string& name) {
  if (name.empty() && std::string(flag) == "--system") return;  // the host name
  const bool bad = name.empty() || name == "." || name == ".." || name.size() > 255 ||
                   name.find('/') != std::string::npos || name.find('\0') != std::string::npos;
  if (bad) {
    throw core::Error(std::string(flag) + " \"" + name +
                      "\": expected a name that is one path component (no '/', not . or ..)");
  }
}

}  // namespace trainbench::cli

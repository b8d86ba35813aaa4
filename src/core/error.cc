#include "core/error.h"

#include <cstdio>
#include <cstdlib>

namespace trainbench::core {

Error FileError(const std::string& file, long line, const std::string& message) {
  std::ostringstream os;
  os << file;
  if (line > 0) os << ":" << line;
  os << ": " << message;
  return Error(os.str());
}

Error OffsetError(const std::string& file, long long offset, const std::string& message) {
  std::ostringstream os;
  os << file << ": offset " << offset << ": " << message;
  return Error(os.str());
}

void CheckFailed(const char* file, int line, const char* cond, const std::string& msg) {
  std::fprintf(stderr, "trainbench: internal check failed at %s:%d: %s %s\n", file, line, cond,
               msg.c_str());
  std::abort();
}

}  // namespace trainbench::core

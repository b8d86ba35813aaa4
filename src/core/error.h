// Expected failures (bad input, missing files, invalid configuration) are reported as
// trainbench::core::Error: a message that names the file and the place (line, offset, key).
// The CLI maps them to an exit code. Broken invariants are TB_CHECKs, not Errors.
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>

namespace trainbench::core {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what) : std::runtime_error(what) {}
};

// "<file>:<line>: <message>"; line <= 0 leaves the line out.
Error FileError(const std::string& file, long line, const std::string& message);
// "<file>: offset <offset>: <message>" for binary formats.
Error OffsetError(const std::string& file, long long offset, const std::string& message);

[[noreturn]] void CheckFailed(const char* file, int line, const char* cond, const std::string& msg);

}  // namespace trainbench::core

#define TB_CHECK(cond, msg)                                                           \
  do {                                                                                \
    if (!(cond)) {                                                                    \
      std::ostringstream tb_check_os_;                                                \
      tb_check_os_ << msg;                                                            \
      ::trainbench::core::CheckFailed(__FILE__, __LINE__, #cond, tb_check_os_.str()); \
    }                                                                                 \
  } while (0)

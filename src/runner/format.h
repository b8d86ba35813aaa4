// printf-style formatting into a std::string: the runner's messages keep the exact number
// formats (%.2f, %g) the launcher has always printed, whatever stream they go to.
#pragma once

#include <cstdarg>
#include <cstdio>
#include <string>

namespace trainbench::runner {

__attribute__((format(printf, 1, 2))) inline std::string Format(const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  va_list again;
  va_copy(again, args);
  const int n = std::vsnprintf(nullptr, 0, fmt, args);
  va_end(args);
  std::string s(n > 0 ? static_cast<size_t>(n) : 0, '\0');
  if (n > 0) std::vsnprintf(s.data(), s.size() + 1, fmt, again);
  va_end(again);
  return s;
}

}  // namespace trainbench::runner

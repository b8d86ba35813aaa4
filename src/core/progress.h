// Progress lines of the long-running builders (`trainbench prepare ...`): printf to an optional
// stream, flushed at once, and elapsed seconds for their timings.
#pragma once

#include <chrono>
#include <cstdarg>
#include <cstdio>

namespace trainbench::core {

// printf to `f` and flush it; nothing when `f` is null (no progress wanted).
__attribute__((format(printf, 2, 3))) inline void Say(std::FILE* f, const char* fmt, ...) {
  if (!f) return;
  va_list ap;
  va_start(ap, fmt);
  std::vfprintf(f, fmt, ap);
  va_end(ap);
  std::fflush(f);
}

// Seconds from t0 to now on the steady clock.
inline double SecondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace trainbench::core

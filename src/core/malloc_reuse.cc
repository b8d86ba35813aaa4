#include "core/malloc_reuse.h"

#include <atomic>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace trainbench::core {

namespace {
std::atomic<bool> g_enabled{false};
}

bool EnableMallocReuse() {
#if defined(__GLIBC__)
  // Order matters little; both are process-wide and take effect for the next allocation.
  if (::mallopt(M_MMAP_MAX, 0) != 1) return false;
  if (::mallopt(M_TRIM_THRESHOLD, -1) != 1) return false;  // -1: never trim (mallopt(3))
  g_enabled = true;
  return true;
#else
  return false;
#endif
}

bool MallocReuseEnabled() { return g_enabled; }

bool RaiseMmapThreshold() {
#if defined(__GLIBC__)
  if (g_enabled) return true;
  return ::mallopt(M_MMAP_THRESHOLD, 32 << 20) == 1 && ::mallopt(M_TRIM_THRESHOLD, 1 << 30) == 1;
#else
  return false;
#endif
}

}  // namespace trainbench::core

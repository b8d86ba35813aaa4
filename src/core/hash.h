// FNV-1a 64, the content hash the dataset manifests (dataset.json) record for every file.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace trainbench::core {

// FNV-1a 64 of bytes, as 16 lowercase hex digits.
inline std::string Fnv1a64Hex(std::string_view bytes) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (char c : bytes) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

}  // namespace trainbench::core

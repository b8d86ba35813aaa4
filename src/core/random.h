// Seeds: one per concern. A run has one logged seed; every concern (model init, data order,
// augmentation, dropout, ...) derives its own stream from it with SeedFor(run_seed, "data"), so
// changing how one concern draws numbers never shifts another's.
#pragma once

#include <cstdint>
#include <string_view>

namespace trainbench::core {

// SplitMix64 finaliser: a good 64-bit mix of x.
constexpr uint64_t Mix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Seed for `stream` (a short name such as "model", "data", "augment") of a run seeded `seed`.
constexpr uint64_t SeedFor(uint64_t seed, std::string_view stream) {
  uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a of the stream name
  for (char c : stream) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
  return Mix64(seed ^ Mix64(h));
}

}  // namespace trainbench::core

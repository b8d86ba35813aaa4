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

// A counter-based stream of 64-bit numbers, Mix64(seed + golden ratio * k) for k = 1, 2, ...:
// the same on every platform (no standard-library distribution), used where a shuffle must be
// reproducible byte for byte (dataset splits, token batches).
class CounterRng {
 public:
  explicit constexpr CounterRng(uint64_t seed) : base_(seed) {}
  uint64_t Next() { return Mix64(base_ + 0x9E3779B97F4A7C15ull * ++counter_); }
  // Uniform in [0, bound) for bound >= 1, by rejection sampling (no modulo bias).
  uint64_t Below(uint64_t bound) {
    const uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
    uint64_t r;
    do r = Next();
    while (r >= limit);
    return r % bound;
  }

 private:
  uint64_t base_;
  uint64_t counter_ = 0;
};

}  // namespace trainbench::core

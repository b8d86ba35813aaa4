#include "data/random.h"

#include "core/error.h"
#include "core/random.h"

namespace trainbench::data {

uint64_t MixSeed(std::initializer_list<uint64_t> parts) {
  uint64_t h = 0x243f6a8885a308d3ULL;  // pi
  for (uint64_t p : parts) h = core::Mix64(h ^ core::Mix64(p));
  return h;
}

Rng::Rng(uint64_t seed, uint64_t stream) : state_(0), inc_((stream << 1u) | 1u) {
  NextU32();
  state_ += seed;
  NextU32();
}

uint32_t Rng::NextU32() {
  uint64_t old = state_;
  state_ = old * 6364136223846793005ULL + inc_;
  auto xorshifted = static_cast<uint32_t>(((old >> 18u) ^ old) >> 27u);
  auto rot = static_cast<uint32_t>(old >> 59u);
  return (xorshifted >> rot) | (xorshifted << ((-rot) & 31u));
}

uint64_t Rng::NextU64() {
  uint64_t hi = NextU32();
  return (hi << 32) | NextU32();
}

double Rng::Uniform() { return static_cast<double>(NextU64() >> 11) * 0x1.0p-53; }

double Rng::Uniform(double lo, double hi) { return lo + (hi - lo) * Uniform(); }

int64_t Rng::UniformInt(int64_t lo, int64_t hi) {
  TB_CHECK(lo <= hi, "UniformInt(" << lo << ", " << hi << ")");
  uint64_t range = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
  if (range == std::numeric_limits<uint64_t>::max()) return static_cast<int64_t>(NextU64());
  uint64_t n = range + 1;
  // Rejection sampling: accept x below the largest multiple of n.
  uint64_t limit =
      std::numeric_limits<uint64_t>::max() - (std::numeric_limits<uint64_t>::max() % n);
  uint64_t x;
  do {
    x = NextU64();
  } while (x >= limit);
  return static_cast<int64_t>(static_cast<uint64_t>(lo) + x % n);
}

bool Rng::Bernoulli(double p) { return Uniform() < p; }

Rng SampleRng(uint64_t seed, int64_t epoch, int64_t index) {
  return Rng(
      MixSeed({seed, kAugmentDomain, static_cast<uint64_t>(epoch), static_cast<uint64_t>(index)}));
}

}  // namespace trainbench::data

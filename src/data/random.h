// Deterministic random numbers for the data pipeline.
//
// Rng is PCG32 (O'Neill, pcg_setseq_64_xsh_rr_32) with its own distribution code, so a seed
// gives the same stream on every compiler and standard library (std::uniform_*_distribution
// does not promise that). Seeds for one concern are derived from a tuple of integers with
// MixSeed: the shuffle of epoch e is Rng(MixSeed({seed, kShuffleDomain, e})), the augmentation
// of dataset sample i in epoch e is SampleRng(seed, e, i). So a sample's augmentation depends
// only on (seed, epoch, index), never on which thread or rank processes it.
//
// Threading: an Rng is a small value type with no shared state; use one per thread/sample.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <limits>

namespace trainbench::data {

// Domain tags that keep the streams of different concerns apart for the same user seed.
inline constexpr uint64_t kShuffleDomain = 0x53485546464c45ULL;  // "SHUFFLE"
inline constexpr uint64_t kAugmentDomain = 0x4155474d454e54ULL;  // "AUGMENT"

// Hashes an ordered tuple of integers into one 64-bit seed (order matters).
uint64_t MixSeed(std::initializer_list<uint64_t> parts);

class Rng {
 public:
  using result_type = uint32_t;

  // stream selects one of 2^63 independent sequences for the same seed.
  explicit Rng(uint64_t seed, uint64_t stream = 0);

  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return std::numeric_limits<uint32_t>::max(); }
  result_type operator()() { return NextU32(); }

  uint32_t NextU32();
  uint64_t NextU64();
  // Uniform in [0, 1) with 53 random bits.
  double Uniform();
  // Uniform in [lo, hi).
  double Uniform(double lo, double hi);
  // Uniform integer in [lo, hi] (both inclusive), unbiased. Requires lo <= hi.
  int64_t UniformInt(int64_t lo, int64_t hi);
  // True with probability p.
  bool Bernoulli(double p);

 private:
  uint64_t state_;
  uint64_t inc_;
};

// The augmentation RNG of dataset sample `index` in `epoch` for loader seed `seed`.
Rng SampleRng(uint64_t seed, int64_t epoch, int64_t index);

}  // namespace trainbench::data

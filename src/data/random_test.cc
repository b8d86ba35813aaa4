#include "data/random.h"

#include <gtest/gtest.h>

#include <set>

namespace trainbench::data {
namespace {

TEST(RngTest, MatchesPcg32Reference) {
  // pcg32-demo (pcg-c-basic) with pcg32_srandom_r(&rng, 42u, 54u).
  Rng rng(42, 54);
  EXPECT_EQ(rng.NextU32(), 0xa15c02b7u);
  EXPECT_EQ(rng.NextU32(), 0x7b47f409u);
  EXPECT_EQ(rng.NextU32(), 0xba1d3330u);
  EXPECT_EQ(rng.NextU32(), 0x83d2f293u);
}

TEST(RngTest, SameSeedSameStreamDifferentSeedOrStreamDiffers) {
  Rng a(7), b(7), c(8), d(7, 1);
  const uint64_t x = a.NextU64();
  EXPECT_EQ(x, b.NextU64());
  EXPECT_NE(x, c.NextU64());
  EXPECT_NE(x, d.NextU64());
}

TEST(RngTest, UniformIntCoversInclusiveRange) {
  Rng rng(1);
  std::set<int64_t> seen;
  for (int i = 0; i < 2000; ++i) {
    const int64_t v = rng.UniformInt(-3, 4);
    ASSERT_GE(v, -3);
    ASSERT_LE(v, 4);
    seen.insert(v);
  }
  EXPECT_EQ(seen.size(), 8u);
  EXPECT_EQ(rng.UniformInt(5, 5), 5);
}

TEST(RngTest, UniformInUnitInterval) {
  Rng rng(2);
  double sum = 0;
  for (int i = 0; i < 10000; ++i) {
    const double u = rng.Uniform();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    sum += u;
  }
  EXPECT_NEAR(sum / 10000, 0.5, 0.02);
}

TEST(RngTest, MixSeedDependsOnOrderAndSampleRngOnEveryPart) {
  EXPECT_NE(MixSeed({1, 2}), MixSeed({2, 1}));
  EXPECT_EQ(MixSeed({1, 2, 3}), MixSeed({1, 2, 3}));
  const uint64_t base = SampleRng(1, 2, 3).NextU64();
  EXPECT_EQ(base, SampleRng(1, 2, 3).NextU64());
  EXPECT_NE(base, SampleRng(9, 2, 3).NextU64());
  EXPECT_NE(base, SampleRng(1, 9, 3).NextU64());
  EXPECT_NE(base, SampleRng(1, 2, 9).NextU64());
}

}  // namespace
}  // namespace trainbench::data

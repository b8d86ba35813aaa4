// RLE mask API (rle.h) against hand-derived cocoapi (common/maskApi.c) results.
#include "coco/rle.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace trainbench::coco {
namespace {

Rle Make(int64_t h, int64_t w, std::vector<uint32_t> counts) {
  Rle r;
  r.h = h;
  r.w = w;
  r.counts = std::move(counts);
  return r;
}

std::vector<uint8_t> RandomMask(std::mt19937* g, int64_t h, int64_t w, double p) {
  std::bernoulli_distribution b(p);
  std::vector<uint8_t> m(static_cast<size_t>(h * w));
  for (auto& v : m) v = b(*g) ? 1 : 0;
  return m;
}

TEST(RleTest, EncodeIsColumnMajorStartingWithTheBackgroundRun) {
  // 3 x 2 mask, column-major: column 0 = (0,1,1), column 1 = (1,0,0): runs 1 bg, 3 fg, 2 bg.
  const uint8_t m1[6] = {0, 1, 1, 1, 0, 0};
  EXPECT_EQ(RleEncode(m1, 3, 2).counts, (std::vector<uint32_t>{1, 3, 2}));
  // First pixel foreground: the counts start with a zero background run.
  const uint8_t m2[6] = {1, 1, 0, 0, 0, 0};
  EXPECT_EQ(RleEncode(m2, 3, 2).counts, (std::vector<uint32_t>{0, 2, 4}));
  // Nonzero bytes other than 1 are foreground; an all-background mask is one run.
  const uint8_t m3[6] = {0, 0, 0, 0, 0, 7};
  EXPECT_EQ(RleEncode(m3, 3, 2).counts, (std::vector<uint32_t>{5, 1}));
  const uint8_t m4[6] = {0, 0, 0, 0, 0, 0};
  EXPECT_EQ(RleEncode(m4, 3, 2).counts, (std::vector<uint32_t>{6}));
}

TEST(RleTest, EncodeDecodeRoundTripOnRandomMasks) {
  std::mt19937 g(12345);
  for (int i = 0; i < 200; ++i) {
    const int64_t h = 1 + static_cast<int64_t>(g() % 17), w = 1 + static_cast<int64_t>(g() % 13);
    const double p = (i % 5) / 4.0;  // includes all-empty and all-full masks
    const std::vector<uint8_t> m = RandomMask(&g, h, w, p);
    const Rle r = RleEncode(m.data(), h, w);
    EXPECT_EQ(RleCountSum(r), static_cast<uint64_t>(h * w));
    EXPECT_EQ(RleDecode(r), m);
    uint64_t fg = 0;
    for (uint8_t v : m) fg += v;
    EXPECT_EQ(RleArea(r), fg);
  }
}

TEST(RleTest, AreaAndBboxOfAKnownMask) {
  // h = 4, w = 3; pixels (x=1, y=1) and (x=1, y=2) are elements 5 and 6: counts 5, 2, 5.
  std::vector<uint8_t> m(12, 0);
  m[5] = m[6] = 1;
  const Rle r = RleEncode(m.data(), 4, 3);
  EXPECT_EQ(r.counts, (std::vector<uint32_t>{5, 2, 5}));
  EXPECT_EQ(RleArea(r), 2u);
  EXPECT_EQ(RleToBbox(r), (Box{1, 1, 1, 2}));
  // rleToBbox: a run wrapping from column 0 to column 1 (3 x 2, counts 1, 3, 2: pixels (0,1),
  // (0,2), (1,0)) makes the box the full height: [0, 0, 2, 3].
  EXPECT_EQ(RleToBbox(Make(3, 2, {1, 3, 2})), (Box{0, 0, 2, 3}));
  EXPECT_EQ(RleToBbox(Make(3, 2, {6})), (Box{0, 0, 0, 0}));
}

TEST(RleTest, FrPolyOfAnAxisAlignedRectangle) {
  // rleFrPoly upsamples by 5: x 2..6 -> 10..30, y 1..4 -> 5..20. Along the top edge (x
  // increasing) xd = x - 1 = 10..29 maps to (xd + .5) / 5 - .5, an integer for xd = 12, 17, 22,
  // 27: columns 2..5, with yd = ceil(5.5 / 5 - .5) = ceil(0.6) = 1; the bottom edge gives the
  // same columns with yd = ceil(20.5 / 5 - .5) = ceil(3.6) = 4. Each column is foreground for
  // rows 1..3: area (6 - 2) * (4 - 1) = 12, box [2, 1, 4, 3].
  const Rle r = RleFrPoly({2, 1, 6, 1, 6, 4, 2, 4}, 10, 10);
  EXPECT_EQ(RleCountSum(r), 100u);
  EXPECT_EQ(RleArea(r), 12u);
  EXPECT_EQ(RleToBbox(r), (Box{2, 1, 4, 3}));
  const std::vector<uint8_t> m = RleDecode(r);
  for (int x = 0; x < 10; ++x) {
    for (int y = 0; y < 10; ++y) {
      const bool in = x >= 2 && x < 6 && y >= 1 && y < 4;
      EXPECT_EQ(m[static_cast<size_t>(x * 10 + y)], in ? 1 : 0) << x << "," << y;
    }
  }
  // rleFrBbox is the polygon of the corners: the same mask.
  const Rle b = RleFrBbox({2, 1, 4, 3}, 10, 10);
  EXPECT_EQ(b.counts, r.counts);
  // Two disjoint rectangles unioned (annToRLE of a two-polygon segmentation).
  const Rle u = RleFrPolygons({{2, 1, 6, 1, 6, 4, 2, 4}, {7, 7, 9, 7, 9, 9, 7, 9}}, 10, 10);
  EXPECT_EQ(RleArea(u), 12u + 4u);
}

TEST(RleTest, CompressedStringKnownValuesAndRoundTrip) {
  // rleToString: 5 bits a character plus a continuation bit, + 48; counts from index 3 on are
  // stored as the difference to the count two before ('i > 2' in maskApi.c).
  EXPECT_EQ(RleToString(Make(3, 2, {1, 3, 2})), "132");
  EXPECT_EQ(RleToString(Make(3, 3, {1, 3, 2, 3})), "1320");  // 3 - 3 = 0
  // [5, 2, 1, 1]: the last is 1 - 2 = -1: c = -1 & 0x1f = 31, x >> 5 = -1, bit 0x10 set and x
  // == -1 so no continuation: 31 + 48 = 'O'.
  EXPECT_EQ(RleToString(Make(3, 3, {5, 2, 1, 1})), "521O");
  // 40 = 0b101000: c = 8 | 0x20 (more), then 1: chars 40 + 48 = 'X', 1 + 48 = '1'.
  EXPECT_EQ(RleToString(Make(8, 5, {40})), "X1");
  Rle back;
  ASSERT_TRUE(RleFrString("521O", 3, 3, &back));
  EXPECT_EQ(back.counts, (std::vector<uint32_t>{5, 2, 1, 1}));
  ASSERT_TRUE(RleFrString("X1", 8, 5, &back));
  EXPECT_EQ(back.counts, (std::vector<uint32_t>{40}));

  std::mt19937 g(7);
  for (int i = 0; i < 200; ++i) {
    const int64_t h = 1 + static_cast<int64_t>(g() % 60), w = 1 + static_cast<int64_t>(g() % 60);
    const std::vector<uint8_t> m = RandomMask(&g, h, w, (i % 7) / 6.0);
    const Rle r = RleEncode(m.data(), h, w);
    Rle s;
    ASSERT_TRUE(RleFrString(RleToString(r), h, w, &s));
    EXPECT_EQ(s.counts, r.counts);
    EXPECT_EQ(s.h, h);
    EXPECT_EQ(s.w, w);
  }
  // A character outside '0'..'o', and a string ending inside a number (continuation bit set).
  EXPECT_FALSE(RleFrString("1p", 3, 2, &back));
  EXPECT_FALSE(RleFrString("X", 8, 5, &back));
}

TEST(RleTest, MergeUnionAndIntersection) {
  std::mt19937 g(99);
  for (int i = 0; i < 100; ++i) {
    const int64_t h = 1 + static_cast<int64_t>(g() % 11), w = 1 + static_cast<int64_t>(g() % 11);
    const auto a = RandomMask(&g, h, w, 0.4), b = RandomMask(&g, h, w, 0.6),
               c = RandomMask(&g, h, w, 0.5);
    std::vector<uint8_t> uni(a.size()), inter(a.size());
    for (size_t j = 0; j < a.size(); ++j) {
      uni[j] = (a[j] | b[j] | c[j]) ? 1 : 0;
      inter[j] = (a[j] & b[j] & c[j]) ? 1 : 0;
    }
    const std::vector<Rle> rs = {RleEncode(a.data(), h, w), RleEncode(b.data(), h, w),
                                 RleEncode(c.data(), h, w)};
    EXPECT_EQ(RleDecode(RleMerge(rs, false)), uni);
    EXPECT_EQ(RleDecode(RleMerge(rs, true)), inter);
    EXPECT_EQ(RleMerge({rs[0]}, false).counts, rs[0].counts);
  }
  // Different sizes and no masks: an empty 0 x 0 RLE.
  const Rle m = RleMerge({Make(3, 2, {6}), Make(2, 3, {6})}, false);
  EXPECT_EQ(m.h, 0);
  EXPECT_EQ(m.w, 0);
  EXPECT_EQ(RleMerge({}, false).h, 0);
}

TEST(RleTest, BboxIouWithAndWithoutCrowd) {
  // dt [0,0,10,10] vs gt [5,0,10,10]: intersection 5 x 10 = 50, union 100 + 100 - 50 = 150.
  const std::vector<Box> dt = {{0, 0, 10, 10}, {0, 0, 4, 4}};
  const std::vector<Box> gt = {{5, 0, 10, 10}, {0, 0, 8, 8}, {10, 0, 5, 5}};
  const std::vector<double> iou = BboxIou(dt, gt, {0, 1, 0});
  ASSERT_EQ(iou.size(), 6u);
  EXPECT_DOUBLE_EQ(iou[0], 50.0 / 150.0);
  // Crowd gt [0,0,8,8]: intersection / area(dt) = 64 / 100.
  EXPECT_DOUBLE_EQ(iou[1], 0.64);
  // Touching at x = 10: zero width, 0.
  EXPECT_EQ(iou[2], 0.0);
  EXPECT_EQ(iou[3], 0.0);                 // [0,0,4,4] vs [5,0,10,10]: apart
  EXPECT_DOUBLE_EQ(iou[4], 16.0 / 16.0);  // crowd, dt inside: 16 / 16
  EXPECT_EQ(iou[5], 0.0);
  // Not crowd: 16 / 64. Empty iscrowd = no crowd.
  EXPECT_DOUBLE_EQ(BboxIou({{0, 0, 4, 4}}, {{0, 0, 8, 8}}, {})[0], 0.25);
}

TEST(RleTest, RleIouWithAndWithoutCrowd) {
  // 4 x 4 masks: A = column 0 (4 px), B = rows 0..1 of column 0 (2 px, inside A).
  std::vector<uint8_t> a(16, 0), b(16, 0), c(16, 0);
  a[0] = a[1] = a[2] = a[3] = 1;
  b[0] = b[1] = 1;
  c[15] = 1;  // (3, 3): box disjoint from A's
  const Rle ra = RleEncode(a.data(), 4, 4), rb = RleEncode(b.data(), 4, 4),
            rc = RleEncode(c.data(), 4, 4);
  const std::vector<double> iou = RleIou({ra, rb}, {rb, ra, rc}, {0, 0, 0});
  EXPECT_DOUBLE_EQ(iou[0], 0.5);  // 2 / 4
  EXPECT_DOUBLE_EQ(iou[1], 1.0);
  EXPECT_EQ(iou[2], 0.0);
  EXPECT_DOUBLE_EQ(iou[3], 1.0);
  EXPECT_DOUBLE_EQ(iou[4], 0.5);
  // Crowd gts: intersection / area(dt). dt A vs crowd B: 2 / 4; dt B vs crowd A: 2 / 2.
  const std::vector<double> cr = RleIou({ra, rb}, {rb, ra}, {1, 1});
  EXPECT_DOUBLE_EQ(cr[0], 0.5);
  EXPECT_DOUBLE_EQ(cr[3], 1.0);
  // Different sizes: -1 (when the boxes overlap).
  std::vector<uint8_t> big(25, 1);
  EXPECT_EQ(RleIou({RleEncode(big.data(), 5, 5)}, {ra}, {})[0], -1.0);
}

// Counts that sum to different totals (malformed; on a 65536 x 65536 image rleFrPoly wrapped
// h * w to 0 and made such masks): cocoapi's loops, and ours before, took min(0, cb) = 0 forever
// once one side was used up. They now stop at the shorter mask.
TEST(RleTest, IouAndMergeOfCountsWithDifferentTotalsEnd) {
  const Rle a = Make(10, 10, {0, 10});                          // column 0, but sums to 10, not 100
  const Rle b = Make(10, 10, {0, 20, 80});                      // columns 0 and 1
  EXPECT_EQ(RleIou({a}, {b}, {}), (std::vector<double>{1.0}));  // 10 / 10 up to pixel 10
  EXPECT_EQ(RleMerge({a, b}, false).counts, (std::vector<uint32_t>{0, 10}));
  EXPECT_EQ(RleMerge({b, a}, true).counts, (std::vector<uint32_t>{0, 10}));
}

// Pixel positions x * h + y past 2^31 (an int overflow before) on the largest grid allowed.
TEST(RleTest, FrPolyOnTheLargestGrid) {
  const double x = kMaxMaskSide - 5, y = kMaxMaskSide - 5;
  const Rle r = RleFrPoly({x, y, x + 3, y, x + 3, y + 3, x, y + 3}, kMaxMaskSide, kMaxMaskSide);
  EXPECT_EQ(RleCountSum(r), static_cast<uint64_t>(kMaxMaskSide) * kMaxMaskSide);
  EXPECT_EQ(RleArea(r), 9u);
  EXPECT_EQ(RleToBbox(r), (Box{x, y, 3, 3}));
}

TEST(RleTest, PolyWalkLength) {
  EXPECT_EQ(RlePolyWalkLength({0, 0, 10, 0, 10, 10, 0, 10}),
            4u * 51u);                                               // 4 edges of 50 steps at 5x
  EXPECT_EQ(RlePolyWalkLength({0, 0, 4.3e8, 0, 0, 1}), UINT64_MAX);  // 5 x 4.3e8 is past INT_MAX
  EXPECT_EQ(RlePolyWalkLength({0, 0, 1, 0, 0, std::nan("")}), UINT64_MAX);
  EXPECT_EQ(RlePolyWalkLength({}), 0u);
}

// A box detection rasterised for segm (loadRes' polygon of its corners): a box reaching far
// past the image gives the pixels rleFrPoly gives for it, in time and memory of the image's
// size. A 1e8-pixel box made rleFrPoly reserve gigabytes (bad_alloc); a 1e300 one overflowed
// the int conversion.
TEST(RleTest, FrBboxOfBoxesFarOutsideTheImage) {
  const int64_t h = 7, w = 9;
  for (const Box& b : std::vector<Box>{{-50.3, -20, 70, 100.7},
                                       {3, 2, -40, 5},
                                       {-100, -100, 50, 50},
                                       {2.2, 3.1, 200, 1},
                                       {8.5, -3, 30.1, 4.2},
                                       {0.4, 6.9, 3, -60}}) {
    const double x1 = b[0], y1 = b[1], x2 = b[0] + b[2], y2 = b[1] + b[3];
    EXPECT_EQ(RleFrBbox(b, h, w).counts, RleFrPoly({x1, y1, x1, y2, x2, y2, x2, y1}, h, w).counts)
        << b[0] << " " << b[1] << " " << b[2] << " " << b[3];
  }
  EXPECT_EQ(RleArea(RleFrBbox({0, 0, 1e8, 1e8}, h, w)), static_cast<uint64_t>(h * w));
  EXPECT_EQ(RleArea(RleFrBbox({-1e300, -1e300, 1e300, 2e300}, h, w)), 0u);  // ends at x = 0
  EXPECT_EQ(RleArea(RleFrBbox({-1e300, -1e300, 2e300, 2e300}, h, w)), static_cast<uint64_t>(h * w));
}

}  // namespace
}  // namespace trainbench::coco

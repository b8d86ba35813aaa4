#include "shapes/mask_polygon.h"

#include <gtest/gtest.h>

#include <string>

#include "data/random.h"

namespace trainbench::shapes {
namespace {

// A mask from rows of '#' (inside) and '.' (outside).
std::vector<uint8_t> Mask(const std::vector<std::string>& rows) {
  std::vector<uint8_t> m;
  for (const auto& r : rows) {
    for (char c : r) m.push_back(c == '#');
  }
  return m;
}

void ExpectExact(const std::vector<uint8_t>& mask, int w, int h) {
  const std::vector<Polygon> polys = TraceMaskPolygons(mask, w, h);
  EXPECT_EQ(RasterizeCocoPolygons(polys, w, h), mask);
}

TEST(ShapesMaskPolygon, SquareIsFourCorners) {
  const auto m = Mask({"....", ".##.", ".##.", "...."});
  const auto p = TraceMaskPolygons(m, 4, 4);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0], (Polygon{1, 1, 3, 1, 3, 3, 1, 3}));
  ExpectExact(m, 4, 4);
}

TEST(ShapesMaskPolygon, HolesDiagonalsAndSeveralParts) {
  const std::vector<std::string> rows = {
      "#######...#", "#.....#..#.", "#.###.#...#", "#.#.#.#....",
      "#.###.##.#.", "#.....#.#..", "#######....",
  };
  const int w = static_cast<int>(rows[0].size()), h = static_cast<int>(rows.size());
  const auto m = Mask(rows);
  ExpectExact(m, w, h);
  // Components (4-connected): the frame with its inner ring-with-hole separate, and the singles.
  const auto p = TraceMaskPolygons(m, w, h);
  EXPECT_GE(p.size(), 6u);
}

TEST(ShapesMaskPolygon, TouchesTheImageBorder) {
  ExpectExact(Mask({"###", "###", "###"}), 3, 3);
  ExpectExact(Mask({"#.#", ".#.", "#.#"}), 3, 3);
}

TEST(ShapesMaskPolygon, RandomMasksReproduceExactly) {
  data::Rng r(7);
  for (int trial = 0; trial < 300; ++trial) {
    const int w = static_cast<int>(r.UniformInt(1, 24)), h = static_cast<int>(r.UniformInt(1, 24));
    const double p = r.Uniform(0.2, 0.8);
    std::vector<uint8_t> m(static_cast<size_t>(w) * h);
    for (auto& v : m) v = r.Bernoulli(p);
    const auto polys = TraceMaskPolygons(m, w, h);
    ASSERT_EQ(RasterizeCocoPolygons(polys, w, h), m) << "trial " << trial << " " << w << "x" << h;
  }
}

TEST(ShapesMaskPolygon, CocoRasterOfAnAnalyticPolygon) {
  // A triangle with fractional vertices: pixels whose centre is inside.
  const auto m = RasterizeCocoPolygons({{0.2, 0.2, 7.8, 0.2, 0.2, 7.8}}, 8, 8);
  long long n = 0;
  for (uint8_t v : m) n += v;
  EXPECT_NEAR(n, 7.6 * 7.6 / 2, 6);
  EXPECT_EQ(m[0], 1);
  EXPECT_EQ(m[7 * 8 + 7], 0);
  EXPECT_DOUBLE_EQ(MaskIou(m, m), 1.0);
}

}  // namespace
}  // namespace trainbench::shapes

#include "shapes/det_math.h"

#include <gtest/gtest.h>

#include <cmath>

namespace trainbench::shapes {
namespace {

TEST(ShapesDetMath, MatchesLibmClosely) {
  for (int i = -20000; i <= 20000; ++i) {
    const double x = i * 0.00137;  // about [-27, 27]
    EXPECT_NEAR(DetSin(x), std::sin(x), 4e-16) << x;
    EXPECT_NEAR(DetCos(x), std::cos(x), 4e-16) << x;
  }
  for (int i = -2000; i <= 2000; ++i) {
    const double x = i * 0.01;  // [-20, 20]
    EXPECT_NEAR(DetExp(x) / std::exp(x), 1.0, 4e-16) << x;
  }
  for (int i = 1; i <= 5000; ++i) {
    const double x = i * 0.0173;
    EXPECT_NEAR(DetLog(x), std::log(x), 4e-16 * std::max(1.0, std::fabs(std::log(x)))) << x;
  }
  EXPECT_EQ(DetSin(0.0), 0.0);
  EXPECT_EQ(DetCos(0.0), 1.0);
  EXPECT_EQ(DetExp(0.0), 1.0);
  EXPECT_EQ(DetLog(1.0), 0.0);
  EXPECT_TRUE(std::isnan(DetLog(-1.0)));
}

// Golden bits: a change of the polynomials (or an FMA sneaking in) changes every dataset.
TEST(ShapesDetMath, GoldenBits) {
  EXPECT_EQ(DetSin(1.0), 0.8414709848078965);
  EXPECT_EQ(DetCos(2.5), -0.8011436155469337);
  EXPECT_EQ(DetExp(-1.5), 0.22313016014842982);
  EXPECT_EQ(DetLog(0.04), -3.2188758248682006);
}

}  // namespace
}  // namespace trainbench::shapes

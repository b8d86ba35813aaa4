#include "shapes/det_math.h"

#include <cmath>
#include <limits>

namespace trainbench::shapes {

namespace {

// pi/2 and ln 2 split into a high part with trailing zero bits and a low part (Cody-Waite), so
// that x - k * c loses nothing for the moderate k the callers need.
constexpr double kPio2Hi = 1.57079632673412561417e+00;
constexpr double kPio2Lo = 6.07710050650619224932e-11;
constexpr double kLn2Hi = 6.93147180369123816490e-01;
constexpr double kLn2Lo = 1.90821492927058770002e-10;
constexpr double kLn2 = 0.69314718055994530942;

// Taylor series on |r| <= pi/4, Horner form; the first omitted term is below 1e-17.
double SinPoly(double r) {
  const double r2 = r * r;
  double p = 1.0 / 1307674368000.0;  // 1/15!
  p = p * -r2 + 1.0 / 6227020800.0;  // 1/13!
  p = p * -r2 + 1.0 / 39916800.0;    // 1/11!
  p = p * -r2 + 1.0 / 362880.0;      // 1/9!
  p = p * -r2 + 1.0 / 5040.0;        // 1/7!
  p = p * -r2 + 1.0 / 120.0;         // 1/5!
  p = p * -r2 + 1.0 / 6.0;           // 1/3!
  return r - r * r2 * p;
}

double CosPoly(double r) {
  const double r2 = r * r;
  double p = 1.0 / 20922789888000.0;  // 1/16!
  p = p * -r2 + 1.0 / 87178291200.0;  // 1/14!
  p = p * -r2 + 1.0 / 479001600.0;    // 1/12!
  p = p * -r2 + 1.0 / 3628800.0;      // 1/10!
  p = p * -r2 + 1.0 / 40320.0;        // 1/8!
  p = p * -r2 + 1.0 / 720.0;          // 1/6!
  p = p * -r2 + 1.0 / 24.0;           // 1/4!
  p = p * -r2 + 0.5;                  // 1/2!
  return 1.0 - r2 * p;
}

// x = k * pi/2 + r with |r| <= pi/4 (nearbyint rounds to even in the default mode: exact).
double ReducePio2(double x, long long* k) {
  const double n = std::nearbyint(x * (2.0 / kPi));
  *k = static_cast<long long>(n);
  return (x - n * kPio2Hi) - n * kPio2Lo;
}

}  // namespace

double DetSin(double x) {
  long long k = 0;
  const double r = ReducePio2(x, &k);
  switch (k & 3) {
    case 0:
      return SinPoly(r);
    case 1:
      return CosPoly(r);
    case 2:
      return -SinPoly(r);
    default:
      return -CosPoly(r);
  }
}

double DetCos(double x) {
  long long k = 0;
  const double r = ReducePio2(x, &k);
  switch (k & 3) {
    case 0:
      return CosPoly(r);
    case 1:
      return -SinPoly(r);
    case 2:
      return -CosPoly(r);
    default:
      return SinPoly(r);
  }
}

double DetExp(double x) {
  if (x != x) return x;
  if (x > 709.0) return std::numeric_limits<double>::infinity();
  if (x < -745.0) return 0.0;
  const double n = std::nearbyint(x / kLn2);
  const double r = (x - n * kLn2Hi) - n * kLn2Lo;  // |r| <= ln2/2
  double p = 1.0;                                  // Taylor to r^14: error below 1e-18
  for (int i = 14; i >= 1; --i) p = 1.0 + p * r / i;
  return std::ldexp(p, static_cast<int>(n));  // exact scaling by 2^n
}

double DetLog(double x) {
  if (!(x > 0)) return std::numeric_limits<double>::quiet_NaN();
  if (x == std::numeric_limits<double>::infinity()) return x;
  int e = 0;
  double m = std::frexp(x, &e);  // exact: x = m * 2^e, m in [0.5, 1)
  if (m < 0.70710678118654752440) {
    m *= 2.0;
    --e;
  }
  // log m = 2 atanh(s), s = (m-1)/(m+1), |s| <= 0.1716: the series to s^23 is exact to 1e-19.
  const double s = (m - 1.0) / (m + 1.0), s2 = s * s;
  double p = 1.0 / 23.0;
  for (int i = 21; i >= 1; i -= 2) p = p * s2 + 1.0 / i;
  return e * kLn2Hi + (2.0 * s * p + e * kLn2Lo);
}

}  // namespace trainbench::shapes

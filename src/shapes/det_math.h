// Elementary functions that give the same bits on every IEEE-754 machine: sin, cos, exp and log
// written with plain double +, -, *, / (range reduction, then a fixed polynomial), so that the
// rendered dataset does not depend on the C library's libm (glibc picks different sin/cos code
// paths by CPU feature, other libms round differently). The library is compiled with
// -ffp-contract=off so that no compiler fuses a*b+c into an FMA (which rounds once, not twice).
// Accuracy: within a few ulp of the true value over the ranges the renderer uses (|x| < 1e4 for
// sin/cos, |x| < 700 for exp, x > 0 for log); that is all the renderer needs.
#pragma once

namespace trainbench::shapes {

inline constexpr double kPi = 3.14159265358979323846;

double DetSin(double x);
double DetCos(double x);
double DetExp(double x);
// Natural logarithm of x > 0 (x <= 0 gives NaN).
double DetLog(double x);

}  // namespace trainbench::shapes

// FusedAdam's element loop (fused_adam.h), kept apart from LibTorch so that its translation unit
// can be compiled with its own flags (-O3 -fno-math-errno: a vectorised loop with sqrt as an
// instruction) without the shared precompiled header. Its float arithmetic (coefficients rounded
// to float, a multiplication by 1 / sqrt(1 - beta2^t)) rounds differently from adam_update.h's
// tensor operations, so LazyAdam, whose results are those operations', does not use it.
#pragma once

#include <cstdint>

namespace trainbench::training {

struct AdamCoefficients {
  float b1, one_minus_b1, b2, one_minus_b2, inv_bc2_sqrt, eps, neg_step_size, wd;
};

// For i < n: g' = g + wd p; m = b1 m + (1 - b1) g'; v = b2 v + (1 - b2) g'^2;
// p += neg_step_size * m / (sqrt(v) * inv_bc2_sqrt + eps). Built for AVX-512, AVX2 and the base
// ISA; the loader picks the best the CPU has.
void AdamKernel(float* p, const float* g, float* m, float* v, int64_t n, const AdamCoefficients& c);

}  // namespace trainbench::training

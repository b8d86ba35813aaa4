#include "training/fused_adam_kernel.h"

#include <cmath>

namespace trainbench::training {

__attribute__((target_clones("avx512f", "avx2", "default"))) void AdamKernel(
    float* __restrict p, const float* __restrict g, float* __restrict m, float* __restrict v,
    int64_t n, const AdamCoefficients& c) {
  const AdamCoefficients k = c;  // by value: the stores below cannot alias it
  for (int64_t i = 0; i < n; ++i) {
    const float gi = g[i] + k.wd * p[i];
    const float mi = m[i] * k.b1 + k.one_minus_b1 * gi;
    const float vi = v[i] * k.b2 + k.one_minus_b2 * gi * gi;
    m[i] = mi;
    v[i] = vi;
    p[i] += k.neg_step_size * (mi / (std::sqrt(vi) * k.inv_bc2_sqrt + k.eps));
  }
}

}  // namespace trainbench::training

// The machine's measured GEMM peaks, for the bench programs' "fraction of peak" figures: a
// large square matrix product (2048^3, best of a few repetitions after a warm-up) in fp32 and
// bf16 on the CPU with the current intra-op thread count. Header-only, bench programs only.
#pragma once

#include <torch/torch.h>

#include <algorithm>
#include <chrono>

namespace trainbench::bench {

// GFLOP/s of torch::mm on n x n matrices of `dtype` (2 n^3 flops per product).
inline double MeasureGemmGflops(torch::ScalarType dtype, int64_t n = 2048, int reps = 5) {
  torch::NoGradGuard g;
  torch::Tensor a = torch::randn({n, n}).to(dtype), b = torch::randn({n, n}).to(dtype);
  torch::Tensor c = torch::mm(a, b);  // warm-up
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    c = torch::mm(a, b);
    best = std::min(best,
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return 2.0 * static_cast<double>(n) * n * n / best / 1e9;
}

struct GemmPeaks {
  double fp32 = 0, bf16 = 0;
};

inline GemmPeaks MeasureGemmPeaks() {
  return {MeasureGemmGflops(torch::kFloat32), MeasureGemmGflops(torch::kBFloat16)};
}

}  // namespace trainbench::bench

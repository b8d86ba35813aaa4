#include "models/lstm_cell_kernel.h"

#include <algorithm>
#include <cstring>

namespace trainbench::models {

namespace {

// exp(x) for x clamped to [-87, 87]: x = n ln2 + r, |r| <= ln2 / 2, exp(r) by the Cephes expf
// polynomial, 2^n through the exponent bits. The rounding to n adds and subtracts 1.5 * 2^23
// (no call to a rounding function, so the loop vectorises without SSE4.1).
inline float Exp(float x) {
  x = std::min(std::max(x, -87.0f), 87.0f);
  const float n = (x * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
  float r = x - n * 0.693359375f;
  r = r - n * -2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  const int32_t bits = (static_cast<int32_t>(n) + 127) << 23;
  float scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return p * scale;
}

inline float Sigmoid(float x) { return 1.0f / (1.0f + Exp(-x)); }
inline float Tanh(float x) { return 2.0f / (1.0f + Exp(-2.0f * x)) - 1.0f; }

// One row; restrict-qualified parameters, so that the compiler vectorises the loop over j.
__attribute__((always_inline)) inline void ForwardRow(float* __restrict gi, float* __restrict gf,
                                                      float* __restrict gg, float* __restrict go,
                                                      const float* __restrict cp,
                                                      float* __restrict cn, float* __restrict tc,
                                                      float* __restrict hn, int64_t H) {
  for (int64_t j = 0; j < H; ++j) {
    const float i = Sigmoid(gi[j]), f = Sigmoid(gf[j]), g = Tanh(gg[j]), o = Sigmoid(go[j]);
    gi[j] = i;
    gf[j] = f;
    gg[j] = g;
    go[j] = o;
    const float cv = f * cp[j] + i * g;
    const float t = Tanh(cv);
    cn[j] = cv;
    tc[j] = t;
    hn[j] = o * t;
  }
}

__attribute__((always_inline)) inline void BackwardRow(
    const float* __restrict ai, const float* __restrict af, const float* __restrict ag,
    const float* __restrict ao, const float* __restrict cp, const float* __restrict tc,
    const float* __restrict d, float* __restrict dcp, float* __restrict di, float* __restrict df,
    float* __restrict dg, float* __restrict dout, int64_t H) {
  for (int64_t j = 0; j < H; ++j) {
    const float i = ai[j], f = af[j], g = ag[j], o = ao[j];
    const float t = tc[j], dhv = d[j];
    const float dcv = dcp[j] + dhv * o * (1.0f - t * t);
    di[j] = dcv * g * i * (1.0f - i);
    df[j] = dcv * cp[j] * f * (1.0f - f);
    dg[j] = dcv * i * (1.0f - g * g);
    dout[j] = dhv * t * o * (1.0f - o);
    dcp[j] = dcv * f;
  }
}

}  // namespace

float LstmSigmoid(float x) { return Sigmoid(x); }
float LstmTanh(float x) { return Tanh(x); }

__attribute__((target_clones("avx512f", "avx2", "default"))) void LstmCellForward(
    float* gates, const float* c_prev, float* c, float* tanh_c, float* h, int64_t rows,
    int64_t hidden) {
  const int64_t H = hidden;
  for (int64_t b = 0; b < rows; ++b) {
    float* g = gates + b * 4 * H;
    ForwardRow(g, g + H, g + 2 * H, g + 3 * H, c_prev + b * H, c + b * H, tanh_c + b * H, h + b * H,
               H);
  }
}

__attribute__((target_clones("avx512f", "avx2", "default"))) void LstmCellBackward(
    const float* acts, const float* c_prev, const float* tanh_c, const float* dh, float* dc,
    float* dgates, int64_t rows, int64_t hidden) {
  const int64_t H = hidden;
  for (int64_t b = 0; b < rows; ++b) {
    const float* a = acts + b * 4 * H;
    float* d = dgates + b * 4 * H;
    BackwardRow(a, a + H, a + 2 * H, a + 3 * H, c_prev + b * H, tanh_c + b * H, dh + b * H,
                dc + b * H, d, d + H, d + 2 * H, d + 3 * H, H);
  }
}

}  // namespace trainbench::models

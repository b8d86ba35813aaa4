// The element loops of FusedLstmLayer (fused_lstm.h), kept apart from LibTorch so that their
// translation unit has its own flags (-O3 -fno-trapping-math; built for AVX-512, AVX2 and the
// base ISA, the loader picks the best the CPU has) without the shared precompiled header. The
// sigmoid and tanh use an exp of ~1e-7 relative error written in plain arithmetic, so that the
// compiler vectorises them (the C library's expf and tanhf are calls it cannot vectorise here).
#pragma once

#include <cstdint>

namespace trainbench::models {

// `rows` rows of one LSTM step, each row's gates [4H] contiguous and rows `gate_stride` floats
// apart, the [H] vectors rows H apart.
// Forward: gates hold the pre-activations (i, f, g, o) and receive the activations;
// c = f c_prev + i g, tanh_c = tanh(c), h = o tanh_c.
void LstmCellForward(float* gates, const float* c_prev, float* c, float* tanh_c, float* h,
                     int64_t rows, int64_t hidden);

// Backward, from the activations: dh is the gradient of this step's h; dc holds the gradient of
// this step's c from the next step and receives that of c_prev; dgates receives the gradients of
// the pre-activations.
void LstmCellBackward(const float* acts, const float* c_prev, const float* tanh_c, const float* dh,
                      float* dc, float* dgates, int64_t rows, int64_t hidden);

// The approximations, exposed for tests: |error| < 1e-6 for every float argument.
float LstmSigmoid(float x);
float LstmTanh(float x);

}  // namespace trainbench::models

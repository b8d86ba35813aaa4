// One LSTM layer (one direction) over a whole sequence as a single autograd node: the function
// torch::nn::LSTM computes for a layer (gates i, f, g, o in that order, sigmoid / tanh;
// c' = f c + i g, h' = o tanh(c')), computed as
//  - forward: one GEMM for the input projections of every step, then per step one GEMM with
//    W_hh and one fused pass over the gates;
//  - backward: per step one fused pass and one GEMM with W_hh, then one GEMM each for dW_ih,
//    dW_hh and dx over all steps at once.
// LibTorch's own CPU LSTM records ~12 autograd operators per step and layer; at GNMT mini's
// sizes (hidden 128, ~40 sentences) their dispatch costs more than their arithmetic.
// Always fp32, whatever the autocast state: the inputs are cast to fp32, the recurrent GEMMs are
// small and the cell state stays fp32. Any device: the pointwise passes are raw loops for fp32
// CPU tensors and ATen operators elsewhere (and for other dtypes, e.g. double in tests).
#pragma once

#include <torch/torch.h>

namespace trainbench::models {

struct LstmLayerOutput {
  torch::Tensor y;  // [B, T, H] batch-first outputs
  torch::Tensor h;  // [B, H] the state after the last step
  torch::Tensor c;  // [B, H]
};

// x [B, T, I] batch-first (T >= 1); h0, c0 [B, H] (undefined: zeros); w_ih [4H, I],
// w_hh [4H, H], b_ih and b_hh [4H] (torch::nn::LSTM's weight_ih_l0, ... layout). Differentiable
// in every tensor argument. Without grad mode nothing is kept for a backward pass.
LstmLayerOutput FusedLstmLayer(const torch::Tensor& x, const torch::Tensor& h0,
                               const torch::Tensor& c0, const torch::Tensor& w_ih,
                               const torch::Tensor& w_hh, const torch::Tensor& b_ih,
                               const torch::Tensor& b_hh);

// The same for the layer of `lstm` (a unidirectional or bidirectional torch::nn::LSTM with
// batch_first); suffix "" for the forward direction, "_reverse" for the backward one.
LstmLayerOutput FusedLstmLayer(torch::nn::LSTMImpl& lstm, const std::string& suffix,
                               const torch::Tensor& x, const torch::Tensor& h0 = {},
                               const torch::Tensor& c0 = {});

}  // namespace trainbench::models

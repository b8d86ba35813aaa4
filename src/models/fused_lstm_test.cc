#include "models/fused_lstm.h"

#include <ATen/autocast_mode.h>
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "models/lstm_cell_kernel.h"

namespace trainbench::models {
namespace {

double MaxDiff(const torch::Tensor& a, const torch::Tensor& b) {
  return (a - b).abs().max().item<double>();
}

struct Case {
  torch::nn::LSTM lstm{nullptr};
  torch::Tensor x, h0, c0, ry, rh, rc;  // inputs and the random weights of the loss
};

Case MakeCase(int64_t B, int64_t T, int64_t I, int64_t H, torch::Dtype dtype, uint64_t seed) {
  torch::manual_seed(seed);
  Case c;
  c.lstm = torch::nn::LSTM(torch::nn::LSTMOptions(I, H).batch_first(true));
  {
    torch::NoGradGuard g;
    for (auto& p : c.lstm->parameters())
      p.uniform_(-0.5, 0.5);  // biases non-zero, unlike the default of 0 for bias_hh
  }
  c.lstm->to(dtype);
  auto o = torch::TensorOptions().dtype(dtype);
  c.x = torch::randn({B, T, I}, o).requires_grad_();
  c.h0 = torch::randn({B, H}, o).mul_(0.5).requires_grad_();
  c.c0 = torch::randn({B, H}, o).mul_(0.5).requires_grad_();
  c.ry = torch::randn({B, T, H}, o);
  c.rh = torch::randn({B, H}, o);
  c.rc = torch::randn({B, H}, o);
  return c;
}

struct Result {
  torch::Tensor y, h, c;
  std::vector<torch::Tensor> grads;  // x, h0, c0, then the LSTM's parameters in order
};

Result Backward(Case& c, const torch::Tensor& y, const torch::Tensor& h,
                const torch::Tensor& cell) {
  for (torch::Tensor t : {c.x, c.h0, c.c0}) t.mutable_grad() = torch::Tensor();
  c.lstm->zero_grad();
  ((y * c.ry).sum() + (h * c.rh).sum() + (cell * c.rc).sum()).backward();
  Result r{y.detach(), h.detach(), cell.detach(), {}};
  for (const torch::Tensor& t : {c.x, c.h0, c.c0}) r.grads.push_back(t.grad().clone());
  for (const auto& p : c.lstm->parameters()) r.grads.push_back(p.grad().clone());
  return r;
}

Result Reference(Case& c) {
  auto [y, hc] = c.lstm->forward(c.x, std::make_tuple(c.h0.unsqueeze(0), c.c0.unsqueeze(0)));
  return Backward(c, y, std::get<0>(hc).squeeze(0), std::get<1>(hc).squeeze(0));
}

Result Fused(Case& c) {
  LstmLayerOutput o = FusedLstmLayer(*c.lstm, "", c.x, c.h0, c.c0);
  return Backward(c, o.y, o.h, o.c);
}

void ExpectSame(const Result& a, const Result& b, double tol) {
  EXPECT_LT(MaxDiff(a.y, b.y), tol);
  EXPECT_LT(MaxDiff(a.h, b.h), tol);
  EXPECT_LT(MaxDiff(a.c, b.c), tol);
  ASSERT_EQ(a.grads.size(), b.grads.size());
  const char* names[] = {"x", "h0", "c0", "weight_ih", "weight_hh", "bias_ih", "bias_hh"};
  for (size_t i = 0; i < a.grads.size(); ++i) {
    ASSERT_EQ(a.grads[i].sizes(), b.grads[i].sizes()) << names[i];
    EXPECT_LT(MaxDiff(a.grads[i], b.grads[i]), tol * (1 + a.grads[i].abs().max().item<double>()))
        << "gradient of " << names[i];
  }
}

TEST(FusedLstm, SigmoidAndTanhApproximations) {
  double worst_s = 0, worst_t = 0;
  for (float x = -100.0f; x <= 100.0f;
       x += 0.001953125f) {  // 2^-9 steps, every exponent range of interest
    worst_s = std::max(worst_s,
                       std::abs(LstmSigmoid(x) - 1.0 / (1.0 + std::exp(-static_cast<double>(x)))));
    worst_t = std::max(worst_t, std::abs(LstmTanh(x) - std::tanh(static_cast<double>(x))));
  }
  for (float x : {1e-30f, -1e-30f, 1e-6f, -3e-5f, 0.0f, 1e30f, -1e30f}) {
    worst_s = std::max(worst_s,
                       std::abs(LstmSigmoid(x) - 1.0 / (1.0 + std::exp(-static_cast<double>(x)))));
    worst_t = std::max(worst_t, std::abs(LstmTanh(x) - std::tanh(static_cast<double>(x))));
  }
  EXPECT_LT(worst_s, 1e-6);
  EXPECT_LT(worst_t, 1e-6);
  EXPECT_TRUE(std::isnan(LstmTanh(std::nanf(""))));  // a diverged run stays visible
}

TEST(FusedLstm, MatchesTorchLstmInFp32) {  // the raw-loop path
  Case c = MakeCase(3, 7, 6, 5, torch::kFloat, 1);
  ExpectSame(Reference(c), Fused(c), 2e-5);
}

TEST(FusedLstm, MatchesTorchLstmInDouble) {  // the ATen-operator path (what other devices use)
  Case c = MakeCase(4, 5, 3, 6, torch::kDouble, 2);
  ExpectSame(Reference(c), Fused(c), 1e-10);
}

TEST(FusedLstm, OneStepAndZeroStates) {
  Case c = MakeCase(2, 1, 4, 3, torch::kFloat, 3);
  ExpectSame(Reference(c), Fused(c), 2e-5);
  torch::NoGradGuard g;
  auto [y, hc] = c.lstm->forward(c.x);  // no states: zeros
  LstmLayerOutput o = FusedLstmLayer(*c.lstm, "", c.x);
  EXPECT_LT(MaxDiff(o.y, y), 1e-6);
  EXPECT_LT(MaxDiff(o.c, std::get<1>(hc).squeeze(0)), 1e-6);
  EXPECT_FALSE(o.y.requires_grad());  // without grad mode nothing is recorded
}

TEST(FusedLstm, ReverseDirectionOfABidirectionalLstm) {
  torch::manual_seed(4);
  torch::nn::LSTM bi(torch::nn::LSTMOptions(3, 4).batch_first(true).bidirectional(true));
  torch::Tensor x = torch::randn({2, 6, 3});
  torch::NoGradGuard g;
  torch::Tensor want = std::get<0>(bi->forward(x));  // [2, 6, 8]: forward then backward direction
  torch::Tensor fwd = FusedLstmLayer(*bi, "", x).y;
  torch::Tensor bwd = FusedLstmLayer(*bi, "_reverse", x.flip(1)).y.flip(1);
  EXPECT_LT(MaxDiff(torch::cat({fwd, bwd}, 2), want), 1e-6);
}

TEST(FusedLstm, StaysFp32UnderBf16Autocast) {
  Case c = MakeCase(3, 4, 5, 6, torch::kFloat, 5);
  const torch::Tensor xr =
      c.x.detach().to(torch::kBFloat16).to(torch::kFloat);  // what a bf16 producer would hand it
  torch::Tensor want;
  {
    torch::NoGradGuard g;
    want = FusedLstmLayer(*c.lstm, "", xr, c.h0, c.c0).y;
  }
  const bool was = at::autocast::is_cpu_enabled();
  const auto was_dtype = at::autocast::get_autocast_cpu_dtype();
  at::autocast::set_cpu_enabled(true);
  at::autocast::set_autocast_cpu_dtype(torch::kBFloat16);
  const torch::Tensor probe =
      torch::mm(torch::ones({2, 2}), torch::ones({2, 2}));  // shows autocast is on
  const torch::Tensor with_grad =
      FusedLstmLayer(*c.lstm, "", xr.to(torch::kBFloat16), c.h0, c.c0).y;
  torch::Tensor without_grad;
  {
    torch::NoGradGuard g;
    without_grad = FusedLstmLayer(*c.lstm, "", xr.to(torch::kBFloat16), c.h0, c.c0).y;
  }
  at::autocast::set_cpu_enabled(was);
  at::autocast::set_autocast_cpu_dtype(was_dtype);
  at::autocast::clear_cache();
  EXPECT_EQ(probe.scalar_type(), torch::kBFloat16);
  EXPECT_EQ(with_grad.scalar_type(), torch::kFloat);
  EXPECT_TRUE(with_grad.requires_grad());
  EXPECT_EQ(MaxDiff(with_grad, want), 0.0);  // the arithmetic stayed fp32: bitwise what fp32 gives
  EXPECT_EQ(MaxDiff(without_grad, want), 0.0);
}

TEST(FusedLstm, RejectsBadShapes) {
  Case c = MakeCase(2, 3, 4, 5, torch::kFloat, 6);
  EXPECT_THROW(FusedLstmLayer(*c.lstm, "", torch::randn({2, 3, 7})),
               std::invalid_argument);  // input width
  EXPECT_THROW(FusedLstmLayer(*c.lstm, "", torch::randn({2, 0, 4})),
               std::invalid_argument);  // no step
  EXPECT_THROW(FusedLstmLayer(*c.lstm, "", c.x, torch::zeros({3, 5})),
               std::invalid_argument);  // h0 batch
  EXPECT_THROW(FusedLstmLayer(*c.lstm, "_reverse", c.x),
               std::invalid_argument);  // not bidirectional
}

}  // namespace
}  // namespace trainbench::models

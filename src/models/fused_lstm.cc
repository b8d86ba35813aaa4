#include "models/fused_lstm.h"

#include <ATen/Parallel.h>
#include <c10/core/impl/LocalDispatchKeySet.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "models/lstm_cell_kernel.h"

namespace trainbench::models {

namespace {

using torch::Tensor;

// Rows per parallel task: small batches (GNMT mini) run inline, large ones split across threads.
int64_t Grain(int64_t hidden) { return std::max<int64_t>(1, 16384 / std::max<int64_t>(1, hidden)); }

bool FastPath(const Tensor& t) { return t.device().is_cpu() && t.scalar_type() == torch::kFloat; }

// gates [B, 4H]: pre-activations in, activations (i, f, g, o) out. c_prev [B, H]; c, tanh_c and
// h [B, H] are written. Every tensor contiguous.
void CellForward(Tensor gates, const Tensor& c_prev, Tensor c, Tensor tanh_c, Tensor h) {
  const int64_t B = gates.size(0), H = c_prev.size(1);
  if (FastPath(gates)) {
    float* g = gates.data_ptr<float>();
    const float* cp = c_prev.data_ptr<float>();
    float* cn = c.data_ptr<float>();
    float* tc = tanh_c.data_ptr<float>();
    float* hn = h.data_ptr<float>();
    at::parallel_for(0, B, Grain(H), [&](int64_t b0, int64_t b1) {
      LstmCellForward(g + b0 * 4 * H, cp + b0 * H, cn + b0 * H, tc + b0 * H, hn + b0 * H, b1 - b0,
                      H);
    });
    return;
  }
  auto ch = gates.chunk(4, 1);
  ch[0].sigmoid_();
  ch[1].sigmoid_();
  ch[2].tanh_();
  ch[3].sigmoid_();
  c.copy_(ch[1] * c_prev + ch[0] * ch[2]);
  tanh_c.copy_(torch::tanh(c));
  h.copy_(ch[3] * tanh_c);
}

// One step backward. acts [B, 4H] (i, f, g, o); c_prev, tanh_c [B, H]; dh [B, H] the gradient
// of this step's h (output plus recurrent); dc [B, H] in: the gradient of this step's c from the
// next step, out: the gradient of c_prev. dgates [B, 4H] written (pre-activation gradients).
void CellBackward(const Tensor& acts, const Tensor& c_prev, const Tensor& tanh_c, const Tensor& dh,
                  Tensor dc, Tensor dgates) {
  const int64_t B = acts.size(0), H = c_prev.size(1);
  if (FastPath(acts)) {
    const float* a = acts.data_ptr<float>();
    const float* cp = c_prev.data_ptr<float>();
    const float* tc = tanh_c.data_ptr<float>();
    const float* dhp = dh.data_ptr<float>();
    float* dcp = dc.data_ptr<float>();
    float* dg = dgates.data_ptr<float>();
    at::parallel_for(0, B, Grain(H), [&](int64_t b0, int64_t b1) {
      LstmCellBackward(a + b0 * 4 * H, cp + b0 * H, tc + b0 * H, dhp + b0 * H, dcp + b0 * H,
                       dg + b0 * 4 * H, b1 - b0, H);
    });
    return;
  }
  auto ch = acts.chunk(4, 1);
  const Tensor &i = ch[0], &f = ch[1], &g = ch[2], &o = ch[3];
  Tensor dcv = dc + dh * o * (1 - tanh_c * tanh_c);
  auto dch = dgates.chunk(4, 1);
  dch[0].copy_(dcv * g * i * (1 - i));
  dch[1].copy_(dcv * c_prev * f * (1 - f));
  dch[2].copy_(dcv * i * (1 - g * g));
  dch[3].copy_(dh * tanh_c * o * (1 - o));
  dc.copy_(dcv * f);
}

struct Forward {
  Tensor acts, cs, tcs, y;  // time-major: [T, B, 4H], [T, B, H] x 3
};

// x_tm [T, B, I] contiguous; h0, c0 [B, H].
Forward RunForward(const Tensor& x_tm, const Tensor& h0, const Tensor& c0, const Tensor& w_ih,
                   const Tensor& w_hh, const Tensor& b_ih, const Tensor& b_hh) {
  const int64_t T = x_tm.size(0), B = x_tm.size(1), I = x_tm.size(2), H = w_hh.size(1);
  Forward f;
  // Input projections of every step at once, both biases folded in.
  f.acts = torch::addmm(b_ih + b_hh, x_tm.reshape({T * B, I}), w_ih.t()).view({T, B, 4 * H});
  f.cs = torch::empty({T, B, H}, x_tm.options());
  f.tcs = torch::empty({T, B, H}, x_tm.options());
  f.y = torch::empty({T, B, H}, x_tm.options());
  const Tensor w_hh_t = w_hh.t();
  for (int64_t t = 0; t < T; ++t) {
    const Tensor h_prev = t == 0 ? h0 : f.y[t - 1];
    const Tensor c_prev = t == 0 ? c0 : f.cs[t - 1];
    Tensor gates = f.acts[t];
    gates.addmm_(h_prev, w_hh_t);
    CellForward(gates, c_prev, f.cs[t], f.tcs[t], f.y[t]);
  }
  return f;
}

// The layer's outputs from its time-major forward pass: y batch-first, the last step's h and c.
LstmLayerOutput Outputs(const Forward& f) {
  const int64_t T = f.y.size(0);
  return {f.y.transpose(0, 1).contiguous(), f.y[T - 1].clone(), f.cs[T - 1].clone()};
}

// Runs with autocast off: this layer is fp32 by design.
struct NoAutocast {
  c10::impl::ExcludeDispatchKeyGuard guard{c10::autocast_dispatch_keyset};
};

class FusedLstmFunction : public torch::autograd::Function<FusedLstmFunction> {
 public:
  static torch::autograd::variable_list forward(torch::autograd::AutogradContext* ctx,
                                                const Tensor& x, const Tensor& h0, const Tensor& c0,
                                                const Tensor& w_ih, const Tensor& w_hh,
                                                const Tensor& b_ih, const Tensor& b_hh) {
    NoAutocast no_autocast;
    const Tensor x_tm = x.transpose(0, 1).contiguous();
    Forward f = RunForward(x_tm, h0, c0, w_ih, w_hh, b_ih, b_hh);
    ctx->save_for_backward({x_tm, h0, c0, w_ih, w_hh, f.acts, f.cs, f.tcs, f.y});
    LstmLayerOutput out = Outputs(f);
    return {out.y, out.h, out.c};
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    NoAutocast no_autocast;
    const auto saved = ctx->get_saved_variables();
    const Tensor &x_tm = saved[0], &h0 = saved[1], &c0 = saved[2], &w_ih = saved[3],
                 &w_hh = saved[4], &acts = saved[5], &cs = saved[6], &tcs = saved[7], &y = saved[8];
    const int64_t T = x_tm.size(0), B = x_tm.size(1), I = x_tm.size(2), H = w_hh.size(1);
    const Tensor dy = grads[0].defined() ? grads[0].transpose(0, 1).contiguous()
                                         : torch::zeros({T, B, H}, y.options());
    Tensor dh = grads[1].defined() ? grads[1].clone(at::MemoryFormat::Contiguous)
                                   : torch::zeros({B, H}, y.options());
    Tensor dc = grads[2].defined() ? grads[2].clone(at::MemoryFormat::Contiguous)
                                   : torch::zeros({B, H}, y.options());
    Tensor dgates = torch::empty({T, B, 4 * H}, y.options());
    for (int64_t t = T - 1; t >= 0; --t) {
      dh.add_(dy[t]);
      CellBackward(acts[t], t == 0 ? c0 : cs[t - 1], tcs[t], dh, dc, dgates[t]);
      dh = torch::mm(dgates[t], w_hh);
    }
    const Tensor dg2 = dgates.view({T * B, 4 * H});
    const Tensor h_prev =
        T > 1 ? torch::cat({h0.unsqueeze(0), y.narrow(0, 0, T - 1)}, 0) : h0.unsqueeze(0);
    Tensor dw_hh = torch::mm(dg2.t(), h_prev.reshape({T * B, H}));
    Tensor dw_ih = torch::mm(dg2.t(), x_tm.view({T * B, I}));
    Tensor db = dg2.sum(0);
    Tensor dx = torch::mm(dg2, w_ih).view({T, B, I}).transpose(0, 1);
    return {dx, dh, dc, dw_ih, dw_hh, db, db.clone()};
  }
};

}  // namespace

LstmLayerOutput FusedLstmLayer(const Tensor& x, const Tensor& h0, const Tensor& c0,
                               const Tensor& w_ih, const Tensor& w_hh, const Tensor& b_ih,
                               const Tensor& b_hh) {
  if (x.dim() != 3 || x.size(1) < 1)
    throw std::invalid_argument("FusedLstmLayer: x must be [B, T >= 1, I]");
  const int64_t B = x.size(0), H = w_hh.size(1);
  if (w_hh.dim() != 2 || w_hh.size(0) != 4 * H || w_ih.dim() != 2 || w_ih.size(0) != 4 * H ||
      w_ih.size(1) != x.size(2) || b_ih.numel() != 4 * H || b_hh.numel() != 4 * H) {
    throw std::invalid_argument(
        "FusedLstmLayer: weights must be w_ih [4H, I], w_hh [4H, H], biases [4H] for x [B, T, I]");
  }
  // fp32 master weights stay fp32; bf16 activations from autocast regions become fp32 here.
  const auto dtype = w_hh.scalar_type();
  const auto opts = w_hh.options();
  auto state = [&](const Tensor& s) {
    if (!s.defined()) return torch::zeros({B, H}, opts);
    if (s.sizes() != torch::IntArrayRef({B, H}))
      throw std::invalid_argument("FusedLstmLayer: h0 and c0 must be [B, H]");
    return s.to(dtype).contiguous();
  };
  Tensor xin = x.to(dtype), h = state(h0), c = state(c0);
  Tensor wi = w_ih.contiguous(), wh = w_hh.contiguous(), bi = b_ih.to(dtype), bh = b_hh.to(dtype);
  if (!torch::GradMode::is_enabled()) {
    NoAutocast no_autocast;
    return Outputs(RunForward(xin.transpose(0, 1).contiguous(), h, c, wi, wh, bi, bh));
  }
  auto out = FusedLstmFunction::apply(xin, h, c, wi, wh, bi, bh);
  return {out[0], out[1], out[2]};
}

LstmLayerOutput FusedLstmLayer(torch::nn::LSTMImpl& lstm, const std::string& suffix,
                               const Tensor& x, const Tensor& h0, const Tensor& c0) {
  if (!lstm.options.batch_first() || lstm.options.num_layers() != 1 || !lstm.options.bias() ||
      lstm.options.proj_size() != 0) {
    throw std::invalid_argument(
        "FusedLstmLayer: needs a one-layer batch-first LSTM with biases and no projection");
  }
  const auto p = lstm.named_parameters(/*recurse=*/false);
  auto get = [&](const std::string& name) {
    const Tensor* t = p.find(name + "_l0" + suffix);
    if (!t)
      throw std::invalid_argument("FusedLstmLayer: the LSTM has no parameter " + name + "_l0" +
                                  suffix);
    return *t;
  };
  return FusedLstmLayer(x, h0, c0, get("weight_ih"), get("weight_hh"), get("bias_ih"),
                        get("bias_hh"));
}

}  // namespace trainbench::models

#include "models/transformer.h"

#include <cmath>
#include <stdexcept>

namespace trainbench::models {

namespace F = torch::nn::functional;

namespace {

torch::nn::Linear XavierLinear(int64_t in, int64_t out) {
  torch::nn::Linear l(in, out);
  torch::NoGradGuard g;
  torch::nn::init::xavier_uniform_(l->weight);
  torch::nn::init::zeros_(l->bias);
  return l;
}

torch::nn::LayerNorm Norm(int64_t d) {
  return torch::nn::LayerNorm(torch::nn::LayerNormOptions({d}));
}

}  // namespace

TransformerOptions TransformerBigOptions(int64_t vocab_size) {
  return TransformerOptions(vocab_size)
      .d_model(1024)
      .heads(16)
      .ffn_dim(4096)
      .encoder_layers(6)
      .decoder_layers(6)
      .dropout(0.1);
}

// ---- attention ----

MultiHeadAttentionImpl::MultiHeadAttentionImpl(int64_t d_model, int64_t heads, double dropout,
                                               bool self_attention)
    : d_model_(d_model), heads_(heads), dropout_(dropout) {
  if (heads < 1 || d_model % heads != 0)
    throw std::invalid_argument("MultiHeadAttention: d_model must be a multiple of heads");
  if (self_attention) {
    // One projection for q, k and v: rows [0, d) are q, [d, 3d) are k and v.
    q_proj = register_module("qkv_proj", XavierLinear(d_model, 3 * d_model));
  } else {
    q_proj = register_module("q_proj", XavierLinear(d_model, d_model));
    kv_proj = register_module("kv_proj", XavierLinear(d_model, 2 * d_model));
  }
  out_proj = register_module("out_proj", XavierLinear(d_model, d_model));
}

torch::Tensor MultiHeadAttentionImpl::SplitHeads(const torch::Tensor& x) const {
  return x.view({x.size(0), x.size(1), heads_, d_model_ / heads_}).transpose(1, 2);
}

std::pair<torch::Tensor, torch::Tensor> MultiHeadAttentionImpl::KeysValues(const torch::Tensor& x) {
  torch::Tensor kv;
  if (kv_proj) {
    kv = kv_proj(x);
  } else {
    // The k and v rows of the fused self-attention projection.
    kv = torch::nn::functional::linear(x, q_proj->weight.slice(0, d_model_),
                                       q_proj->bias.slice(0, d_model_));
  }
  auto parts = kv.chunk(2, -1);
  return {SplitHeads(parts[0]), SplitHeads(parts[1])};
}

torch::Tensor MultiHeadAttentionImpl::Attend(const torch::Tensor& query, const torch::Tensor& k,
                                             const torch::Tensor& v, const torch::Tensor& key_pad,
                                             bool causal, torch::Tensor* weights) {
  torch::Tensor q;
  if (kv_proj) {
    q = q_proj(query);
  } else {
    q = torch::nn::functional::linear(query, q_proj->weight.slice(0, 0, d_model_),
                                      q_proj->bias.slice(0, 0, d_model_));
  }
  const int64_t dh = d_model_ / heads_;
  q = SplitHeads(q) * (1.0 / std::sqrt(static_cast<double>(dh)));
  torch::Tensor scores = torch::matmul(q, k.transpose(-2, -1));  // [B, H, T, S]
  if (key_pad.defined()) scores = scores.masked_fill(key_pad.unsqueeze(1).unsqueeze(2), -INFINITY);
  if (causal) {
    const int64_t t = scores.size(2), s = scores.size(3);
    torch::Tensor future =
        torch::ones({t, s}, torch::TensorOptions().dtype(torch::kBool).device(scores.device()))
            .triu(1 + s - t);
    scores = scores.masked_fill(future, -INFINITY);
  }
  torch::Tensor p = torch::softmax(scores, -1);
  if (weights) *weights = p.mean(1);
  p = F::dropout(p, F::DropoutFuncOptions().p(dropout_).training(is_training()));
  torch::Tensor out =
      torch::matmul(p, v).transpose(1, 2).reshape({query.size(0), query.size(1), d_model_});
  return out_proj(out);
}

torch::Tensor MultiHeadAttentionImpl::SelfAttend(const torch::Tensor& x,
                                                 const torch::Tensor& key_pad, bool causal) {
  torch::Tensor qkv = q_proj(x);
  auto parts = qkv.chunk(3, -1);
  const int64_t dh = d_model_ / heads_;
  torch::Tensor q = SplitHeads(parts[0]) * (1.0 / std::sqrt(static_cast<double>(dh)));
  torch::Tensor k = SplitHeads(parts[1]), v = SplitHeads(parts[2]);
  torch::Tensor scores = torch::matmul(q, k.transpose(-2, -1));
  if (key_pad.defined()) scores = scores.masked_fill(key_pad.unsqueeze(1).unsqueeze(2), -INFINITY);
  if (causal) {
    const int64_t t = scores.size(2);
    torch::Tensor future =
        torch::ones({t, t}, torch::TensorOptions().dtype(torch::kBool).device(scores.device()))
            .triu(1);
    scores = scores.masked_fill(future, -INFINITY);
  }
  torch::Tensor p = torch::softmax(scores, -1);
  p = F::dropout(p, F::DropoutFuncOptions().p(dropout_).training(is_training()));
  torch::Tensor out = torch::matmul(p, v).transpose(1, 2).reshape({x.size(0), x.size(1), d_model_});
  return out_proj(out);
}

// ---- layers ----

TransformerEncoderLayerImpl::TransformerEncoderLayerImpl(const TransformerOptions& o)
    : dropout_(o.dropout()), relu_dropout_(o.relu_dropout()) {
  self_attn = register_module(
      "self_attn", MultiHeadAttention(o.d_model(), o.heads(), o.attention_dropout(), true));
  self_attn_norm = register_module("self_attn_norm", Norm(o.d_model()));
  ffn_norm = register_module("ffn_norm", Norm(o.d_model()));
  fc1 = register_module("fc1", XavierLinear(o.d_model(), o.ffn_dim()));
  fc2 = register_module("fc2", XavierLinear(o.ffn_dim(), o.d_model()));
}

torch::Tensor TransformerEncoderLayerImpl::forward(const torch::Tensor& x_in,
                                                   const torch::Tensor& key_pad) {
  auto drop = [&](const torch::Tensor& t, double p) {
    return F::dropout(t, F::DropoutFuncOptions().p(p).training(is_training()));
  };
  torch::Tensor x =
      x_in + drop(self_attn->SelfAttend(self_attn_norm(x_in), key_pad, false), dropout_);
  torch::Tensor h = drop(torch::relu(fc1(ffn_norm(x))), relu_dropout_);
  return x + drop(fc2(h), dropout_);
}

TransformerDecoderLayerImpl::TransformerDecoderLayerImpl(const TransformerOptions& o)
    : dropout_(o.dropout()), relu_dropout_(o.relu_dropout()) {
  self_attn = register_module(
      "self_attn", MultiHeadAttention(o.d_model(), o.heads(), o.attention_dropout(), true));
  cross_attn = register_module(
      "cross_attn", MultiHeadAttention(o.d_model(), o.heads(), o.attention_dropout(), false));
  self_attn_norm = register_module("self_attn_norm", Norm(o.d_model()));
  cross_attn_norm = register_module("cross_attn_norm", Norm(o.d_model()));
  ffn_norm = register_module("ffn_norm", Norm(o.d_model()));
  fc1 = register_module("fc1", XavierLinear(o.d_model(), o.ffn_dim()));
  fc2 = register_module("fc2", XavierLinear(o.ffn_dim(), o.d_model()));
}

torch::Tensor TransformerDecoderLayerImpl::Ffn(const torch::Tensor& x) {
  auto drop = [&](const torch::Tensor& t, double p) {
    return F::dropout(t, F::DropoutFuncOptions().p(p).training(is_training()));
  };
  torch::Tensor h = drop(torch::relu(fc1(ffn_norm(x))), relu_dropout_);
  return x + drop(fc2(h), dropout_);
}

torch::Tensor TransformerDecoderLayerImpl::forward(const torch::Tensor& x_in,
                                                   const torch::Tensor& enc_k,
                                                   const torch::Tensor& enc_v,
                                                   const torch::Tensor& src_pad) {
  auto drop = [&](const torch::Tensor& t) {
    return F::dropout(t, F::DropoutFuncOptions().p(dropout_).training(is_training()));
  };
  torch::Tensor x = x_in + drop(self_attn->SelfAttend(self_attn_norm(x_in), torch::Tensor(), true));
  x = x + drop(cross_attn->Attend(cross_attn_norm(x), enc_k, enc_v, src_pad, false));
  return Ffn(x);
}

torch::Tensor TransformerDecoderLayerImpl::StepForward(const torch::Tensor& x_in,
                                                       torch::Tensor& self_k, torch::Tensor& self_v,
                                                       const torch::Tensor& enc_k,
                                                       const torch::Tensor& enc_v,
                                                       const torch::Tensor& src_pad) {
  torch::Tensor h = self_attn_norm(x_in);
  auto [k, v] = self_attn->KeysValues(h);
  self_k = self_k.defined() ? torch::cat({self_k, k}, 2) : k;
  self_v = self_v.defined() ? torch::cat({self_v, v}, 2) : v;
  torch::Tensor x = x_in + self_attn->Attend(h, self_k, self_v, torch::Tensor(), false);
  x = x + cross_attn->Attend(cross_attn_norm(x), enc_k, enc_v, src_pad, false);
  return Ffn(x);
}

// ---- the model ----

TransformerImpl::TransformerImpl(const TransformerOptions& o) : options_(o) {
  if (o.vocab_size() < 4 || o.d_model() < 2 || o.d_model() % 2 != 0 || o.encoder_layers() < 1 ||
      o.decoder_layers() < 1) {
    throw std::invalid_argument(
        "Transformer: vocab_size >= 4, an even d_model and >= 1 layer per stack are required");
  }
  embed = register_module(
      "embed", torch::nn::Embedding(
                   torch::nn::EmbeddingOptions(o.vocab_size(), o.d_model()).padding_idx(kPadId)));
  {
    torch::NoGradGuard g;
    embed->weight.normal_(0.0, 1.0 / std::sqrt(static_cast<double>(o.d_model())));
    embed->weight[kPadId].zero_();
  }
  encoder = register_module("encoder", torch::nn::ModuleList());
  for (int64_t i = 0; i < o.encoder_layers(); ++i) encoder->push_back(TransformerEncoderLayer(o));
  decoder = register_module("decoder", torch::nn::ModuleList());
  for (int64_t i = 0; i < o.decoder_layers(); ++i) decoder->push_back(TransformerDecoderLayer(o));
  encoder_norm = register_module("encoder_norm", Norm(o.d_model()));
  decoder_norm = register_module("decoder_norm", Norm(o.d_model()));
  // Sinusoids as tensor2tensor's get_timing_signal / fairseq's SinusoidalPositionalEmbedding:
  // sin in the first half of the channels, cos in the second.
  const int64_t half = o.d_model() / 2;
  torch::Tensor pos = torch::arange(o.max_positions(), torch::kFloat).unsqueeze(1);
  torch::Tensor inv =
      torch::exp(torch::arange(half, torch::kFloat) *
                 (-std::log(10000.0) / static_cast<double>(std::max<int64_t>(1, half - 1))));
  torch::Tensor ang = pos * inv.unsqueeze(0);
  positions_ = register_buffer("positions", torch::cat({torch::sin(ang), torch::cos(ang)}, 1));
}

torch::Tensor TransformerImpl::Embed(const torch::Tensor& tokens, int64_t offset) {
  const int64_t t = tokens.size(1);
  if (offset + t > options_.max_positions()) {
    throw std::invalid_argument("Transformer: sequence of " + std::to_string(offset + t) +
                                " positions exceeds max_positions " +
                                std::to_string(options_.max_positions()));
  }
  torch::Tensor x = embed(tokens) * std::sqrt(static_cast<double>(options_.d_model())) +
                    positions_.slice(0, offset, offset + t).unsqueeze(0);
  return F::dropout(x, F::DropoutFuncOptions().p(options_.dropout()).training(is_training()));
}

torch::Tensor TransformerImpl::Encode(const torch::Tensor& src) {
  torch::Tensor pad = src.eq(kPadId);
  torch::Tensor x = Embed(src, 0);
  for (const auto& m : *encoder) x = m->as<TransformerEncoderLayer>()->forward(x, pad);
  return encoder_norm(x);
}

torch::Tensor TransformerImpl::Logits(const torch::Tensor& src, const torch::Tensor& tgt_in) {
  torch::Tensor enc = Encode(src);
  torch::Tensor pad = src.eq(kPadId);
  torch::Tensor x = Embed(tgt_in, 0);
  for (const auto& m : *decoder) {
    auto* layer = m->as<TransformerDecoderLayer>();
    auto [k, v] = layer->cross_attn->KeysValues(enc);
    x = layer->forward(x, k, v, pad);
  }
  return torch::matmul(decoder_norm(x), embed->weight.t());
}

namespace {

struct TransformerState : DecoderState {
  std::vector<torch::Tensor> self_k, self_v, enc_k, enc_v;
  torch::Tensor src_pad;  // [N, S]
  int64_t step = 0;
  torch::Tensor group;  // [N]: the sentence of each row's encoder side
  void Select(const torch::Tensor& index) override {
    for (auto* list : {&self_k, &self_v}) {
      for (auto& t : *list) {
        if (t.defined()) t = t.index_select(0, index);
      }
    }
    // The encoder side is the same for every row of a sentence: when every row keeps its
    // sentence (as beam search reorders), it is already right and is not copied.
    torch::Tensor new_group = group.index_select(0, index);
    if (index.size(0) == group.size(0) && torch::equal(new_group, group)) return;
    for (auto* list : {&enc_k, &enc_v}) {
      for (auto& t : *list) t = t.index_select(0, index);
    }
    src_pad = src_pad.index_select(0, index);
    group = new_group;
  }
};

}  // namespace

std::unique_ptr<DecoderState> TransformerImpl::StartDecoding(const torch::Tensor& src,
                                                             int64_t beam) {
  auto s = std::make_unique<TransformerState>();
  torch::Tensor enc = Encode(src);
  torch::Tensor rows =
      torch::arange(src.size(0), torch::TensorOptions().dtype(torch::kInt64).device(src.device()))
          .repeat_interleave(beam);
  enc = enc.index_select(0, rows);
  s->src_pad = src.eq(kPadId).index_select(0, rows);
  s->group = rows;
  for (const auto& m : *decoder) {
    auto [k, v] = m->as<TransformerDecoderLayer>()->cross_attn->KeysValues(enc);
    s->enc_k.push_back(k);
    s->enc_v.push_back(v);
    s->self_k.emplace_back();
    s->self_v.emplace_back();
  }
  return s;
}

DecodeStep TransformerImpl::Step(DecoderState& state, const torch::Tensor& tokens) {
  auto& s = static_cast<TransformerState&>(state);
  torch::Tensor x = Embed(tokens.unsqueeze(1), s.step);
  size_t i = 0;
  for (const auto& m : *decoder) {
    x = m->as<TransformerDecoderLayer>()->StepForward(x, s.self_k[i], s.self_v[i], s.enc_k[i],
                                                      s.enc_v[i], s.src_pad);
    ++i;
  }
  ++s.step;
  torch::Tensor logits = torch::matmul(decoder_norm(x.squeeze(1)), embed->weight.t());
  return {torch::log_softmax(logits.to(torch::kFloat), -1), torch::Tensor()};
}

}  // namespace trainbench::models

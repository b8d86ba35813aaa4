#include "models/gnmt.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace trainbench::models {

namespace F = torch::nn::functional;

namespace {

// The reference's init_lstm_: weights and the input-hidden bias uniform(-w, w), the
// hidden-hidden bias zero (both directions).
torch::nn::LSTM UniformLSTM(int64_t in, int64_t hidden, bool bidirectional, double w) {
  torch::nn::LSTM lstm(
      torch::nn::LSTMOptions(in, hidden).batch_first(true).bidirectional(bidirectional));
  torch::NoGradGuard g;
  for (auto& p : lstm->named_parameters()) {
    if (p.key().rfind("bias_hh", 0) == 0) {
      p.value().zero_();
    } else {
      p.value().uniform_(-w, w);
    }
  }
  return lstm;
}

torch::nn::Embedding UniformEmbedding(int64_t vocab, int64_t dim, double w) {
  torch::nn::Embedding e(torch::nn::EmbeddingOptions(vocab, dim).padding_idx(kPadId));
  torch::NoGradGuard g;
  e->weight.uniform_(-w,
                     w);  // the pad row too, as the reference (padding_idx only stops its gradient)
  return e;
}

torch::nn::LSTMImpl& Layer(torch::nn::ModuleListImpl& list, size_t i) {
  return *list[i]->as<torch::nn::LSTMImpl>();
}

}  // namespace

GNMTOptions GNMTReferenceOptions(int64_t vocab_size) {
  return GNMTOptions(vocab_size).hidden_size(1024).num_layers(4).dropout(0.2);
}

// ---- attention ----

BahdanauAttentionImpl::BahdanauAttentionImpl(int64_t query_size, int64_t key_size,
                                             int64_t num_units, double init_weight,
                                             double scale_init) {
  if (scale_init < 0) throw std::invalid_argument("BahdanauAttention: scale_init must be >= 0");
  linear_q = register_module(
      "linear_q", torch::nn::Linear(torch::nn::LinearOptions(query_size, num_units).bias(false)));
  linear_k = register_module(
      "linear_k", torch::nn::Linear(torch::nn::LinearOptions(key_size, num_units).bias(false)));
  linear_att = register_parameter("linear_att", torch::empty({num_units}));
  normalize_scalar = register_parameter("normalize_scalar", torch::empty({1}));
  normalize_bias = register_parameter("normalize_bias", torch::empty({num_units}));
  torch::NoGradGuard g;
  linear_q->weight.uniform_(-init_weight, init_weight);
  linear_k->weight.uniform_(-init_weight, init_weight);
  linear_att.uniform_(-init_weight, init_weight);
  normalize_scalar.fill_(scale_init > 0 ? scale_init
                                        : 1.0 / std::sqrt(static_cast<double>(num_units)));
  normalize_bias.zero_();
}

torch::Tensor BahdanauAttentionImpl::ProjectKeys(const torch::Tensor& keys) {
  return linear_k(keys);
}

std::pair<torch::Tensor, torch::Tensor> BahdanauAttentionImpl::forward(
    const torch::Tensor& query, const torch::Tensor& keys, const torch::Tensor& projected_keys,
    const torch::Tensor& pad) {
  torch::Tensor q = linear_q(query);  // [B, T, U]
  torch::Tensor sum =
      q.unsqueeze(2) + projected_keys.unsqueeze(1) + normalize_bias;    // [B, T, S, U]
  torch::Tensor v = linear_att / linear_att.norm() * normalize_scalar;  // [U]
  torch::Tensor scores = torch::matmul(torch::tanh(sum), v);            // [B, T, S]
  scores = scores.masked_fill(pad.unsqueeze(1), -INFINITY);
  torch::Tensor weights = torch::softmax(scores, -1);
  return {torch::bmm(weights, keys), weights};
}

// ---- encoder ----

GNMTEncoderImpl::GNMTEncoderImpl(const GNMTOptions& o)
    : dropout_(o.dropout()), fused_(o.fused_lstm()) {
  const int64_t h = o.hidden_size();
  rnn_layers = register_module("rnn_layers", torch::nn::ModuleList());
  rnn_layers->push_back(UniformLSTM(h, h, /*bidirectional=*/true, o.init_weight()));
  rnn_layers->push_back(UniformLSTM(2 * h, h, false, o.init_weight()));
  for (int64_t i = 2; i < o.num_layers(); ++i)
    rnn_layers->push_back(UniformLSTM(h, h, false, o.init_weight()));
}

torch::Tensor GNMTEncoderImpl::forward(const torch::Tensor& x_in, const torch::Tensor& lengths) {
  auto drop = [&](const torch::Tensor& t) {
    return F::dropout(t, F::DropoutFuncOptions().p(dropout_).training(is_training()));
  };
  namespace rnn = torch::nn::utils::rnn;
  torch::Tensor x;
  if (fused_) {
    // Layer 1 as packing computes it: the forward direction over each sentence as padded (its
    // real positions never see the padding after them), the backward direction over each
    // sentence reversed within its length (so it starts at the last token), and zeros at the
    // pad positions, as pad_packed_sequence leaves them.
    const torch::Tensor xd = drop(x_in);
    const int64_t T = x_in.size(1);
    const torch::Tensor len = lengths.to(x_in.device()).to(torch::kInt64).unsqueeze(1);  // [B, 1]
    const torch::Tensor pos = torch::arange(T, len.options()).unsqueeze(0);              // [1, T]
    const torch::Tensor rev = torch::where(pos < len, len - 1 - pos, pos);  // [B, T], an involution
    const torch::Tensor keep = (pos < len).unsqueeze(2);                    // [B, T, 1]
    auto& l0 = Layer(*rnn_layers, 0);
    const torch::Tensor fwd = FusedLstmLayer(l0, "", xd).y;
    const torch::Tensor xr = xd.gather(1, rev.unsqueeze(2).expand_as(xd));
    torch::Tensor bwd = FusedLstmLayer(l0, "_reverse", xr).y;
    bwd = bwd.gather(1, rev.unsqueeze(2).expand_as(bwd));
    x = torch::cat({fwd, bwd}, 2).masked_fill(keep.logical_not(), 0.0);
  } else {
    // Layer 1 over packed sequences: the backward direction starts at each sentence's last token.
    rnn::PackedSequence packed =
        rnn::pack_padded_sequence(drop(x_in), lengths.to(torch::kCPU).to(torch::kInt64),
                                  /*batch_first=*/true, /*enforce_sorted=*/false);
    rnn::PackedSequence out = std::get<0>(Layer(*rnn_layers, 0).forward_with_packed_input(packed));
    x = std::get<0>(rnn::pad_packed_sequence(out, /*batch_first=*/true, 0.0, x_in.size(1)));
  }
  auto run = [&](torch::nn::LSTMImpl& lstm, const torch::Tensor& in) {
    return fused_ ? FusedLstmLayer(lstm, "", in).y : std::get<0>(lstm.forward(in));
  };
  // Unidirectional layers: padding comes after every real position, so it cannot reach them.
  x = run(Layer(*rnn_layers, 1), drop(x));
  for (size_t i = 2; i < rnn_layers->size(); ++i) x = run(Layer(*rnn_layers, i), drop(x)) + x;
  return x;
}

// ---- decoder ----

GNMTDecoderImpl::GNMTDecoderImpl(const GNMTOptions& o)
    : dropout_(o.dropout()), fused_(o.fused_lstm()) {
  const int64_t h = o.hidden_size();
  const double w = o.init_weight();
  att_rnn = register_module("att_rnn", UniformLSTM(h, h, false, w));
  attn = register_module("attn", BahdanauAttention(h, h, h, w, o.attention_scale_init()));
  rnn_layers = register_module("rnn_layers", torch::nn::ModuleList());
  for (int64_t i = 1; i < o.num_layers(); ++i)
    rnn_layers->push_back(UniformLSTM(2 * h, h, false, w));
  classifier = register_module("classifier", torch::nn::Linear(h, o.vocab_size()));
  torch::NoGradGuard g;
  classifier->weight.uniform_(-w, w);
  classifier->bias.uniform_(-w, w);
}

torch::Tensor GNMTDecoderImpl::forward(const torch::Tensor& x_in, const torch::Tensor& keys,
                                       const torch::Tensor& projected_keys,
                                       const torch::Tensor& pad,
                                       std::vector<std::pair<torch::Tensor, torch::Tensor>>* states,
                                       torch::Tensor* weights) {
  auto drop = [&](const torch::Tensor& t) {
    return F::dropout(t, F::DropoutFuncOptions().p(dropout_).training(is_training()));
  };
  const size_t layers = rnn_layers->size() + 1;
  if (states && states->size() != layers)
    throw std::invalid_argument("GNMTDecoder: expected one (h, c) per layer");
  // Runs `lstm` over x from layer i's state (zero without states) and stores the new state.
  auto run = [&](torch::nn::LSTMImpl& lstm, const torch::Tensor& x, size_t i) {
    if (fused_) {
      LstmLayerOutput out =
          states ? FusedLstmLayer(lstm, "", x, (*states)[i].first, (*states)[i].second)
                 : FusedLstmLayer(lstm, "", x);
      if (states) (*states)[i] = {out.h, out.c};
      return out.y;
    }
    torch::optional<std::tuple<torch::Tensor, torch::Tensor>> hx;
    if (states)
      hx = std::make_tuple((*states)[i].first.unsqueeze(0), (*states)[i].second.unsqueeze(0));
    auto [y, hc] = lstm.forward(x, hx);
    if (states) (*states)[i] = {std::get<0>(hc).squeeze(0), std::get<1>(hc).squeeze(0)};
    return y;
  };
  torch::Tensor x = run(*att_rnn, drop(x_in), 0);
  auto [context, w] = attn(x, keys, projected_keys, pad);
  if (weights) *weights = w;
  x = run(Layer(*rnn_layers, 0), torch::cat({drop(x), context}, 2), 1);
  for (size_t i = 1; i < rnn_layers->size(); ++i)
    x = run(Layer(*rnn_layers, i), torch::cat({drop(x), context}, 2), i + 1) + x;
  return classifier(x);
}

// ---- the model ----

GNMTImpl::GNMTImpl(const GNMTOptions& o) : options_(o) {
  if (o.vocab_size() < 4 || o.hidden_size() < 1 || o.num_layers() < 2 || o.dropout() < 0 ||
      o.dropout() >= 1 || o.init_weight() < 0 || o.attention_scale_init() < 0) {
    throw std::invalid_argument(
        "GNMT: vocab_size >= 4, hidden_size >= 1, num_layers >= 2, dropout in [0, 1), init_weight "
        ">= 0 and attention_scale_init >= 0 are required");
  }
  if (o.share_embedding()) {
    encoder_embedder = register_module(
        "embedder", UniformEmbedding(o.vocab_size(), o.hidden_size(), o.init_weight()));
    decoder_embedder = encoder_embedder;
  } else {
    encoder_embedder = register_module(
        "encoder_embedder", UniformEmbedding(o.vocab_size(), o.hidden_size(), o.init_weight()));
    decoder_embedder = register_module(
        "decoder_embedder", UniformEmbedding(o.vocab_size(), o.hidden_size(), o.init_weight()));
  }
  encoder = register_module("encoder", GNMTEncoder(o));
  decoder = register_module("decoder", GNMTDecoder(o));
}

namespace {

// Non-pad tokens per row [B] and the attention mask [B, S] (true past them), from the lengths
// so the mask agrees with the packing.
std::pair<torch::Tensor, torch::Tensor> LengthsAndPad(const torch::Tensor& src) {
  torch::Tensor lengths = src.ne(kPadId).sum(1);
  if (lengths.min().item<int64_t>() < 1)
    throw std::invalid_argument("GNMT: every source row needs at least one token");
  torch::Tensor pos =
      torch::arange(src.size(1), torch::TensorOptions().dtype(torch::kInt64).device(src.device()));
  return {lengths, pos.unsqueeze(0) >= lengths.unsqueeze(1)};
}

struct GNMTState : DecoderState {
  std::vector<std::pair<torch::Tensor, torch::Tensor>>
      layers;                          // (h, c) [N, hidden] per decoder layer
  torch::Tensor keys, projected_keys;  // [N, S, hidden]
  torch::Tensor pad;                   // [N, S] bool
  void Select(const torch::Tensor& index) override {
    for (auto& [h, c] : layers) {
      h = h.index_select(0, index);
      c = c.index_select(0, index);
    }
    keys = keys.index_select(0, index);
    projected_keys = projected_keys.index_select(0, index);
    pad = pad.index_select(0, index);
  }
};

}  // namespace

torch::Tensor GNMTImpl::Encode(const torch::Tensor& src) {
  auto [lengths, pad] = LengthsAndPad(src);
  return encoder(encoder_embedder(src), lengths);
}

torch::Tensor GNMTImpl::Logits(const torch::Tensor& src, const torch::Tensor& tgt_in) {
  auto [lengths, pad] = LengthsAndPad(src);
  torch::Tensor keys = encoder(encoder_embedder(src), lengths);
  torch::Tensor projected = decoder->attn->ProjectKeys(keys);
  return decoder(decoder_embedder(tgt_in), keys, projected, pad, nullptr);
}

std::unique_ptr<DecoderState> GNMTImpl::StartDecoding(const torch::Tensor& src, int64_t beam) {
  if (beam < 1) throw std::invalid_argument("GNMT: beam must be >= 1");
  auto [lengths, pad] = LengthsAndPad(src);
  torch::Tensor keys = encoder(encoder_embedder(src), lengths);
  torch::Tensor projected = decoder->attn->ProjectKeys(keys);
  torch::Tensor rows =
      torch::arange(src.size(0), torch::TensorOptions().dtype(torch::kInt64).device(src.device()))
          .repeat_interleave(beam);
  auto s = std::make_unique<GNMTState>();
  s->keys = keys.index_select(0, rows);
  s->projected_keys = projected.index_select(0, rows);
  s->pad = pad.index_select(0, rows);
  torch::Tensor zero = torch::zeros({rows.size(0), options_.hidden_size()}, keys.options());
  s->layers.assign(static_cast<size_t>(options_.num_layers()), {zero, zero});
  return s;
}

DecodeStep GNMTImpl::Step(DecoderState& state, const torch::Tensor& tokens) {
  auto* s = dynamic_cast<GNMTState*>(&state);
  if (!s) throw std::invalid_argument("GNMT::Step: state was not made by GNMT::StartDecoding");
  torch::Tensor weights;
  torch::Tensor logits = decoder(decoder_embedder(tokens.unsqueeze(1)), s->keys, s->projected_keys,
                                 s->pad, &s->layers, &weights);
  return {torch::log_softmax(logits.squeeze(1).to(torch::kFloat), -1),
          weights.squeeze(1).to(torch::kFloat)};
}

}  // namespace trainbench::models

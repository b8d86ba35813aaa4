// The Transformer of "Attention Is All You Need" (Vaswani et al. 2017) as the MLPerf
// `transformer` reference trains it (fairseq's transformer_wmt_en_de_big_t2t): encoder-decoder,
// multi-head attention, pre-layer-norm residual blocks (normalize_before, as the t2t variant)
// with a final LayerNorm on each stack, ReLU feed-forward, sinusoidal positions, and one
// embedding matrix shared by the source and target embeddings and the output projection (a
// joint vocabulary), scaled by sqrt(d_model) at the input; dropout on residuals, attention
// weights and the feed-forward activation. Initialisation: embeddings N(0, d^-1/2) with the pad
// row zero; linear layers Xavier-uniform with zero bias. The full-scale options are
// Transformer big (d 1024, 16 heads, ffn 4096, 6 + 6 layers).
// Decoding is incremental: the state caches every layer's self-attention keys and values and
// the cross-attention keys and values of the encoder output. Device-agnostic.
#pragma once

#include <torch/torch.h>

#include "models/seq2seq.h"

namespace trainbench::models {

struct TransformerOptions {
  explicit TransformerOptions(int64_t vocab_size) : vocab_size_(vocab_size) {}
  TORCH_ARG(int64_t, vocab_size);
  TORCH_ARG(int64_t, d_model) = 512;
  TORCH_ARG(int64_t, heads) = 8;
  TORCH_ARG(int64_t, ffn_dim) = 2048;
  TORCH_ARG(int64_t, encoder_layers) = 6;
  TORCH_ARG(int64_t, decoder_layers) = 6;
  TORCH_ARG(double, dropout) = 0.1;
  TORCH_ARG(double, attention_dropout) = 0.1;
  TORCH_ARG(double, relu_dropout) = 0.1;
  TORCH_ARG(int64_t, max_positions) = 1024;
};

// Transformer big, the MLPerf reference's size.
TransformerOptions TransformerBigOptions(int64_t vocab_size);

class MultiHeadAttentionImpl : public torch::nn::Module {
 public:
  MultiHeadAttentionImpl(int64_t d_model, int64_t heads, double dropout, bool self_attention);
  // query [B, T, d]; keys and values already projected and split: [B, H, S, d/H].
  // key_pad [B, S] bool (true: padding) or undefined; causal: position t sees keys <= t (T == S).
  // Returns [B, T, d]; *weights (if given) gets the head-averaged attention [B, T, S].
  torch::Tensor Attend(const torch::Tensor& query, const torch::Tensor& k, const torch::Tensor& v,
                       const torch::Tensor& key_pad, bool causal, torch::Tensor* weights = nullptr);
  // Keys and values of x [B, S, d] split into heads: {k, v}, each [B, H, S, d/H].
  std::pair<torch::Tensor, torch::Tensor> KeysValues(const torch::Tensor& x);
  // Self-attention only: q, k and v from one projection.
  torch::Tensor SelfAttend(const torch::Tensor& x, const torch::Tensor& key_pad, bool causal);

  torch::nn::Linear q_proj{nullptr}, kv_proj{nullptr}, out_proj{nullptr};

 private:
  torch::Tensor SplitHeads(const torch::Tensor& x) const;  // [B, T, d] -> [B, H, T, d/H]
  int64_t d_model_, heads_;
  double dropout_;
};
TORCH_MODULE(MultiHeadAttention);

class TransformerEncoderLayerImpl : public torch::nn::Module {
 public:
  explicit TransformerEncoderLayerImpl(const TransformerOptions& o);
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& key_pad);
  MultiHeadAttention self_attn{nullptr};
  torch::nn::LayerNorm self_attn_norm{nullptr}, ffn_norm{nullptr};
  torch::nn::Linear fc1{nullptr}, fc2{nullptr};

 private:
  double dropout_, relu_dropout_;
};
TORCH_MODULE(TransformerEncoderLayer);

class TransformerDecoderLayerImpl : public torch::nn::Module {
 public:
  explicit TransformerDecoderLayerImpl(const TransformerOptions& o);
  // Training: the whole target at once (causal self-attention). enc_k / enc_v: this layer's
  // cross-attention keys and values of the encoder output.
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& enc_k,
                        const torch::Tensor& enc_v, const torch::Tensor& src_pad);
  // Decoding one position: x [N, 1, d]; self_k / self_v [N, H, t, d/H] grow by one position.
  torch::Tensor StepForward(const torch::Tensor& x, torch::Tensor& self_k, torch::Tensor& self_v,
                            const torch::Tensor& enc_k, const torch::Tensor& enc_v,
                            const torch::Tensor& src_pad);
  MultiHeadAttention self_attn{nullptr}, cross_attn{nullptr};
  torch::nn::LayerNorm self_attn_norm{nullptr}, cross_attn_norm{nullptr}, ffn_norm{nullptr};
  torch::nn::Linear fc1{nullptr}, fc2{nullptr};

 private:
  torch::Tensor Ffn(const torch::Tensor& x);
  double dropout_, relu_dropout_;
};
TORCH_MODULE(TransformerDecoderLayer);

class TransformerImpl : public torch::nn::Module, public Seq2Seq {
 public:
  explicit TransformerImpl(const TransformerOptions& o);

  torch::Tensor Logits(const torch::Tensor& src, const torch::Tensor& tgt_in) override;
  std::unique_ptr<DecoderState> StartDecoding(const torch::Tensor& src, int64_t beam) override;
  DecodeStep Step(DecoderState& state, const torch::Tensor& tokens) override;
  int64_t vocab_size() const override { return options_.vocab_size(); }

  // Encoder output [B, S, d] (after the final LayerNorm).
  torch::Tensor Encode(const torch::Tensor& src);
  const TransformerOptions& options() const { return options_; }

  torch::nn::Embedding embed{nullptr};  // shared: source, target, output projection
  torch::nn::ModuleList encoder{nullptr}, decoder{nullptr};
  torch::nn::LayerNorm encoder_norm{nullptr}, decoder_norm{nullptr};

 private:
  // Embedded tokens [B, T, d] at positions offset, offset + 1, ...
  torch::Tensor Embed(const torch::Tensor& tokens, int64_t offset);
  TransformerOptions options_;
  torch::Tensor positions_;  // [max_positions, d] sinusoids (a buffer)
};
TORCH_MODULE(Transformer);

}  // namespace trainbench::models

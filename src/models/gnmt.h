// GNMT v2 as the MLPerf v0.5 `gnmt` reference (rnn_translator, seq2seq/models/{gnmt,encoder,
// decoder,attention}.py) builds it: an LSTM encoder-decoder with normalized Bahdanau attention.
//  - Encoder: embedding; layer 1 a bidirectional LSTM (hidden per direction, output 2 x hidden)
//    run over packed sequences, so padding never enters either direction; layer 2 an LSTM
//    2 x hidden -> hidden; layers 3.. LSTMs hidden -> hidden with residual connections.
//  - Decoder: embedding (shared with the encoder by default); layer 1 an LSTM on the embedded
//    target whose outputs are the attention queries; layers 2.. take concat(previous output,
//    attention context) (2 x hidden -> hidden), residual from layer 3 on; a Linear classifier.
//    No input feeding, so training runs every layer over the whole target at once, and the
//    decoder starts from zero LSTM states.
//  - Attention: score(q, k) = g * v / |v| . tanh(W_q q + W_k k + b), pad positions masked
//    before the softmax, context = the weighted sum of the encoder outputs.
//  - Dropout on the input of every LSTM layer of both stacks (as the reference).
//  - Initialisation as the reference: every weight, embedding row (pad included), input-hidden
//    LSTM bias and classifier bias uniform(-init_weight, init_weight); the hidden-hidden LSTM
//    biases zero (init_lstm_); attention g = 1 / sqrt(hidden) and b = 0 (attention_scale_init
//    0; a positive value starts g there instead: g bounds the scores to +-g sqrt(hidden), so
//    the reference's start keeps the attention near uniform until g has grown).
// Tensors are batch-first here (the reference is time-first); device-agnostic.
#pragma once

#include <torch/torch.h>

#include <tuple>
#include <utility>
#include <vector>

#include "models/fused_lstm.h"
#include "models/seq2seq.h"

namespace trainbench::models {

struct GNMTOptions {
  explicit GNMTOptions(int64_t vocab_size) : vocab_size_(vocab_size) {}
  TORCH_ARG(int64_t, vocab_size);
  TORCH_ARG(int64_t, hidden_size) = 1024;
  TORCH_ARG(int64_t, num_layers) = 4;  // per stack, >= 2
  TORCH_ARG(double, dropout) = 0.2;
  TORCH_ARG(bool, share_embedding) = true;
  TORCH_ARG(double, init_weight) = 0.1;
  TORCH_ARG(double,
            attention_scale_init) = 0;  // the attention's g at the start; 0: 1 / sqrt(hidden)
  // Run every LSTM layer with FusedLstmLayer (fused_lstm.h): the same function and parameters,
  // one autograd node per layer instead of ~12 per step.
  TORCH_ARG(bool, fused_lstm) = false;
};

// The MLPerf reference's size: hidden 1024, 4 + 4 layers, dropout 0.2.
GNMTOptions GNMTReferenceOptions(int64_t vocab_size);

// Normalized Bahdanau attention (the reference's BahdanauAttention with normalize=True).
class BahdanauAttentionImpl : public torch::nn::Module {
 public:
  // scale_init: g's initial value (0: 1 / sqrt(num_units), the reference's).
  BahdanauAttentionImpl(int64_t query_size, int64_t key_size, int64_t num_units, double init_weight,
                        double scale_init = 0);
  // W_k keys: keys [B, S, key_size] -> [B, S, num_units]; computed once per batch.
  torch::Tensor ProjectKeys(const torch::Tensor& keys);
  // query [B, T, query_size]; keys [B, S, key_size]; projected_keys = ProjectKeys(keys);
  // pad [B, S] bool (true: padding). Returns {context [B, T, key_size], weights [B, T, S]}
  // with weights exactly 0 on pad positions.
  std::pair<torch::Tensor, torch::Tensor> forward(const torch::Tensor& query,
                                                  const torch::Tensor& keys,
                                                  const torch::Tensor& projected_keys,
                                                  const torch::Tensor& pad);

  torch::nn::Linear linear_q{nullptr}, linear_k{nullptr};
  torch::Tensor linear_att;        // v [num_units]
  torch::Tensor normalize_scalar;  // g [1]
  torch::Tensor normalize_bias;    // b [num_units]
};
TORCH_MODULE(BahdanauAttention);

// Works on embedded tokens: the embeddings belong to GNMTImpl (so a shared one is registered once).
class GNMTEncoderImpl : public torch::nn::Module {
 public:
  explicit GNMTEncoderImpl(const GNMTOptions& o);
  // x: embedded source [B, S, hidden]; lengths [B] int64 (non-pad tokens, >= 1; any device).
  // Returns the top layer's outputs [B, S, hidden] (pad positions hold values the attention masks).
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& lengths);

  torch::nn::ModuleList rnn_layers{nullptr};  // torch::nn::LSTM, batch-first

 private:
  double dropout_;
  bool fused_;
};
TORCH_MODULE(GNMTEncoder);

class GNMTDecoderImpl : public torch::nn::Module {
 public:
  explicit GNMTDecoderImpl(const GNMTOptions& o);
  // x: embedded target [N, T, hidden]; keys [N, S, hidden] (encoder outputs), projected_keys
  // (attn->ProjectKeys(keys)), pad [N, S] bool. states: per layer (h, c), each [N, hidden];
  // nullptr starts every layer from zero; otherwise the states are used and replaced by the
  // states after the last position. Returns logits [N, T, vocab]; *weights (if given) gets the
  // attention [N, T, S].
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& keys,
                        const torch::Tensor& projected_keys, const torch::Tensor& pad,
                        std::vector<std::pair<torch::Tensor, torch::Tensor>>* states,
                        torch::Tensor* weights = nullptr);

  torch::nn::LSTM att_rnn{nullptr};  // layer 1: hidden -> hidden, its outputs query the attention
  BahdanauAttention attn{nullptr};
  torch::nn::ModuleList rnn_layers{nullptr};  // layers 2..: 2 x hidden -> hidden
  torch::nn::Linear classifier{nullptr};

 private:
  double dropout_;
  bool fused_;
};
TORCH_MODULE(GNMTDecoder);

class GNMTImpl : public torch::nn::Module, public Seq2Seq {
 public:
  explicit GNMTImpl(const GNMTOptions& o);

  torch::Tensor Logits(const torch::Tensor& src, const torch::Tensor& tgt_in) override;
  // Encodes, repeats the encoder outputs, projected keys and pad mask `beam` times per sentence
  // and starts every decoder layer from zero states.
  std::unique_ptr<DecoderState> StartDecoding(const torch::Tensor& src, int64_t beam) override;
  // Returns log-probabilities and the attention [N, S] (pad positions 0).
  DecodeStep Step(DecoderState& state, const torch::Tensor& tokens) override;
  int64_t vocab_size() const override { return options_.vocab_size(); }

  // Encoder outputs [B, S, hidden] of src [B, S].
  torch::Tensor Encode(const torch::Tensor& src);
  const GNMTOptions& options() const { return options_; }

  // The same module when share_embedding (registered once, as "embedder"); otherwise
  // "encoder_embedder" and "decoder_embedder".
  torch::nn::Embedding encoder_embedder{nullptr}, decoder_embedder{nullptr};
  GNMTEncoder encoder{nullptr};
  GNMTDecoder decoder{nullptr};

 private:
  GNMTOptions options_;
};
TORCH_MODULE(GNMT);

}  // namespace trainbench::models

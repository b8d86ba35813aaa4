// The interface the translation workloads, beam search and benchmarks use for both translation
// models (models/transformer.h, models/gnmt.h): teacher-forced training logits, and batched
// incremental decoding in which every row is one hypothesis. Token ids follow trainbench's
// SentencePiece conventions: pad 0, bos 2, eos 3 (text/vocab.h). Device-agnostic.
#pragma once

#include <torch/torch.h>

#include <memory>

namespace trainbench::models {

inline constexpr int64_t kPadId = 0, kBosId = 2, kEosId = 3;

// Decoding state of a batch of hypotheses (one row each): caches, recurrent state, encoder
// outputs repeated per hypothesis.
class DecoderState {
 public:
  virtual ~DecoderState() = default;
  // Keeps rows `index` ([N'] int64 on the model's device) in that order: beam reordering.
  virtual void Select(const torch::Tensor& index) = 0;
};

struct DecodeStep {
  torch::Tensor log_probs;  // [N, V] float32 log-probabilities of the next token
  torch::Tensor attention;  // [N, S] attention over source positions (pad: 0), or undefined
};

class Seq2Seq {
 public:
  virtual ~Seq2Seq() = default;
  // Teacher forcing. src [B, S] int64 (pad 0, eos-terminated), tgt_in [B, T] int64 (bos then the
  // target without its eos, pad 0). Returns logits [B, T, V] for the next token at each step.
  virtual torch::Tensor Logits(const torch::Tensor& src, const torch::Tensor& tgt_in) = 0;
  // Encodes src [B, S] for decoding; row b * beam + k of the state is hypothesis k of
  // sentence b. Call under NoGradGuard in eval mode.
  virtual std::unique_ptr<DecoderState> StartDecoding(const torch::Tensor& src, int64_t beam) = 0;
  // One decoding step: tokens [N] int64 (each row's last token, bos at the start).
  virtual DecodeStep Step(DecoderState& state, const torch::Tensor& tokens) = 0;
  virtual int64_t vocab_size() const = 0;
};

// A source batch [B, S] and a teacher-forcing pair (tgt_in, tgt_out [B, T]) from id lists:
// source + eos, bos + target, target + eos, right-padded with 0.
struct Seq2SeqBatch {
  torch::Tensor src, tgt_in, tgt_out;
  int64_t target_tokens = 0;  // non-pad tokens of tgt_out
};
Seq2SeqBatch MakeSeq2SeqBatch(const std::vector<const std::vector<int32_t>*>& sources,
                              const std::vector<const std::vector<int32_t>*>& targets);
// Just the source side ([B, S], + eos, right-padded).
torch::Tensor MakeSourceBatch(const std::vector<const std::vector<int32_t>*>& sources);

}  // namespace trainbench::models

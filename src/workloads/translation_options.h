// The settings of the two translation benchmarks as data: `translation` (MLPerf `transformer`)
// and `rnn_translation` (MLPerf `gnmt`), every configuration key the workload uses, typed, and
// the per-scale file names of the dataset. No LibTorch, so that the settings can be read and
// tested without it.
#pragma once

#include <cstdint>
#include <string>

#include "core/json.h"
#include "metrics/bleu.h"

namespace trainbench::workloads {

// Defaults are the mini scale's values of `translation` (configs/benchmarks/translation.yaml),
// those of the GNMT-only fields of `rnn_translation` (rnn_translation.yaml); FromConfig sets every
// field the architecture uses and leaves the other architecture's at their defaults.
struct TranslationOptions {
  enum class Architecture { kTransformer, kGnmt };

  // `config`: a resolved configuration (core::ResolveConfig's `effective`); `arch`: "transformer"
  // (benchmark translation) or "gnmt" (rnn_translation); `preset`: the scale's preset
  // (core::ScaleDef::preset: the dataset's file names). Each key is read once; a missing key, a
  // value of the wrong type, an unknown BLEU tokenizer or an unknown architecture is a
  // core::Error.
  static TranslationOptions FromConfig(const core::Json& config, const std::string& arch,
                                       const core::Json& preset);

  Architecture arch = Architecture::kTransformer;
  std::string precision = "fp32";  // fp32, bf16 or fp16: training::ParsePrecision needs LibTorch
  int64_t blas_threads = 1;        // 0: the BLAS library's default
  int64_t vocab_size = 4000;       // SentencePiece pieces; must match the dataset's spm.vocab
  int64_t batch_tokens = 1024;     // global batch in tokens
  double base_lr = 0.002;          // after the warmup
  int64_t warmup_steps = 200;
  double adam_beta1 = 0.9;
  double adam_beta2 = 0.98;
  double adam_epsilon = 1.0e-9;
  double label_smoothing = 0.1;
  double grad_clip_norm = 0.0;     // 0: no clipping
  int64_t max_train_length = 128;  // longest training side in pieces (eos included)
  int64_t eval_batch_sentences = 128;

  // Beam search (models::BeamSearchOptions) and BLEU (metrics::BleuOptions).
  int64_t beam_size = 4;
  double len_norm_factor = 0.6;
  double len_norm_const = 5.0;
  double cov_penalty_factor = 0.0;
  double max_decode_len_a = 1.5;  // decoding stops at a * source length + b pieces
  int64_t max_decode_len_b = 10;
  metrics::BleuTokenize bleu_tokenize = metrics::BleuTokenize::kT2t;
  bool bleu_lowercase = true;
  bool fused_optimizer = false;  // FusedAdam

  // Both architectures.
  int64_t layers = 2;    // Transformer: encoder = decoder layers; GNMT: LSTM layers per stack
  double dropout = 0.1;  // GNMT's mini reference: 0.2
  // Transformer only.
  int64_t d_model = 128;
  int64_t heads = 4;
  int64_t ffn_dim = 512;
  double attention_dropout = 0.1;
  double relu_dropout = 0.1;
  // GNMT only.
  int64_t hidden_size = 128;
  double init_weight = 0.25;
  double attention_scale_init = 1.0;  // 0: 1 / sqrt(hidden_size)
  bool fused_lstm = false;

  // The dataset folder's files: mini the En->Es test split `test`, full WMT's En->De
  // newstest2014.
  std::string train_ids_file = "train.ids";
  std::string test_ids_file = "test.ids";
  std::string test_source_file = "test.en";
  std::string test_target_file = "test.es";
  std::string vocab_file = "spm.vocab";
};

}  // namespace trainbench::workloads

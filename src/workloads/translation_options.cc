#include "workloads/translation_options.h"

#include "core/benchmark_def.h"
#include "core/config_reader.h"
#include "core/error.h"

namespace trainbench::workloads {

TranslationOptions TranslationOptions::FromConfig(const core::Json& config, const std::string& arch,
                                                  const core::Json& preset) {
  const core::Json all = core::WithPreset(config, preset);
  const core::ConfigReader r(all);
  TranslationOptions o;
  o.precision = r.String("precision");
  o.blas_threads = r.Int("blas_threads");
  o.vocab_size = r.Int("vocab_size");
  o.batch_tokens = r.Int("batch_tokens");
  o.base_lr = r.Float("base_lr");
  o.warmup_steps = r.Int("warmup_steps");
  o.adam_beta1 = r.Float("adam_beta1");
  o.adam_beta2 = r.Float("adam_beta2");
  o.adam_epsilon = r.Float("adam_epsilon");
  o.label_smoothing = r.Float("label_smoothing");
  o.grad_clip_norm = r.Float("grad_clip_norm");
  o.max_train_length = r.Int("max_train_length");
  o.eval_batch_sentences = r.Int("eval_batch_sentences");
  o.beam_size = r.Int("beam_size");
  o.len_norm_factor = r.Float("len_norm_factor");
  o.len_norm_const = r.Float("len_norm_const");
  o.cov_penalty_factor = r.Float("cov_penalty_factor");
  o.max_decode_len_a = r.Float("max_decode_len_a");
  o.max_decode_len_b = r.Int("max_decode_len_b");
  // ParseBleuTokenize's own error (it lists the known names), as the workload has always given.
  o.bleu_tokenize = metrics::ParseBleuTokenize(r.String("bleu_tokenize"));
  o.bleu_lowercase = r.Bool("bleu_lowercase");
  if (arch == "transformer") {
    o.arch = Architecture::kTransformer;
    o.layers = r.Int("layers");
    o.d_model = r.Int("d_model");
    o.heads = r.Int("heads");
    o.ffn_dim = r.Int("ffn_dim");
    o.dropout = r.Float("dropout");
    o.attention_dropout = r.Float("attention_dropout");
    o.relu_dropout = r.Float("relu_dropout");
  } else if (arch == "gnmt") {
    o.arch = Architecture::kGnmt;
    o.hidden_size = r.Int("hidden_size");
    o.layers = r.Int("layers");
    o.dropout = r.Float("dropout");
    o.init_weight = r.Float("init_weight");
    o.attention_scale_init = r.Float("attention_scale_init");
    o.fused_lstm = r.Bool("fused_lstm");
  } else {
    throw core::Error("translation: unknown architecture \"" + arch + "\"");
  }
  o.fused_optimizer = r.Bool("fused_optimizer");
  o.train_ids_file = r.String("train_ids_file");
  o.vocab_file = r.String("vocab_file");
  o.test_ids_file = r.String("test_ids_file");
  o.test_source_file = r.String("test_source_file");
  o.test_target_file = r.String("test_target_file");
  return o;
}

}  // namespace trainbench::workloads

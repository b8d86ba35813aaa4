// The workloads' options read from the definitions' reference configurations (both scales), and
// the errors of a bad value naming its key. No LibTorch.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "core/benchmark_def.h"
#include "core/error.h"
#include "workloads/image_classification_options.h"
#include "workloads/options_test_util.h"
#include "workloads/recommendation_options.h"
#include "workloads/translation_options.h"

namespace trainbench::workloads {
namespace {

using Ic = ImageClassificationOptions;
using Rec = RecommendationOptions;
using Tr = TranslationOptions;

TEST(ImageClassificationOptions, MiniReference) {
  const Ic o = Ic::FromConfig(ReferenceConfig("image_classification", "mini"),
                              Preset("image_classification", "mini"));
  EXPECT_EQ(o.batch_size, 128);
  EXPECT_EQ(o.optimizer, Ic::Optimizer::kSgd);
  EXPECT_DOUBLE_EQ(o.decay_epochs, 8.0);
  EXPECT_EQ(o.precision, "fp32");
  EXPECT_EQ(o.in_channels, 1);
  EXPECT_EQ(o.num_classes, 10);
  EXPECT_FALSE(o.bottleneck);
  EXPECT_EQ(o.blocks, (std::vector<int64_t>{1, 1, 1}));
  EXPECT_EQ(o.widths, (std::vector<int64_t>{16, 32, 64}));
  EXPECT_EQ(o.dataset, Ic::Dataset::kFashionMnist);
  EXPECT_EQ(o.crop_padding, 0);
  EXPECT_EQ(o.train_samples_hint, 60000);
  EXPECT_EQ(o.eval_batch_size, 1000);
}

TEST(ImageClassificationOptions, FullReference) {
  const Ic o = Ic::FromConfig(ReferenceConfig("image_classification", "full"),
                              Preset("image_classification", "full"));
  EXPECT_EQ(o.batch_size, 256);
  EXPECT_DOUBLE_EQ(o.base_lr, 0.256);
  EXPECT_DOUBLE_EQ(o.label_smoothing, 0.1);
  EXPECT_EQ(o.in_channels, 3);
  EXPECT_EQ(o.num_classes, 1000);
  EXPECT_TRUE(o.bottleneck);
  EXPECT_TRUE(o.imagenet_stem);
  EXPECT_TRUE(o.zero_init_residual);
  EXPECT_EQ(o.blocks, (std::vector<int64_t>{3, 4, 6, 3}));
  EXPECT_EQ(o.widths, (std::vector<int64_t>{64, 128, 256, 512}));
  EXPECT_EQ(o.dataset, Ic::Dataset::kImageNet);
  EXPECT_EQ(o.train_samples_hint, 1281167);
  EXPECT_EQ(o.eval_batch_size, 100);
}

TEST(ImageClassificationOptions, DefaultsAreTheMiniReference) {
  const Ic d;
  const Ic o = Ic::FromConfig(ReferenceConfig("image_classification", "mini"),
                              Preset("image_classification", "mini"));
  EXPECT_EQ(d.batch_size, o.batch_size);
  EXPECT_EQ(d.base_lr, o.base_lr);
  EXPECT_EQ(d.end_lr, o.end_lr);
  EXPECT_EQ(d.momentum, o.momentum);
  EXPECT_EQ(d.weight_decay, o.weight_decay);
  EXPECT_EQ(d.warmup_epochs, o.warmup_epochs);
  EXPECT_EQ(d.lars_eta, o.lars_eta);
  EXPECT_EQ(d.blocks, o.blocks);
  EXPECT_EQ(d.widths, o.widths);
  EXPECT_EQ(d.blas_threads, o.blas_threads);
}

TEST(ImageClassificationOptions, ErrorsNameTheKey) {
  core::Json c = ReferenceConfig("image_classification", "mini");
  c["opt_name"] = "adamw";
  EXPECT_EQ(ErrorOf([&] { Ic::FromConfig(c, Preset("image_classification", "mini")); }),
            "configuration key \"opt_name\": unknown optimizer \"adamw\"");
  c = ReferenceConfig("image_classification", "mini");
  c["width"] = 1.5;
  EXPECT_EQ(ErrorOf([&] { Ic::FromConfig(c, Preset("image_classification", "mini")); }),
            "configuration key \"width\": expected an integer, got 1.5");
  c = ReferenceConfig("image_classification", "full");
  c.erase("num_classes");
  EXPECT_EQ(ErrorOf([&] { Ic::FromConfig(c, Preset("image_classification", "full")); }),
            "configuration key \"num_classes\": missing from the configuration");
  core::Json preset = Preset("image_classification", "full");
  preset["stage_blocks"] = {3, 0};
  EXPECT_EQ(
      ErrorOf([&] { Ic::FromConfig(ReferenceConfig("image_classification", "full"), preset); }),
      "configuration key \"stage_blocks\": expected positive integers");
  preset = Preset("image_classification", "mini");
  preset["data_format"] = "cifar10";
  EXPECT_EQ(
      ErrorOf([&] { Ic::FromConfig(ReferenceConfig("image_classification", "mini"), preset); }),
      "configuration key \"data_format\": expected fashion_mnist or imagenet, got "
      "\"cifar10\"");
}

TEST(RecommendationOptions, MiniAndFullReference) {
  const Rec mini = Rec::FromConfig(ReferenceConfig("recommendation", "mini"));
  EXPECT_EQ(mini.optimizer, Rec::Optimizer::kAdam);
  EXPECT_EQ(mini.mlp_layer_sizes, (std::vector<int64_t>{256, 256, 128, 64}));
  EXPECT_EQ(mini.eval_negatives, 999);
  EXPECT_EQ(mini.sparse_users, Rec::SparseUsers::kError);
  EXPECT_EQ(mini.eval_batch_pairs, 262144);
  EXPECT_EQ(mini.eval_mlp_dtype, Rec::EvalMlpDtype::kFp32);
  const Rec full = Rec::FromConfig(ReferenceConfig("recommendation", "full"));
  EXPECT_EQ(full.sparse_users, Rec::SparseUsers::kDrop);
  EXPECT_EQ(full.eval_batch_pairs, 1048576);
  EXPECT_EQ(full.batch_size, 2048);
}

TEST(RecommendationOptions, DefaultsAreTheMiniReference) {
  const Rec d;
  const Rec o = Rec::FromConfig(ReferenceConfig("recommendation", "mini"));
  EXPECT_EQ(d.batch_size, o.batch_size);
  EXPECT_EQ(d.base_lr, o.base_lr);
  EXPECT_EQ(d.adam_beta2, o.adam_beta2);
  EXPECT_EQ(d.adam_epsilon, o.adam_epsilon);
  EXPECT_EQ(d.num_negatives, o.num_negatives);
  EXPECT_EQ(d.min_ratings, o.min_ratings);
  EXPECT_EQ(d.sparse_users, o.sparse_users);
  EXPECT_EQ(d.topk, o.topk);
  EXPECT_EQ(d.mf_dim, o.mf_dim);
  EXPECT_EQ(d.mlp_layer_sizes, o.mlp_layer_sizes);
  EXPECT_EQ(d.eval_batch_pairs, o.eval_batch_pairs);
}

TEST(RecommendationOptions, ErrorsNameTheKey) {
  const core::Json ref = ReferenceConfig("recommendation", "mini");
  core::Json c = ref;
  c["opt_name"] = "sgd";
  EXPECT_EQ(
      ErrorOf([&] { Rec::FromConfig(c); }),
      "configuration key \"opt_name\": optimizer \"sgd\" is not implemented (adam, lazy_adam)");
  c = ref;
  c["mlp_layer_sizes"] = "256,x";
  EXPECT_EQ(ErrorOf([&] { Rec::FromConfig(c); }),
            "configuration key \"mlp_layer_sizes\": \"256,x\" is not a comma-separated list of "
            "positive integers");
  // A malformed layer list is the run's error, not the launcher's (CheckConfig).
  EXPECT_EQ(ErrorOf([&] { Rec::CheckConfig(c); }), "(no error)");
  c = ref;
  c["fused_optimizer"] = true;
  c["opt_name"] = "lazy_adam";
  const std::string fused =
      "configuration key \"fused_optimizer\": true needs opt_name adam (got lazy_adam)";
  EXPECT_EQ(ErrorOf([&] { Rec::FromConfig(c); }), fused);
  EXPECT_EQ(ErrorOf([&] { Rec::CheckConfig(c); }), fused);
  c = ref;
  c["eval_mlp_dtype"] = "fp16";
  EXPECT_EQ(ErrorOf([&] { Rec::CheckConfig(c); }),
            "configuration key \"eval_mlp_dtype\": expected fp32 or bf16, got \"fp16\"");
  c = ref;
  c["topk"] = "10";
  EXPECT_EQ(ErrorOf([&] { Rec::FromConfig(c); }),
            "configuration key \"topk\": expected an integer, got \"10\"");
}

TEST(TranslationOptions, TransformerReference) {
  const Tr mini = Tr::FromConfig(ReferenceConfig("translation", "mini"), "transformer",
                                 Preset("translation", "mini"));
  EXPECT_EQ(mini.arch, Tr::Architecture::kTransformer);
  EXPECT_EQ(mini.d_model, 128);
  EXPECT_EQ(mini.bleu_tokenize, metrics::BleuTokenize::kT2t);
  EXPECT_EQ(mini.test_ids_file, "test.ids");
  EXPECT_EQ(mini.test_target_file, "test.es");
  const Tr full = Tr::FromConfig(ReferenceConfig("translation", "full"), "transformer",
                                 Preset("translation", "full"));
  EXPECT_EQ(full.batch_tokens, 40960);
  EXPECT_EQ(full.layers, 6);
  EXPECT_EQ(full.test_ids_file, "newstest2014.ids");
  EXPECT_EQ(full.test_source_file, "newstest2014.en");
  EXPECT_EQ(full.test_target_file, "newstest2014.de");
}

TEST(TranslationOptions, GnmtReference) {
  const Tr mini = Tr::FromConfig(ReferenceConfig("rnn_translation", "mini"), "gnmt",
                                 Preset("rnn_translation", "mini"));
  EXPECT_EQ(mini.arch, Tr::Architecture::kGnmt);
  EXPECT_EQ(mini.hidden_size, 128);
  EXPECT_DOUBLE_EQ(mini.dropout, 0.2);
  EXPECT_DOUBLE_EQ(mini.grad_clip_norm, 5.0);
  EXPECT_EQ(mini.beam_size, 5);
  EXPECT_EQ(mini.bleu_tokenize, metrics::BleuTokenize::kIntl);
  const Tr full = Tr::FromConfig(ReferenceConfig("rnn_translation", "full"), "gnmt",
                                 Preset("rnn_translation", "full"));
  EXPECT_EQ(full.hidden_size, 1024);
  EXPECT_EQ(full.max_train_length, 50);
  EXPECT_DOUBLE_EQ(full.attention_scale_init, 0.0);
  EXPECT_EQ(full.test_target_file, "newstest2014.de");
}

TEST(TranslationOptions, DefaultsAreTheMiniReference) {
  const Tr d;
  const Tr t = Tr::FromConfig(ReferenceConfig("translation", "mini"), "transformer",
                              Preset("translation", "mini"));
  EXPECT_EQ(d.blas_threads, t.blas_threads);
  EXPECT_EQ(d.vocab_size, t.vocab_size);
  EXPECT_EQ(d.base_lr, t.base_lr);
  EXPECT_EQ(d.adam_beta2, t.adam_beta2);
  EXPECT_EQ(d.adam_epsilon, t.adam_epsilon);
  EXPECT_EQ(d.max_train_length, t.max_train_length);
  EXPECT_EQ(d.beam_size, t.beam_size);
  EXPECT_EQ(d.cov_penalty_factor, t.cov_penalty_factor);
  EXPECT_EQ(d.ffn_dim, t.ffn_dim);
  EXPECT_EQ(d.dropout, t.dropout);
  const Tr g = Tr::FromConfig(ReferenceConfig("rnn_translation", "mini"), "gnmt",
                              Preset("rnn_translation", "mini"));
  EXPECT_EQ(d.hidden_size, g.hidden_size);
  EXPECT_EQ(d.init_weight, g.init_weight);
  EXPECT_EQ(d.attention_scale_init, g.attention_scale_init);
  EXPECT_EQ(d.fused_lstm, g.fused_lstm);
}

TEST(TranslationOptions, Errors) {
  core::Json c = ReferenceConfig("translation", "mini");
  c["bleu_lowercase"] = "yes";
  EXPECT_EQ(ErrorOf([&] { Tr::FromConfig(c, "transformer", Preset("translation", "mini")); }),
            "configuration key \"bleu_lowercase\": expected true or false, got \"yes\"");
  c = ReferenceConfig("translation", "mini");
  c["bleu_tokenize"] = "spm";
  EXPECT_EQ(ErrorOf([&] { Tr::FromConfig(c, "transformer", Preset("translation", "mini")); }),
            "unknown BLEU tokenizer \"spm\" (known: 13a, intl, t2t, none)");
  EXPECT_EQ(ErrorOf([&] {
              Tr::FromConfig(ReferenceConfig("translation", "mini"), "lstm",
                             Preset("translation", "mini"));
            }),
            "translation: unknown architecture \"lstm\"");
  // The GNMT keys are not in the Transformer's definition.
  EXPECT_EQ(ErrorOf([&] {
              Tr::FromConfig(ReferenceConfig("translation", "mini"), "gnmt",
                             Preset("rnn_translation", "mini"));
            }),
            "configuration key \"hidden_size\": missing from the configuration");
}

}  // namespace
}  // namespace trainbench::workloads

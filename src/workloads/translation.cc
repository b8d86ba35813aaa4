#include "workloads/translation.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>

#include "core/error.h"
#include "core/mllog_keys.h"
#include "core/random.h"
#include "core/utf8.h"
#include "metrics/bleu.h"
#include "models/beam_search.h"
#include "models/gnmt.h"
#include "models/seq2seq.h"
#include "models/transformer.h"
#include "text/id_corpus.h"
#include "text/parallel_corpus.h"
#include "text/token_batching.h"
#include "text/vocab.h"
#include "training/data_parallel.h"
#include "training/fused_adam.h"
#include "training/precision.h"
#include "training/runtime.h"
#include "training/step_report.h"
#include "workloads/translation_options.h"

namespace trainbench::workloads {

namespace {

using core::Json;

using Arch = TranslationOptions::Architecture;

class Translation : public train::Workload {
 public:
  Translation(std::string arch, core::Json preset)
      : arch_(std::move(arch)), preset_(std::move(preset)) {}

  const char* DataParallelBatchKey() const override { return "batch_tokens"; }

  void CheckConfig(const Json& c, const std::string& device) const override {
    training::ParsePrecision(TranslationOptions::FromConfig(c, arch_, preset_).precision,
                             torch::Device(device));
  }

  void Init(const train::RunContext& ctx) override {
    ctx_ = ctx;
    const Json& c = ctx.config;
    device_ = training::SetUpTorch(ctx);
    opts_ = TranslationOptions::FromConfig(c, arch_, preset_);
    precision_ = training::ParsePrecision(opts_.precision, device_);
    if (precision_ == torch::kFloat16) scaler_.emplace();
    if (opts_.blas_threads > 0 && !training::SetBlasThreads(static_cast<int>(opts_.blas_threads))) {
      blas_note_ = "blas_threads: no OpenBLAS loaded, left as it is";
    }
    beam_.beam = opts_.beam_size;
    beam_.length_alpha = opts_.len_norm_factor;
    beam_.length_const = opts_.len_norm_const;
    beam_.coverage_beta = opts_.cov_penalty_factor;
    beam_.max_len_a = opts_.max_decode_len_a;
    beam_.max_len_b = opts_.max_decode_len_b;
    bleu_.tokenize = opts_.bleu_tokenize;
    bleu_.lowercase = opts_.bleu_lowercase;
    train::CheckWorldSize(*this, ctx.benchmark, c, ctx.world_size);
    if (opts_.arch == Arch::kTransformer) {
      auto o = models::TransformerOptions(opts_.vocab_size)
                   .d_model(opts_.d_model)
                   .heads(opts_.heads)
                   .ffn_dim(opts_.ffn_dim)
                   .encoder_layers(opts_.layers)
                   .decoder_layers(opts_.layers)
                   .dropout(opts_.dropout)
                   .attention_dropout(opts_.attention_dropout)
                   .relu_dropout(opts_.relu_dropout)
                   .max_positions(std::max<int64_t>(1024, 2 * opts_.max_train_length + 64));
      models::Transformer t(o);
      module_ = t.ptr();
      model_ = t.ptr().get();
    } else {
      auto o = models::GNMTOptions(opts_.vocab_size)
                   .hidden_size(opts_.hidden_size)
                   .num_layers(opts_.layers)
                   .dropout(opts_.dropout)
                   .share_embedding(true)
                   .init_weight(opts_.init_weight)
                   .attention_scale_init(opts_.attention_scale_init)
                   .fused_lstm(opts_.fused_lstm);
      models::GNMT g(o);
      module_ = g.ptr();
      model_ = g.ptr().get();
    }
    module_->to(device_);
    group_ = training::RunGroup(ctx);
    reducer_ = training::MakeDataParallel(group_, *module_);
    if (opts_.fused_optimizer) {
      fused_adam_.emplace(module_->parameters(),
                          training::FusedAdamOptions{opts_.base_lr, opts_.adam_beta1,
                                                     opts_.adam_beta2, opts_.adam_epsilon, 0.0});
    } else {
      adam_.emplace(module_->parameters(), torch::optim::AdamOptions(opts_.base_lr)
                                               .betas({opts_.adam_beta1, opts_.adam_beta2})
                                               .eps(opts_.adam_epsilon));
    }
  }

  train::LoggedEvents LoggedHyperparameters() const override {
    const bool transformer = opts_.arch == Arch::kTransformer;
    train::LoggedEvents h = {
        {core::keys::kOptName, "adam"},
        train::LoggedSetting(ctx_, "base_lr"),
        train::LoggedSetting(ctx_, "adam_beta1"),
        train::LoggedSetting(ctx_, "adam_beta2"),
        train::LoggedSetting(ctx_, "adam_epsilon"),
        train::LoggedSetting(ctx_, "warmup_steps"),
        {core::keys::kOptLrSchedule, transformer ? "inverse_sqrt" : "warmup_constant"},
        train::LoggedSetting(ctx_, "grad_clip_norm"),
        train::LoggedSetting(ctx_, "label_smoothing"),
        // Training pairs longer than this (either side, eos included) are left out (LoadData).
        train::LoggedSetting(ctx_, "max_train_length", {{core::keys::kMdMethod, "discard"}}),
        train::LoggedSetting(ctx_, "vocab_size"),
        train::LoggedSetting(ctx_, "beam_size"),
        train::LoggedSetting(ctx_, "len_norm_factor"),
        train::LoggedSetting(ctx_, "len_norm_const"),
        train::LoggedSetting(ctx_, "cov_penalty_factor"),
        train::LoggedSetting(ctx_, "max_decode_len_a"),
        train::LoggedSetting(ctx_, "max_decode_len_b"),
        train::LoggedSetting(ctx_, "bleu_tokenize"),
        train::LoggedSetting(ctx_, "bleu_lowercase"),
    };
    if (!transformer) {
      // The official closed GNMT keys (training_0.7.0/closed_gnmt.yaml) name the reference's
      // schedule: an exponential warmup (its "alternative" warmup function) over warmup steps,
      // then decay_steps multiplications by decay_factor, decay_interval steps apart, from
      // remain_steps on. trainbench's schedule is a linear warmup, then the base rate to the end:
      // not the alternative warmup, no decay function; in the reference's terms 0 decays by 1.0,
      // from the end of the warmup, which the reference's formula turns into the same constant
      // rate. docs/benchmarks/translation.md.
      namespace k = core::keys;
      const Json no_decay = {
          {core::keys::kMdTrainbenchSchedule, "linear warmup, then constant: no decay"}};
      h.push_back({k::kOptLrAltWarmupFunc, false, {{core::keys::kMdTrainbenchWarmup, "linear"}}});
      h.push_back({k::kOptLrAltDecayFunc, false, no_decay});
      h.push_back({k::kOptLrRemainSteps, opts_.warmup_steps, no_decay});
      h.push_back({k::kOptLrDecayInterval, 0, no_decay});
      h.push_back({k::kOptLrDecaySteps, 0, no_decay});
      h.push_back({k::kOptLrDecayFactor, 1.0, no_decay});
    }
    // The configured values as they are (integers stay integers, floats floats).
    if (transformer) {
      h.push_back(train::LoggedSetting(ctx_, "d_model"));
      h.push_back(train::LoggedSetting(ctx_, "heads"));
      h.push_back(train::LoggedSetting(ctx_, "ffn_dim"));
      h.push_back(train::LoggedSetting(ctx_, "layers"));
      h.push_back(train::LoggedSetting(ctx_, "dropout"));
      h.push_back(train::LoggedSetting(ctx_, "attention_dropout"));
      h.push_back(train::LoggedSetting(ctx_, "relu_dropout"));
    } else {
      h.push_back(train::LoggedSetting(ctx_, "hidden_size"));
      h.push_back(train::LoggedSetting(ctx_, "layers"));
      h.push_back(train::LoggedSetting(ctx_, "dropout"));
      h.push_back(train::LoggedSetting(ctx_, "init_weight"));
      h.push_back(train::LoggedSetting(ctx_, "attention_scale_init"));
    }
    return h;
  }

  int64_t GlobalBatchSize() const override { return opts_.batch_tokens; }
  Json RuntimeProvenance() const override {
    Json j = training::TorchProvenance(device_);
    j["precision"] = training::PrecisionName(precision_);
    j["fused_optimizer"] = fused_adam_.has_value();
    if (opts_.arch == Arch::kGnmt) j["fused_lstm"] = opts_.fused_lstm;
    if (!blas_note_.empty()) j["blas_note"] = blas_note_;
    return j;
  }

  void LoadData() override {
    const std::string dir = ctx_.data_dir + "/";
    const std::string vocab_path = dir + opts_.vocab_file, train_ids = dir + opts_.train_ids_file,
                      test_ids = dir + opts_.test_ids_file,
                      test_target = dir + opts_.test_target_file;
    vocab_ = std::make_unique<text::PieceVocabulary>(text::PieceVocabulary::Load(vocab_path));
    if (vocab_->size() != opts_.vocab_size) {
      throw core::FileError(vocab_path, 0,
                            "holds " + std::to_string(vocab_->size()) +
                                " pieces; configuration key \"vocab_size\" is " +
                                std::to_string(opts_.vocab_size));
    }
    text::IdCorpus train = text::ReadIdCorpus(train_ids, static_cast<int>(opts_.vocab_size));
    // Pairs longer than max_train_length pieces (either side, eos included) are left out of
    // training, as the references filter by length; they are counted and logged.
    for (size_t i = 0; i < train.size(); ++i) {
      const int64_t s = static_cast<int64_t>(train.source[i].size()) + 1,
                    t = static_cast<int64_t>(train.target[i].size()) + 1;
      if (s > opts_.max_train_length || t > opts_.max_train_length) {
        ++dropped_long_;
        continue;
      }
      train_.source.push_back(std::move(train.source[i]));
      train_.target.push_back(std::move(train.target[i]));
      lengths_.push_back({static_cast<int32_t>(s), static_cast<int32_t>(t)});
    }
    if (train_.size() == 0) {
      throw core::FileError(
          train_ids, 0, "no pair fits max_train_length " + std::to_string(opts_.max_train_length));
    }
    test_ = text::ReadIdCorpus(test_ids, static_cast<int>(opts_.vocab_size));
    text::ParallelCorpus refs = text::ReadParallelCorpus(dir + opts_.test_source_file, test_target);
    if (refs.size() != test_.size()) {
      throw core::FileError(test_ids, 0,
                            "holds " + std::to_string(test_.size()) + " pairs but " + test_target +
                                " has " + std::to_string(refs.size()) + " lines");
    }
    references_ = std::move(refs.target);
    // Evaluation order: by source length (less padding); rank r decodes every W-th sentence.
    std::vector<int32_t> order(test_.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
      return test_.source[static_cast<size_t>(a)].size() <
             test_.source[static_cast<size_t>(b)].size();
    });
    for (size_t i = static_cast<size_t>(ctx_.rank); i < order.size();
         i += static_cast<size_t>(ctx_.world_size))
      eval_order_.push_back(order[i]);
    batching_.max_tokens = opts_.batch_tokens / ctx_.world_size;
    batching_.shuffle = true;
    batching_.seed = core::SeedFor(ctx_.seed, "data");
  }

  int64_t TrainSamples() const override { return static_cast<int64_t>(train_.size()); }
  int64_t EvalSamples() const override { return static_cast<int64_t>(test_.size()); }

  train::LoggedEvents LoggedDataFacts() const override {
    int64_t tokens = 0;
    for (const auto& l : lengths_) tokens += l.target;
    return {{core::keys::kTrainbenchTrainTargetTokens, tokens},
            {core::keys::kTrainbenchTrainPairsTooLong, dropped_long_}};
  }

  void TrainEpoch(int epoch, train::TrainControl& control) override {
    module_->train();
    const auto all = text::MakeTokenBatches(lengths_, batching_, epoch);
    const size_t W = static_cast<size_t>(ctx_.world_size);
    const size_t steps = all.size() / W;
    for (size_t s = 0; s < steps; ++s) {
      const auto& mine = all[s * W + static_cast<size_t>(ctx_.rank)];
      int64_t global_sentences = 0;
      for (size_t r = 0; r < W; ++r)
        global_sentences += static_cast<int64_t>(all[s * W + r].size());
      std::vector<const std::vector<int32_t>*> src, tgt;
      for (int32_t i : mine) {
        src.push_back(&train_.source[static_cast<size_t>(i)]);
        tgt.push_back(&train_.target[static_cast<size_t>(i)]);
      }
      models::Seq2SeqBatch b = models::MakeSeq2SeqBatch(src, tgt);
      torch::Tensor loss;
      {
        // Forward under autocast (its matrix products in bf16/fp16); the softmax and the loss in
        // fp32, as the reference's mixed precision does. Backward follows the casts.
        training::AutocastScope autocast(device_, precision_);
        torch::Tensor logits = model_->Logits(b.src.to(device_), b.tgt_in.to(device_));
        loss = torch::nn::functional::cross_entropy(
            logits.reshape({-1, logits.size(-1)}).to(torch::kFloat),
            b.tgt_out.to(device_).reshape({-1}),
            torch::nn::functional::CrossEntropyFuncOptions()
                .ignore_index(models::kPadId)
                .label_smoothing(opts_.label_smoothing));
      }
      ++step_;
      const double lr = LearningRate(step_);
      if (fused_adam_) {
        fused_adam_->set_lr(lr);
        fused_adam_->ZeroGrad();
      } else {
        for (auto& g : adam_->param_groups())
          static_cast<torch::optim::AdamOptions&>(g.options()).lr(lr);
        adam_->zero_grad();
      }
      if (reducer_) reducer_->Prepare();
      (scaler_ ? scaler_->Scale(loss) : loss).backward();
      if (reducer_) reducer_->Finish();
      // fp16: unscaled first (the clip sees true gradients); a step with inf/NaN is skipped.
      const bool apply = !scaler_ || scaler_->UnscaleAndUpdate(module_->parameters());
      if (apply && opts_.grad_clip_norm > 0)
        torch::nn::utils::clip_grad_norm_(module_->parameters(), opts_.grad_clip_norm);
      if (apply && fused_adam_) fused_adam_->Step();
      if (apply && adam_) adam_->step();
      if (!training::ReportStep(control, loss, step_, 10, global_sentences)) return;
    }
  }

  train::EvalResult Evaluate(int /*epoch*/) override {
    training::SyncForEvaluation(*group_, *module_);
    module_->eval();
    torch::NoGradGuard no_grad;
    metrics::CorpusBleu bleu(bleu_);
    const size_t eval_batch = static_cast<size_t>(opts_.eval_batch_sentences);
    for (size_t start = 0; start < eval_order_.size(); start += eval_batch) {
      const size_t end = std::min(eval_order_.size(), start + eval_batch);
      std::vector<const std::vector<int32_t>*> src;
      for (size_t i = start; i < end; ++i)
        src.push_back(&test_.source[static_cast<size_t>(eval_order_[i])]);
      std::vector<std::vector<int32_t>> hyps;
      {
        training::AutocastScope autocast(device_, precision_);
        hyps = models::BeamSearch(*model_, models::MakeSourceBatch(src).to(device_), beam_);
      }
      for (size_t i = start; i < end; ++i) {
        const std::string text = vocab_->Decode(hyps[i - start]);
        bleu.Add(core::DecodeUtf8(text),
                 core::DecodeUtf8(references_[static_cast<size_t>(eval_order_[i])]));
      }
    }
    // BLEU's sufficient statistics are sums over sentences: add the ranks' and score once.
    const metrics::BleuStats& st = bleu.stats();
    std::vector<double> v = {static_cast<double>(st.hyp_len), static_cast<double>(st.ref_len),
                             static_cast<double>(bleu.segments())};
    for (int n = 0; n < metrics::kBleuMaxOrder; ++n) {
      v.push_back(static_cast<double>(st.matches[static_cast<size_t>(n)]));
      v.push_back(static_cast<double>(st.totals[static_cast<size_t>(n)]));
    }
    v = dist::AllReduceSum(*group_, v);
    metrics::BleuStats total;
    total.hyp_len = std::llround(v[0]);
    total.ref_len = std::llround(v[1]);
    for (int n = 0; n < metrics::kBleuMaxOrder; ++n) {
      total.matches[static_cast<size_t>(n)] = std::llround(v[3 + 2 * static_cast<size_t>(n)]);
      total.totals[static_cast<size_t>(n)] = std::llround(v[4 + 2 * static_cast<size_t>(n)]);
    }
    const metrics::BleuScore score = metrics::BleuFromStats(total, bleu_);
    train::EvalResult r;
    // MLLOG (since v0.7) logs BLEU as a fraction: 25.0 is 0.25; the 0-100 score and
    // sacreBLEU's line stay in the metadata.
    r.value = score.score / 100.0;
    r.samples = std::llround(v[2]);
    r.extra["bleu_score"] = score.score;
    r.extra["bleu"] = metrics::FormatBleuLine(score);
    r.extra["bleu_signature"] = metrics::BleuSignature(bleu_);
    return r;
  }

 private:
  // Transformer: linear warmup to base_lr, then inverse square-root decay (fairseq's
  // inverse_sqrt, the reference's schedule): base_lr * min(step / warmup, sqrt(warmup / step)).
  // GNMT: linear warmup, then constant.
  double LearningRate(int64_t step) const {
    const double s = static_cast<double>(step),
                 w = static_cast<double>(std::max<int64_t>(1, opts_.warmup_steps));
    if (opts_.arch == Arch::kTransformer) return opts_.base_lr * std::min(s / w, std::sqrt(w / s));
    return opts_.base_lr * std::min(1.0, s / w);
  }

  std::string arch_, blas_note_;
  core::Json preset_;  // the scale's (core::ScaleDef::preset)
  train::RunContext ctx_;
  torch::Device device_{torch::kCPU};
  std::shared_ptr<torch::nn::Module> module_;
  models::Seq2Seq* model_ = nullptr;
  std::shared_ptr<dist::ProcessGroup> group_;
  std::unique_ptr<dist::GradientReducer> reducer_;
  std::optional<torch::optim::Adam> adam_;
  std::optional<training::FusedAdam> fused_adam_;
  std::optional<training::LossScaler> scaler_;
  TranslationOptions opts_;
  torch::Dtype precision_ = torch::kFloat32;
  int64_t step_ = 0, dropped_long_ = 0;
  models::BeamSearchOptions beam_;
  metrics::BleuOptions bleu_;
  std::unique_ptr<text::PieceVocabulary> vocab_;
  text::IdCorpus train_, test_;
  std::vector<text::LengthPair> lengths_;
  std::vector<std::string> references_;
  std::vector<int32_t> eval_order_;
  text::TokenBatchingOptions batching_;
};

}  // namespace

std::unique_ptr<train::Workload> MakeTranslation(const std::string& arch,
                                                 const core::ScaleDef& scale) {
  return std::make_unique<Translation>(arch, scale.preset);
}

}  // namespace trainbench::workloads

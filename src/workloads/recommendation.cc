#include "workloads/recommendation.h"

#include <ATen/Parallel.h>
#include <torch/torch.h>

#include <cstdio>
#include <optional>

#include "core/error.h"
#include "core/mllog_keys.h"
#include "core/random.h"
#include "data/leave_one_out.h"
#include "data/negative_sampler.h"
#include "data/ratings_csv.h"
#include "models/neumf.h"
#include "training/data_parallel.h"
#include "training/fused_adam.h"
#include "training/lazy_adam.h"
#include "training/runtime.h"
#include "training/step_report.h"
#include "workloads/ranking_metrics.h"
#include "workloads/recommendation_options.h"

namespace trainbench::workloads {

namespace {

using core::Json;

torch::Tensor ToLongTensor(const std::vector<int32_t>& v, const torch::Device& device) {
  auto t = torch::from_blob(const_cast<int32_t*>(v.data()), {static_cast<int64_t>(v.size())},
                            torch::kInt32);
  return t.to(device, torch::kInt64);
}

class Recommendation : public train::Workload {
 public:
  Recommendation() = default;

  void CheckConfig(const Json& c, const std::string& /*device*/) const override {
    RecommendationOptions::CheckConfig(c);
  }

  void Init(const train::RunContext& ctx) override {
    ctx_ = ctx;
    const Json& c = ctx.config;
    device_ = training::SetUpTorch(ctx);
    opts_ = RecommendationOptions::FromConfig(c);
    if (opts_.blas_threads > 0 && !training::SetBlasThreads(opts_.blas_threads))
      blas_note_ = "blas_threads: no OpenBLAS loaded, left as it is";
    scorer_options_.fused_gather(opts_.eval_fused_gather);
    scorer_options_.mlp_dtype(opts_.eval_mlp_dtype == RecommendationOptions::EvalMlpDtype::kBf16
                                  ? torch::kBFloat16
                                  : torch::kFloat32);
    // Intra-op threads per phase (0: the run's --threads). Small training GEMMs can run faster
    // on fewer threads than the evaluation's large batches (docs/performance.md).
    train_threads_ = opts_.train_threads;
    eval_threads_ = opts_.eval_threads;
    if (train_threads_ <= 0) train_threads_ = std::max(1, ctx.threads);
    if (eval_threads_ <= 0) eval_threads_ = std::max(1, ctx.threads);
    train::CheckWorldSize(*this, ctx.benchmark, c, ctx.world_size);
  }

  train::LoggedEvents LoggedHyperparameters() const override {
    return {
        {core::keys::kOptName, RecommendationOptions::OptimizerName(opts_.optimizer)},
        train::LoggedSetting(ctx_, "base_lr"),
        train::LoggedSetting(ctx_, "adam_beta1"),
        train::LoggedSetting(ctx_, "adam_beta2"),
        train::LoggedSetting(ctx_, "adam_epsilon"),
        train::LoggedSetting(ctx_, "min_ratings"),
        {core::keys::kPreprocHpNumEval, opts_.eval_negatives},
        {core::keys::kPreprocHpSampleEvalReplacement, false},
        train::LoggedSetting(ctx_, "num_negatives"),
        {core::keys::kInputHpSampleTrainReplacement, true},
        train::LoggedSetting(ctx_, "eval_negatives"),
        train::LoggedSetting(ctx_, "topk"),
        train::LoggedSetting(ctx_, "mf_dim"),
        {core::keys::kModelHpMlpLayerSizes, Json(opts_.mlp_layer_sizes)},
        {core::keys::kModelHpLossFn, "binary_cross_entropy"},
    };
  }

  int64_t GlobalBatchSize() const override { return opts_.batch_size; }
  Json RuntimeProvenance() const override {
    Json j = training::TorchProvenance(device_);
    j["train_intra_op_threads"] = train_threads_;
    j["eval_intra_op_threads"] = eval_threads_;
    j["fused_optimizer"] = opts_.fused_optimizer;
    j["eval_fused_gather"] = scorer_options_.fused_gather();
    j["eval_mlp_dtype"] = scorer_options_.mlp_dtype() == torch::kBFloat16 ? "bf16" : "fp32";
    if (!blas_note_.empty()) j["blas_note"] = blas_note_;
    return j;
  }

  void LoadData() override {
    const std::string path = data::RatingsCsvPath(ctx_.data_dir);
    data::LeaveOneOutOptions lo;
    lo.min_ratings = opts_.min_ratings;
    lo.sparse_users = opts_.sparse_users == RecommendationOptions::SparseUsers::kError
                          ? data::SparseUserPolicy::kError
                          : data::SparseUserPolicy::kDrop;
    lo.eval_negatives = opts_.eval_negatives;
    lo.eval_seed = opts_.eval_seed;
    lo.threads = std::max(1, ctx_.threads);
    uint64_t hash = 0;
    {
      // The table is freed once split: the split holds all the run needs.
      const data::RatingsTable table = data::ReadRatingsCsv(path);
      hash = table.content_hash;
      data_ = data::BuildLeaveOneOut(table, lo);
    }
    dataset_fact_ = Json{{"path", path},
                         {"content_fnv1a64", HashHex(hash)},
                         {"ratings", data_.ratings_read},
                         {"users", data_.num_users},
                         {"items", data_.num_items},
                         {"train_positives", data_.num_train()},
                         {"users_dropped", data_.users_dropped},
                         {"ratings_dropped", data_.ratings_dropped},
                         {"duplicates_merged", data_.duplicates_merged}};

    const bool lazy = opts_.optimizer == RecommendationOptions::Optimizer::kLazyAdam;
    model_ = models::NeuMF(models::NeuMFOptions(data_.num_users, data_.num_items)
                               .mf_dim(opts_.mf_dim)
                               .mlp_layer_sizes(opts_.mlp_layer_sizes)
                               .sparse_embeddings(lazy));
    model_->to(device_);
    group_ = training::RunGroup(ctx_);
    std::vector<torch::Tensor> sparse;
    if (lazy) {
      sparse = {model_->mf_user_embed->weight, model_->mf_item_embed->weight,
                model_->mlp_user_embed->weight, model_->mlp_item_embed->weight};
    }
    reducer_ = training::MakeDataParallel(group_, *model_, sparse);
    const double lr = opts_.base_lr, beta1 = opts_.adam_beta1, beta2 = opts_.adam_beta2,
                 eps = opts_.adam_epsilon;
    if (lazy) {
      lazy_adam_.emplace(model_->parameters(), training::LazyAdamOptions{lr, beta1, beta2, eps});
    } else if (opts_.fused_optimizer) {
      fused_adam_.emplace(model_->parameters(),
                          training::FusedAdamOptions{lr, beta1, beta2, eps, 0.0});
    } else {
      adam_.emplace(model_->parameters(),
                    torch::optim::AdamOptions(lr).betas({beta1, beta2}).eps(eps).weight_decay(0));
    }

    // Evaluation candidates, [users, 1 + eval_negatives]: column 0 the held-out positive.
    candidates_ = ToLongTensor(data_.EvalCandidates(), device_)
                      .view({data_.num_users, 1 + opts_.eval_negatives});
    data_.eval_negative_items.clear();
    data_.eval_negative_items.shrink_to_fit();
  }

  int64_t TrainSamples() const override { return data_.num_train() * (1 + opts_.num_negatives); }
  int64_t EvalSamples() const override { return data_.num_users; }

  train::LoggedEvents LoggedDataFacts() const override {
    return {{core::keys::kEvalHpNumUsers, data_.num_users},
            {core::keys::kTrainbenchDataset, dataset_fact_}};
  }

  void TrainEpoch(int epoch, train::TrainControl& control) override {
    at::set_num_threads(train_threads_);
    model_->train();
    data::NegativeSamplerOptions so;
    so.num_negatives = opts_.num_negatives;
    so.seed = core::SeedFor(ctx_.seed, "data");
    so.threads = std::max(1, ctx_.loader_threads);
    data::SampleTrainEpoch(data_, so, epoch, &examples_);
    torch::Tensor users = ToLongTensor(examples_.users, device_);
    torch::Tensor items = ToLongTensor(examples_.items, device_);
    torch::Tensor labels =
        torch::from_blob(examples_.labels.data(), {examples_.size()}, torch::kFloat32)
            .to(device_, torch::kFloat32, false, true);
    const int64_t n = examples_.size();
    const int64_t w = ctx_.world_size, r = ctx_.rank;
    for (int64_t b = 0; b < n; b += opts_.batch_size) {
      const int64_t len = std::min(opts_.batch_size, n - b);
      // This rank's share of the global batch.
      const int64_t lo = b + len * r / w, hi = b + len * (r + 1) / w;
      torch::Tensor u = users.slice(0, lo, hi), i = items.slice(0, lo, hi),
                    y = labels.slice(0, lo, hi);
      torch::Tensor logits = model_->forward(u, i);
      torch::Tensor loss = torch::binary_cross_entropy_with_logits(logits, y);
      // Scaled so that the average over the ranks is the mean over the whole global batch, even
      // when the ranks' shares differ by one (the last batch).
      torch::Tensor scaled = w == 1 ? loss : loss * (static_cast<double>((hi - lo) * w) / len);
      if (adam_) {
        adam_->zero_grad();
      } else if (fused_adam_) {
        fused_adam_->ZeroGrad();
      } else {
        lazy_adam_->ZeroGrad();
      }
      if (reducer_) reducer_->Prepare();
      scaled.backward();
      if (reducer_) reducer_->Finish();
      if (adam_) {
        adam_->step();
      } else if (fused_adam_) {
        fused_adam_->Step();
      } else {
        lazy_adam_->Step();
      }
      ++step_;
      if (!training::ReportStep(control, loss, step_, 20, len)) return;
    }
  }

  train::EvalResult Evaluate(int /*epoch*/) override {
    at::set_num_threads(eval_threads_);
    training::SyncForEvaluation(*group_, *model_);
    model_->eval();
    torch::NoGradGuard no_grad;
    const int64_t nu = data_.num_users, c = candidates_.size(1);
    const int64_t chunk = std::max<int64_t>(1, opts_.eval_batch_pairs / c);
    // This rank's users: a contiguous share; the sums are reduced over the ranks below.
    const int64_t first = nu * ctx_.rank / ctx_.world_size,
                  last = nu * (ctx_.rank + 1) / ctx_.world_size;
    RankingSums sums;
    const models::NeuMFScorer scorer(model_, scorer_options_);
    for (int64_t b = first; b < last; b += chunk) {
      const int64_t e = std::min(last, b + chunk);
      torch::Tensor users =
          torch::arange(b, e, torch::TensorOptions().dtype(torch::kInt64).device(device_));
      torch::Tensor scores = scorer.Score(users, candidates_.slice(0, b, e));
      AccumulateRanking(scores, opts_.topk, &sums);
    }
    std::vector<double> total =
        dist::AllReduceSum(*group_, {sums.hits, sums.ndcg, static_cast<double>(sums.users)});
    const double users = total[2];
    train::EvalResult res;
    res.samples = static_cast<int64_t>(users);
    res.value = users > 0 ? total[0] / users : 0.0;
    res.extra = Json{{"hr_at_k", res.value},
                     {"ndcg_at_k", users > 0 ? total[1] / users : 0.0},
                     {"k", opts_.topk}};
    return res;
  }

 private:
  static std::string HashHex(uint64_t h) {
    char buf[24];
    std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(h));
    return buf;
  }

  train::RunContext ctx_;
  torch::Device device_{torch::kCPU};
  RecommendationOptions opts_;
  int64_t step_ = 0;
  // The effective intra-op threads: the configured ones, or the run's.
  int train_threads_ = 1, eval_threads_ = 1;
  std::string blas_note_;
  models::NeuMFScorerOptions scorer_options_;
  data::LeaveOneOutDataset data_;
  data::TrainExamples examples_;
  Json dataset_fact_ = Json::object();
  models::NeuMF model_{nullptr};
  std::shared_ptr<dist::ProcessGroup> group_;
  std::unique_ptr<dist::GradientReducer> reducer_;
  std::optional<torch::optim::Adam> adam_;
  std::optional<training::LazyAdam> lazy_adam_;
  std::optional<training::FusedAdam> fused_adam_;
  torch::Tensor candidates_;
};

}  // namespace

std::unique_ptr<train::Workload> MakeRecommendation(const core::ScaleDef& /*scale*/) {
  return std::make_unique<Recommendation>();
}

}  // namespace trainbench::workloads

#include "workloads/recommendation.h"

#include <ATen/Parallel.h>
#include <torch/torch.h>

#include <cstdio>
#include <optional>
#include <sstream>

#include "core/error.h"
#include "core/random.h"
#include "data/leave_one_out.h"
#include "data/negative_sampler.h"
#include "data/ratings_csv.h"
#include "models/neumf.h"
#include "workloads/fused_adam.h"
#include "workloads/lazy_adam.h"
#include "workloads/ranking_metrics.h"
#include "workloads/torch_util.h"

namespace trainbench::workloads {

namespace {

using core::Json;

// "256,256,128,64" -> {256, 256, 128, 64}; throws core::Error naming the key.
std::vector<int64_t> ParseLayerSizes(const std::string& s) {
  std::vector<int64_t> out;
  std::stringstream in(s);
  std::string part;
  while (std::getline(in, part, ',')) {
    try {
      size_t used = 0;
      long long v = std::stoll(part, &used);
      if (used != part.size() || v < 1) throw std::invalid_argument(part);
      out.push_back(v);
    } catch (const std::exception&) {
      throw core::Error("configuration key \"mlp_layer_sizes\": \"" + s +
                        "\" is not a comma-separated list of positive integers");
    }
  }
  if (out.size() < 2 || out[0] % 2 != 0) {
    throw core::Error("configuration key \"mlp_layer_sizes\": \"" + s +
                      "\" needs at least two sizes, the first even (user and item halves)");
  }
  return out;
}

torch::Tensor ToLongTensor(const std::vector<int32_t>& v, const torch::Device& device) {
  auto t = torch::from_blob(const_cast<int32_t*>(v.data()), {static_cast<int64_t>(v.size())}, torch::kInt32);
  return t.to(device, torch::kInt64);
}

class Recommendation : public train::Workload {
 public:
  explicit Recommendation(std::string scale) : scale_(std::move(scale)) {}

  void CheckConfig(const Json& c, const std::string& /*device*/) const override {
    const std::string opt = c.at("opt_name").get<std::string>();
    if (c.at("fused_optimizer").get<bool>() && opt != "adam") {
      throw core::Error("configuration key \"fused_optimizer\": true needs opt_name adam (got " + opt + ")");
    }
    const std::string mlp_dtype = c.at("eval_mlp_dtype").get<std::string>();
    if (mlp_dtype != "fp32" && mlp_dtype != "bf16") {
      throw core::Error("configuration key \"eval_mlp_dtype\": expected fp32 or bf16, got \"" + mlp_dtype + "\"");
    }
  }

  void Init(const train::RunContext& ctx) override {
    ctx_ = ctx;
    const Json& c = ctx.config;
    device_ = SetUpTorch(ctx);
    batch_size_ = c.at("batch_size").get<int64_t>();
    opt_name_ = c.at("opt_name").get<std::string>();
    if (opt_name_ != "adam" && opt_name_ != "lazy_adam") {
      throw core::Error("configuration key \"opt_name\": optimizer \"" + opt_name_ +
                        "\" is not implemented (adam, lazy_adam)");
    }
    lr_ = c.at("base_lr").get<double>();
    beta1_ = c.at("adam_beta1").get<double>();
    beta2_ = c.at("adam_beta2").get<double>();
    eps_ = c.at("adam_epsilon").get<double>();
    num_neg_ = static_cast<int>(c.at("num_negatives").get<int64_t>());
    eval_neg_ = static_cast<int>(c.at("eval_negatives").get<int64_t>());
    min_ratings_ = static_cast<int>(c.at("min_ratings").get<int64_t>());
    topk_ = c.at("topk").get<int64_t>();
    mf_dim_ = c.at("mf_dim").get<int64_t>();
    layers_ = ParseLayerSizes(c.at("mlp_layer_sizes").get<std::string>());
    eval_seed_ = static_cast<uint64_t>(c.at("eval_seed").get<int64_t>());
    sparse_users_ = c.at("sparse_users").get<std::string>();
    if (sparse_users_ != "drop" && sparse_users_ != "error") {
      throw core::Error("configuration key \"sparse_users\": expected drop or error, got \"" + sparse_users_ + "\"");
    }
    eval_batch_pairs_ = c.at("eval_batch_pairs").get<int64_t>();
    // Intra-op threads per phase (0: the run's --threads). Small training GEMMs can run faster
    // on fewer threads than the evaluation's large batches (docs/performance.md).
    train_threads_ = static_cast<int>(c.at("train_threads").get<int64_t>());
    eval_threads_ = static_cast<int>(c.at("eval_threads").get<int64_t>());
    blas_threads_ = static_cast<int>(c.at("blas_threads").get<int64_t>());
    if (blas_threads_ > 0 && !SetBlasThreads(blas_threads_)) blas_note_ = "blas_threads: no OpenBLAS loaded, left as it is";
    CheckConfig(c, ctx.device);
    fused_optimizer_ = c.at("fused_optimizer").get<bool>();
    scorer_options_.fused_gather(c.at("eval_fused_gather").get<bool>());
    scorer_options_.mlp_dtype(c.at("eval_mlp_dtype").get<std::string>() == "bf16" ? torch::kBFloat16 : torch::kFloat32);
    if (train_threads_ <= 0) train_threads_ = std::max(1, ctx.threads);
    if (eval_threads_ <= 0) eval_threads_ = std::max(1, ctx.threads);
    train::CheckWorldSize(*this, ctx.benchmark, c, ctx.world_size);
  }

  train::LoggedEvents LoggedHyperparameters() const override {
    return {
        {"opt_name", opt_name_},
        {"opt_base_learning_rate", lr_},
        {"opt_adam_beta_1", beta1_},
        {"opt_adam_beta_2", beta2_},
        {"opt_adam_epsilon", eps_},
        {"preproc_hp_min_ratings", min_ratings_},
        {"preproc_hp_num_eval", eval_neg_},
        {"preproc_hp_sample_eval_replacement", false},
        {"input_hp_num_neg", num_neg_},
        {"input_hp_sample_train_replacement", true},
        {"eval_hp_num_neg", eval_neg_},
        {"eval_hp_top_k", topk_},
        {"model_hp_mf_dim", mf_dim_},
        {"model_hp_mlp_layer_sizes", Json(layers_)},
        {"model_hp_loss_fn", "binary_cross_entropy"},
    };
  }

  int64_t GlobalBatchSize() const override { return batch_size_; }
  Json RuntimeProvenance() const override {
    Json j = TorchProvenance(device_);
    j["train_intra_op_threads"] = train_threads_;
    j["eval_intra_op_threads"] = eval_threads_;
    j["fused_optimizer"] = fused_optimizer_;
    j["eval_fused_gather"] = scorer_options_.fused_gather();
    j["eval_mlp_dtype"] = scorer_options_.mlp_dtype() == torch::kBFloat16 ? "bf16" : "fp32";
    if (!blas_note_.empty()) j["blas_note"] = blas_note_;
    return j;
  }

  void LoadData() override {
    const std::string path = data::RatingsCsvPath(ctx_.data_dir);
    data::LeaveOneOutOptions lo;
    lo.min_ratings = min_ratings_;
    lo.sparse_users = sparse_users_ == "error" ? data::SparseUserPolicy::kError : data::SparseUserPolicy::kDrop;
    lo.eval_negatives = eval_neg_;
    lo.eval_seed = eval_seed_;
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

    model_ = models::NeuMF(models::NeuMFOptions(data_.num_users, data_.num_items)
                               .mf_dim(mf_dim_)
                               .mlp_layer_sizes(layers_)
                               .sparse_embeddings(opt_name_ == "lazy_adam"));
    model_->to(device_);
    group_ = RunGroup(ctx_);
    std::vector<torch::Tensor> sparse;
    if (opt_name_ == "lazy_adam") {
      sparse = {model_->mf_user_embed->weight, model_->mf_item_embed->weight, model_->mlp_user_embed->weight,
                model_->mlp_item_embed->weight};
    }
    reducer_ = MakeDataParallel(group_, *model_, sparse);
    if (opt_name_ == "lazy_adam") {
      lazy_adam_.emplace(model_->parameters(), LazyAdamOptions{lr_, beta1_, beta2_, eps_});
    } else if (fused_optimizer_) {
      fused_adam_.emplace(model_->parameters(), FusedAdamOptions{lr_, beta1_, beta2_, eps_, 0.0});
    } else {
      adam_.emplace(model_->parameters(),
                    torch::optim::AdamOptions(lr_).betas({beta1_, beta2_}).eps(eps_).weight_decay(0));
    }

    // Evaluation candidates, [users, 1 + eval_negatives]: column 0 the held-out positive.
    candidates_ = ToLongTensor(data_.EvalCandidates(), device_).view({data_.num_users, 1 + eval_neg_});
    data_.eval_negative_items.clear();
    data_.eval_negative_items.shrink_to_fit();
  }

  int64_t TrainSamples() const override { return data_.num_train() * (1 + num_neg_); }
  int64_t EvalSamples() const override { return data_.num_users; }

  train::LoggedEvents LoggedDataFacts() const override {
    return {{"eval_hp_num_users", data_.num_users}, {"trainbench_dataset", dataset_fact_}};
  }

  void TrainEpoch(int epoch, train::TrainControl& control) override {
    at::set_num_threads(train_threads_);
    model_->train();
    data::NegativeSamplerOptions so;
    so.num_negatives = num_neg_;
    so.seed = core::SeedFor(ctx_.seed, "data");
    so.threads = std::max(1, ctx_.loader_threads);
    data::SampleTrainEpoch(data_, so, epoch, &examples_);
    torch::Tensor users = ToLongTensor(examples_.users, device_);
    torch::Tensor items = ToLongTensor(examples_.items, device_);
    torch::Tensor labels =
        torch::from_blob(examples_.labels.data(), {examples_.size()}, torch::kFloat32).to(device_, torch::kFloat32, false, true);
    const int64_t n = examples_.size();
    const int64_t w = ctx_.world_size, r = ctx_.rank;
    for (int64_t b = 0; b < n; b += batch_size_) {
      const int64_t len = std::min(batch_size_, n - b);
      // This rank's share of the global batch.
      const int64_t lo = b + len * r / w, hi = b + len * (r + 1) / w;
      torch::Tensor u = users.slice(0, lo, hi), i = items.slice(0, lo, hi), y = labels.slice(0, lo, hi);
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
      if (!ReportStep(control, loss, step_, 20, len)) return;
    }
  }

  train::EvalResult Evaluate(int /*epoch*/) override {
    at::set_num_threads(eval_threads_);
    SyncForEvaluation(*group_, *model_);
    model_->eval();
    torch::NoGradGuard no_grad;
    const int64_t nu = data_.num_users, c = candidates_.size(1);
    const int64_t chunk = std::max<int64_t>(1, eval_batch_pairs_ / c);
    // This rank's users: a contiguous share; the sums are reduced over the ranks below.
    const int64_t first = nu * ctx_.rank / ctx_.world_size, last = nu * (ctx_.rank + 1) / ctx_.world_size;
    RankingSums sums;
    const models::NeuMFScorer scorer(model_, scorer_options_);
    for (int64_t b = first; b < last; b += chunk) {
      const int64_t e = std::min(last, b + chunk);
      torch::Tensor users = torch::arange(b, e, torch::TensorOptions().dtype(torch::kInt64).device(device_));
      torch::Tensor scores = scorer.Score(users, candidates_.slice(0, b, e));
      AccumulateRanking(scores, topk_, &sums);
    }
    std::vector<double> total = dist::AllReduceSum(*group_, {sums.hits, sums.ndcg, static_cast<double>(sums.users)});
    const double users = total[2];
    train::EvalResult res;
    res.samples = static_cast<int64_t>(users);
    res.value = users > 0 ? total[0] / users : 0.0;
    res.extra = Json{{"hr_at_k", res.value},
                     {"ndcg_at_k", users > 0 ? total[1] / users : 0.0},
                     {"k", topk_}};
    return res;
  }

 private:
  static std::string HashHex(uint64_t h) {
    char buf[24];
    std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(h));
    return buf;
  }

  std::string scale_;
  train::RunContext ctx_;
  torch::Device device_{torch::kCPU};
  int64_t batch_size_ = 0, topk_ = 10, mf_dim_ = 0, eval_batch_pairs_ = 1 << 18, step_ = 0;
  std::string opt_name_, sparse_users_;
  double lr_ = 0, beta1_ = 0, beta2_ = 0, eps_ = 0;
  int num_neg_ = 4, eval_neg_ = 999, min_ratings_ = 20, train_threads_ = 1, eval_threads_ = 1;
  int blas_threads_ = 0;
  std::string blas_note_;
  models::NeuMFScorerOptions scorer_options_;
  uint64_t eval_seed_ = 0;
  std::vector<int64_t> layers_;
  data::LeaveOneOutDataset data_;
  data::TrainExamples examples_;
  Json dataset_fact_ = Json::object();
  models::NeuMF model_{nullptr};
  std::shared_ptr<dist::ProcessGroup> group_;
  std::unique_ptr<dist::GradientReducer> reducer_;
  std::optional<torch::optim::Adam> adam_;
  std::optional<LazyAdam> lazy_adam_;
  std::optional<FusedAdam> fused_adam_;
  bool fused_optimizer_ = false;
  torch::Tensor candidates_;
};

}  // namespace

std::unique_ptr<train::Workload> MakeRecommendation(const std::string& scale) {
  if (scale != "mini" && scale != "full") throw core::Error("recommendation has no scale \"" + scale + "\"");
  return std::make_unique<Recommendation>(scale);
}

}  // namespace trainbench::workloads

#include "workloads/image_classification.h"

#include <torch/torch.h>
#include <torch/version.h>

#include <cmath>
#include <optional>

#include "core/error.h"
#include "core/mllog_keys.h"
#include "core/random.h"
#include "data/batch_loader.h"
#include "data/fashion_mnist_dataset.h"
#include "data/idx_reader.h"
#include "data/image_folder.h"
#include "data/imagenet_dataset.h"
#include "models/resnet.h"
#include "training/batch_tensors.h"
#include "training/data_parallel.h"
#include "training/lars.h"
#include "training/lr_schedule.h"
#include "training/memory_format.h"
#include "training/precision.h"
#include "training/runtime.h"
#include "training/step_report.h"
#include "workloads/image_classification_options.h"

namespace trainbench::workloads {

namespace {

using core::Json;

class ImageClassification : public train::Workload {
 public:
  explicit ImageClassification(core::Json preset) : preset_(std::move(preset)) {}

  void CheckConfig(const Json& c, const std::string& device) const override {
    training::ParsePrecision(ImageClassificationOptions::FromConfig(c, preset_).precision,
                             torch::Device(device));
  }

  void Init(const train::RunContext& ctx) override {
    ctx_ = ctx;
    const Json& c = ctx.config;
    device_ = training::SetUpTorch(ctx);
    opts_ = ImageClassificationOptions::FromConfig(c, preset_);
    precision_ = training::ParsePrecision(opts_.precision, device_);
    if (opts_.blas_threads > 0 && !training::SetBlasThreads(static_cast<int>(opts_.blas_threads))) {
      blas_note_ = "blas_threads: no OpenBLAS loaded, left as it is";
    }
    model_ = models::ResNet(models::ResNetOptions()
                                .in_channels(opts_.in_channels)
                                .num_classes(opts_.num_classes)
                                .bottleneck(opts_.bottleneck)
                                .imagenet_stem(opts_.imagenet_stem)
                                .blocks(opts_.blocks)
                                .widths(opts_.widths)
                                .zero_init_residual(opts_.zero_init_residual));
    model_->to(device_);
    if (opts_.channels_last) training::ToChannelsLast(*model_);
    if (precision_ == torch::kFloat16) scaler_.emplace();
    group_ = training::RunGroup(ctx);
    train::CheckWorldSize(*this, ctx.benchmark, c, ctx.world_size);
    // BatchNorm statistics stay per rank (model_bn_span = the per-rank batch), as in the reference.
    reducer_ = training::MakeDataParallel(group_, *model_);
    std::vector<torch::Tensor> params = model_->parameters();
    if (opts_.optimizer == ImageClassificationOptions::Optimizer::kSgd) {
      // Weight decay on every parameter, as torch.optim.SGD applies it in the reference.
      sgd_.emplace(params, torch::optim::SGDOptions(opts_.base_lr)
                               .momentum(opts_.momentum)
                               .weight_decay(opts_.weight_decay));
    } else {
      lars_.emplace(params, training::LarsOptions{opts_.base_lr, opts_.momentum, opts_.weight_decay,
                                                  opts_.lars_eta, 0.0});
    }
  }

  train::LoggedEvents LoggedHyperparameters() const override {
    const bool lars = opts_.optimizer == ImageClassificationOptions::Optimizer::kLars;
    const std::string p = lars ? core::keys::kLarsOptPrefix : core::keys::kSgdOptPrefix;
    train::LoggedEvents h = {
        {core::keys::kOptName, ImageClassificationOptions::OptimizerName(opts_.optimizer)},
        {p + "base_learning_rate", opts_.base_lr},
        {p + "end_learning_rate", opts_.end_lr},
        {p + "learning_rate_decay_poly_power", opts_.poly_power},
        {p + "learning_rate_decay_steps", DecaySteps()},
        {p + "weight_decay", opts_.weight_decay},
        {p + "momentum", opts_.momentum},
        {core::keys::kModelBnSpan, opts_.batch_size / ctx_.world_size},
    };
    if (lars) {
      h.push_back({core::keys::kLarsEpsilon, 0.0});
      h.push_back({core::keys::kLarsOptLrWarmupEpochs, opts_.warmup_epochs});
    } else {
      h.push_back({core::keys::kOptLrWarmupEpochs, opts_.warmup_epochs});
      // The official SGD rules require the schedule's boundaries (epochs where one segment
      // ends): here warmup -> polynomial decay, and decay -> constant end_lr.
      h.push_back({core::keys::kOptLrDecayBoundaryEpochs,
                   Json::array({opts_.warmup_epochs, opts_.decay_epochs})});
    }
    h.push_back(train::LoggedSetting(ctx_, "label_smoothing"));
    return h;
  }

  int64_t GlobalBatchSize() const override { return opts_.batch_size; }

  Json RuntimeProvenance() const override {
    Json j = training::TorchProvenance(device_);
    j["precision"] = training::PrecisionName(precision_);
    j["channels_last"] = opts_.channels_last;
    if (!blas_note_.empty()) j["blas_note"] = blas_note_;
    return j;
  }

  void LoadData() override {
    const data::BatchLoaderOptions train_opts = data::TrainLoaderOptions(
        opts_.batch_size / ctx_.world_size, core::SeedFor(ctx_.seed, "data"), ctx_.rank,
        ctx_.world_size, ctx_.loader_threads);
    const data::BatchLoaderOptions eval_opts =
        data::EvalLoaderOptions(train_opts, opts_.eval_batch_size);
    if (opts_.dataset == ImageClassificationOptions::Dataset::kFashionMnist) {
      auto train =
          std::make_shared<const data::MnistSplit>(data::LoadMnistSplit(ctx_.data_dir, "train"));
      auto test =
          std::make_shared<const data::MnistSplit>(data::LoadMnistSplit(ctx_.data_dir, "t10k"));
      data::FashionMnistOptions aug = data::FashionMnistTrainOptions();
      aug.crop_padding = opts_.crop_padding;
      train_set_ = std::make_shared<data::FashionMnistDataset>(train, aug);
      eval_set_ = std::make_shared<data::FashionMnistDataset>(test, data::FashionMnistOptions());
    } else {
      auto train = std::make_shared<const data::ImageFolder>(ctx_.data_dir + "/train");
      auto val = std::make_shared<const data::ImageFolder>(ctx_.data_dir + "/val");
      data::ImageNetOptions t;
      t.train = true;
      data::ImageNetOptions v;
      v.train = false;
      train_set_ = std::make_shared<data::ImageNetDataset>(train, t);
      eval_set_ = std::make_shared<data::ImageNetDataset>(val, v);
    }
    train_loader_ = std::make_unique<data::BatchLoader>(train_set_, train_opts);
    eval_loader_ = std::make_unique<data::BatchLoader>(eval_set_, eval_opts);
    const int64_t steps_per_epoch = train_loader_->num_batches();
    schedule_.base_lr = opts_.base_lr;
    schedule_.end_lr = opts_.end_lr;
    schedule_.power = opts_.poly_power;
    schedule_.warmup_steps =
        static_cast<int64_t>(std::llround(opts_.warmup_epochs * steps_per_epoch));
    schedule_.decay_steps = std::max<int64_t>(
        1, static_cast<int64_t>(std::llround(opts_.decay_epochs * steps_per_epoch)) -
               schedule_.warmup_steps);
  }

  int64_t TrainSamples() const override { return train_set_->size(); }
  int64_t EvalSamples() const override { return eval_set_->size(); }

  void TrainEpoch(int epoch, train::TrainControl& control) override {
    model_->train();
    train_loader_->StartEpoch(epoch);
    while (auto batch = train_loader_->Next()) {
      torch::Tensor x = Input(*batch);
      torch::Tensor y = training::BatchLabels(*batch, device_);
      const double lr = schedule_(step_);
      torch::Tensor loss;
      {
        // Forward under autocast; the softmax and the loss in fp32. Backward follows the casts.
        training::AutocastScope autocast(device_, precision_);
        torch::Tensor logits = model_->forward(x);
        loss = torch::nn::functional::cross_entropy(
            logits.to(torch::kFloat), y,
            torch::nn::functional::CrossEntropyFuncOptions().label_smoothing(
                opts_.label_smoothing));
      }
      if (sgd_) {
        for (auto& g : sgd_->param_groups())
          static_cast<torch::optim::SGDOptions&>(g.options()).lr(lr);
        sgd_->zero_grad();
        if (Backward(loss)) sgd_->step();
      } else {
        lars_->set_lr(lr);
        lars_->ZeroGrad();
        if (Backward(loss)) lars_->Step();
      }
      ++step_;
      if (!training::ReportStep(control, loss, step_, 20, batch->size * ctx_.world_size)) return;
    }
  }

  train::EvalResult Evaluate(int /*epoch*/) override {
    training::SyncForEvaluation(*group_, *model_);
    model_->eval();
    torch::NoGradGuard no_grad;
    eval_loader_->StartEpoch(0);
    int64_t correct = 0, seen = 0;
    while (auto batch = eval_loader_->Next()) {
      training::AutocastScope autocast(device_, precision_);
      torch::Tensor logits = model_->forward(Input(*batch));
      torch::Tensor pred = logits.argmax(1).slice(0, 0, batch->num_valid);
      torch::Tensor y = training::BatchLabels(*batch, device_).slice(0, 0, batch->num_valid);
      correct += pred.eq(y).sum().item<int64_t>();
      seen += batch->num_valid;
    }
    // Each rank evaluated its shard (kPad: every sample exactly once over the ranks).
    std::vector<double> sums =
        dist::AllReduceSum(*group_, {static_cast<double>(correct), static_cast<double>(seen)});
    train::EvalResult r;
    r.samples = static_cast<int64_t>(sums[1]);
    r.value = sums[1] > 0 ? sums[0] / sums[1] : 0.0;
    return r;
  }

 private:
  // Backward, with the gradients averaged over the ranks (overlapped with backward). With fp16,
  // through the loss scaler: false when the step must be skipped (inf/NaN gradients).
  bool Backward(const torch::Tensor& loss) {
    if (reducer_) reducer_->Prepare();
    (scaler_ ? scaler_->Scale(loss) : loss).backward();
    if (reducer_) reducer_->Finish();
    return !scaler_ || scaler_->UnscaleAndUpdate(model_->parameters());
  }

  torch::Tensor Input(const data::Batch& batch) const {
    torch::Tensor x = training::BatchImages(batch, device_);
    return opts_.channels_last ? x.contiguous(torch::MemoryFormat::ChannelsLast) : x;
  }

  int64_t DecaySteps() const {
    int64_t steps_per_epoch = opts_.train_samples_hint / opts_.batch_size;
    return static_cast<int64_t>(
        std::llround((opts_.decay_epochs - opts_.warmup_epochs) * steps_per_epoch));
  }

  core::Json preset_;  // the scale's (core::ScaleDef::preset)
  train::RunContext ctx_;
  torch::Device device_{torch::kCPU};
  models::ResNet model_{nullptr};
  std::shared_ptr<dist::ProcessGroup> group_;
  std::unique_ptr<dist::GradientReducer> reducer_;
  std::optional<torch::optim::SGD> sgd_;
  std::optional<training::Lars> lars_;
  std::optional<training::LossScaler> scaler_;
  ImageClassificationOptions opts_;
  torch::Dtype precision_ = torch::kFloat32;
  std::string blas_note_;
  training::PolyWarmupSchedule schedule_;
  int64_t step_ = 0;
  std::shared_ptr<data::Dataset> train_set_, eval_set_;
  std::unique_ptr<data::BatchLoader> train_loader_, eval_loader_;
};

}  // namespace

std::unique_ptr<train::Workload> MakeImageClassification(const core::ScaleDef& scale) {
  return std::make_unique<ImageClassification>(scale.preset);
}

}  // namespace trainbench::workloads

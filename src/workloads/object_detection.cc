#include "workloads/object_detection.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "coco/coco_dataset.h"
#include "coco/coco_eval.h"
#include "core/error.h"
#include "core/mllog_keys.h"
#include "core/paths.h"
#include "core/random.h"
#include "data/batch_loader.h"
#include "models/ssd.h"
#include "models/state_dict.h"
#include "training/batch_tensors.h"
#include "training/data_parallel.h"
#include "training/runtime.h"
#include "training/step_report.h"
#include "vision/augment.h"
#include "workloads/detection_data.h"
#include "workloads/detection_options.h"

namespace trainbench::workloads {

namespace {

using core::Json;

// Where a COCO-layout dataset keeps its files (the mini dataset uses the same layout).
class ObjectDetection : public train::Workload {
 public:
  explicit ObjectDetection(core::Json preset) : preset_(std::move(preset)) {}

  void Init(const train::RunContext& ctx) override {
    ctx_ = ctx;
    device_ = training::SetUpTorch(ctx);
    opts_ = ObjectDetectionOptions::FromConfig(ctx.config, preset_);
    const DetectionOptions& d = opts_.detection;
    if (d.blas_threads > 0) training::SetBlasThreads(static_cast<int>(d.blas_threads));
    input_.image_size = opts_.image_size;
    input_.match_iou = opts_.match_iou;
    decode_.nms_iou = d.nms_iou;
    decode_.max_output = d.max_detections;
    decode_.score_threshold = d.score_threshold;
    train::CheckWorldSize(*this, ctx.benchmark, ctx.config, ctx.world_size);
    models::SsdOptions so;
    if (opts_.model == SsdModel::kMini) {
      so = models::MiniSsdOptions(d.num_classes, input_.image_size, d.width, d.blocks_per_stage);
    } else {
      so = models::Ssd300Options(d.num_classes);
    }
    model_ = models::Ssd(so);
    // The reference starts from ImageNet-pretrained torchvision weights for the trunk.
    if (!opts_.pretrained_trunk.empty()) {
      pretrained_ =
          models::LoadStateDict(*model_->trunk, core::ExpandDataPath(opts_.pretrained_trunk));
    }
    const std::vector<int64_t> maps = model_->FeatureSizes(input_.image_size);
    const models::DefaultBoxOptions dbo = opts_.model == SsdModel::kMini
                                              ? models::MiniDefaultBoxes(input_.image_size, maps)
                                              : models::Ssd300DefaultBoxes();
    if (dbo.feat_size != maps || models::DefaultBoxesPerCell(dbo) != so.num_defaults) {
      throw core::Error("SSD: the default boxes do not fit the model's feature maps");
    }
    scale_xy_ = dbo.scale_xy;
    scale_wh_ = dbo.scale_wh;
    dboxes_ = models::MakeDefaultBoxes(dbo);
    model_->to(device_);
    group_ = training::RunGroup(ctx);
    reducer_ = training::MakeDataParallel(group_, *model_);
    sgd_.emplace(
        model_->parameters(),
        torch::optim::SGDOptions(d.base_lr).momentum(d.momentum).weight_decay(d.weight_decay));
  }

  train::LoggedEvents LoggedHyperparameters() const override {
    const DetectionOptions& d = opts_.detection;
    return {
        {core::keys::kOptName, "sgd"},
        train::LoggedSetting(ctx_, "base_lr"),
        train::LoggedSetting(ctx_, "momentum"),
        train::LoggedSetting(ctx_, "weight_decay"),
        train::LoggedSetting(ctx_, "warmup_epochs"),
        {core::keys::kOptLrWarmupFactor, 0.0},
        {core::keys::kOptLrDecayBoundaryEpochs,
         Json::array({d.lr_decay_epoch_1, d.lr_decay_epoch_2})},
        train::LoggedSetting(ctx_, "lr_decay_factor"),
        {core::keys::kModelBnSpan, d.batch_size / ctx_.world_size},
        // The random crop's windows tried per drawn mode (the reference's sampling trials; the
        // training pipeline uses SsdRandomCrop's default options). The warmup in steps needs the
        // data: LoggedDataFacts.
        {core::keys::kMaxSamples, vision::SsdCropOptions{}.attempts},
        {core::keys::kBackbone, opts_.backbone},
        {core::keys::kModelHpPretrainedTrunk, pretrained_ ? pretrained_->sha256 : std::string()},
        train::LoggedSetting(ctx_, "image_size"),
        train::LoggedSetting(ctx_, "width"),
        train::LoggedSetting(ctx_, "blocks_per_stage"),
        train::LoggedSetting(ctx_, "num_classes"),
        {core::keys::kModelHpDefaultBoxes, dboxes_.size(0)},
        train::LoggedSetting(ctx_, "match_iou"),
        train::LoggedSetting(ctx_, "neg_ratio"),
        train::LoggedSetting(ctx_, "nms_iou"),
        train::LoggedSetting(ctx_, "max_detections"),
        train::LoggedSetting(ctx_, "score_threshold"),
    };
  }

  int64_t GlobalBatchSize() const override { return opts_.detection.batch_size; }

  Json RuntimeProvenance() const override {
    Json j = training::TorchProvenance(device_);
    j["model_macs_per_image"] = model_->ForwardMacs(input_.image_size);
    return j;
  }

  void LoadData() override {
    const CocoRunData d = LoadCocoRunData(ctx_, opts_.detection, false);
    train_split_ = d.splits.train;
    eval_split_ = d.splits.eval;
    eval_gt_ = d.splits.eval_gt;
    train_set_ = std::make_shared<SsdTrainDataset>(train_split_, input_, dboxes_);
    eval_set_ = std::make_shared<SsdEvalDataset>(eval_split_, input_);
    train_loader_ = std::make_unique<data::BatchLoader>(train_set_, d.train_loader);
    eval_loader_ = std::make_unique<data::BatchLoader>(eval_set_, d.eval_loader);
    steps_per_epoch_ = train_loader_->num_batches();
  }

  int64_t TrainSamples() const override { return train_set_->size(); }
  int64_t EvalSamples() const override { return eval_set_->size(); }

  train::LoggedEvents LoggedDataFacts() const override {
    // The steps the linear warmup lasts (LearningRate: while step < warmup_epochs x steps per
    // epoch).
    return {{core::keys::kOptLrWarmupSteps,
             std::max<int64_t>(0, StepAtEpoch(opts_.warmup_epochs, steps_per_epoch_))},
            {core::keys::kTrainbenchTrainCrowdAnnotationsDropped, train_split_->crowd_dropped},
            {core::keys::kTrainbenchTrainImagesWithoutObjectsDropped, train_split_->empty_dropped}};
  }

  void TrainEpoch(int epoch, train::TrainControl& control) override {
    model_->train();
    train_loader_->StartEpoch(epoch);
    const int64_t a = dboxes_.size(0);
    while (auto batch = train_loader_->Next()) {
      const torch::Tensor x = training::BatchImages(*batch, device_);
      const torch::Tensor extra =
          torch::from_blob(batch->extra.data(), {batch->size, 5 * a}, torch::kFloat32).to(device_);
      const torch::Tensor gloc =
          extra.narrow(1, 0, 4 * a).view({batch->size, a, 4}).permute({0, 2, 1});
      const torch::Tensor glabel = extra.narrow(1, 4 * a, a).to(torch::kInt64);
      const double lr = LearningRate(step_);
      for (auto& g : sgd_->param_groups())
        static_cast<torch::optim::SGDOptions&>(g.options()).lr(lr);
      auto [ploc, pconf] = model_->forward(x);
      const torch::Tensor loss = models::SsdLoss(ploc, pconf, gloc, glabel, dboxes_, scale_xy_,
                                                 scale_wh_, opts_.neg_ratio);
      sgd_->zero_grad();
      if (reducer_) reducer_->Prepare();
      loss.backward();
      if (reducer_) reducer_->Finish();
      sgd_->step();
      ++step_;
      if (!training::ReportStep(control, loss, step_, 10, batch->size * ctx_.world_size)) return;
    }
  }

  train::EvalResult Evaluate(int /*epoch*/) override {
    training::SyncForEvaluation(*group_, *model_);
    model_->eval();
    torch::NoGradGuard no_grad;
    // Each rank decodes its shard into rows [image index][detection][x, y, w, h, score, label]
    // of a zero buffer; summing the buffers over the ranks gathers every image's detections
    // (each image belongs to one rank).
    const int64_t n_images = eval_set_->size(), k = decode_.max_output;
    std::vector<double> rows(static_cast<size_t>(n_images * k * 6), 0.0);
    std::vector<double> counts(static_cast<size_t>(n_images), 0.0);
    eval_loader_->StartEpoch(0);
    while (auto batch = eval_loader_->Next()) {
      auto [ploc, pconf] = model_->forward(training::BatchImages(*batch, device_));
      const std::vector<models::Detections> dets =
          models::SsdDecode(ploc, pconf, dboxes_, scale_xy_, scale_wh_, decode_);
      for (int64_t r = 0; r < batch->num_valid; ++r) {
        const int64_t idx = batch->sample_indices[static_cast<size_t>(r)];
        const DetectionImage& im = eval_split_->images[static_cast<size_t>(idx)];
        const models::Detections& d = dets[static_cast<size_t>(r)];
        const int64_t m = std::min<int64_t>(d.scores.size(0), k);
        auto b = d.boxes.accessor<float, 2>();
        auto s = d.scores.accessor<float, 1>();
        auto l = d.labels.accessor<int64_t, 1>();
        const double w = static_cast<double>(im.width), h = static_cast<double>(im.height);
        for (int64_t j = 0; j < m; ++j) {
          double* row = rows.data() + (idx * k + j) * 6;
          row[0] = b[j][0] * w;
          row[1] = b[j][1] * h;
          row[2] = (b[j][2] - b[j][0]) * w;
          row[3] = (b[j][3] - b[j][1]) * h;
          row[4] = s[j];
          row[5] = static_cast<double>(l[j]);
        }
        counts[static_cast<size_t>(idx)] = static_cast<double>(m);
      }
    }
    if (ctx_.world_size > 1) {
      rows = dist::AllReduceSum(*group_, rows);
      counts = dist::AllReduceSum(*group_, counts);
    }
    std::vector<coco::Detection> results;
    for (int64_t i = 0; i < n_images; ++i) {
      const int64_t m = std::llround(counts[static_cast<size_t>(i)]);
      for (int64_t j = 0; j < m; ++j) {
        const double* row = rows.data() + (i * k + j) * 6;
        coco::Detection det;
        det.image_id = eval_split_->images[static_cast<size_t>(i)].image_id;
        det.category_id = eval_split_->category_ids[static_cast<size_t>(std::llround(row[5])) - 1];
        det.bbox = {row[0], row[1], row[2], row[3]};
        det.score = row[4];
        results.push_back(det);
      }
    }
    const coco::CocoStats stats =
        coco::EvaluateDetections(*eval_gt_, results, coco::IouType::kBbox);
    train::EvalResult r;
    r.value = stats.values[0];
    r.samples = n_images;
    Json s = Json::array();
    for (double v : stats.values) s.push_back(v);
    r.extra["coco_bbox_stats"] = s;
    r.extra["detections"] = static_cast<int64_t>(results.size());
    return r;
  }

 private:
  // Linear warmup from 0 over warmup_epochs, then base_lr, x decay_factor after each boundary.
  double LearningRate(int64_t step) const {
    const DetectionOptions& d = opts_.detection;
    const double warmup_epochs = opts_.warmup_epochs;
    const double epoch =
        static_cast<double>(step) / static_cast<double>(std::max<int64_t>(1, steps_per_epoch_));
    double lr = d.base_lr;
    if (warmup_epochs > 0 && epoch < warmup_epochs)
      lr *=
          (static_cast<double>(step) + 1) / (warmup_epochs * static_cast<double>(steps_per_epoch_));
    if (d.lr_decay_epoch_1 > 0 && epoch >= d.lr_decay_epoch_1) lr *= d.lr_decay_factor;
    if (d.lr_decay_epoch_2 > 0 && epoch >= d.lr_decay_epoch_2) lr *= d.lr_decay_factor;
    return lr;
  }

  core::Json preset_;  // the scale's (core::ScaleDef::preset)
  ObjectDetectionOptions opts_;
  train::RunContext ctx_;
  torch::Device device_{torch::kCPU};
  models::Ssd model_{nullptr};
  std::optional<models::StateDictLoadReport> pretrained_;
  torch::Tensor dboxes_;
  double scale_xy_ = 0.1, scale_wh_ = 0.2;
  std::shared_ptr<dist::ProcessGroup> group_;
  std::unique_ptr<dist::GradientReducer> reducer_;
  std::optional<torch::optim::SGD> sgd_;
  int64_t steps_per_epoch_ = 1, step_ = 0;
  SsdInputOptions input_;
  models::SsdDecodeOptions decode_;
  std::shared_ptr<const DetectionSplit> train_split_, eval_split_;
  std::shared_ptr<const coco::CocoDataset> eval_gt_;
  std::shared_ptr<data::Dataset> train_set_, eval_set_;
  std::unique_ptr<data::BatchLoader> train_loader_, eval_loader_;
};

}  // namespace

std::unique_ptr<train::Workload> MakeObjectDetection(const core::ScaleDef& scale) {
  return std::make_unique<ObjectDetection>(scale.preset);
}

}  // namespace trainbench::workloads

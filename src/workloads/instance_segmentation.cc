#include "workloads/instance_segmentation.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>

#include "coco/coco_dataset.h"
#include "coco/coco_eval.h"
#include "core/config_reader.h"
#include "core/error.h"
#include "core/malloc_reuse.h"
#include "core/mllog_keys.h"
#include "core/random.h"
#include "data/batch_loader.h"
#include "data/random.h"
#include "dist/process_group.h"
#include "models/mask_rcnn.h"
#include "training/data_parallel.h"
#include "training/memory_format.h"
#include "training/precision.h"
#include "training/runtime.h"
#include "training/step_report.h"
#include "vision/masks.h"
#include "workloads/detection_data.h"
#include "workloads/detection_options.h"

namespace trainbench::workloads {

namespace {

using core::Json;

// Each row's resized (height, width) from the dataset's side data, and whether it was flipped.
struct RowGeometry {
  int64_t height = 0, width = 0;
  bool flipped = false;
};

std::vector<RowGeometry> Geometry(const data::Batch& batch) {
  std::vector<RowGeometry> g(static_cast<size_t>(batch.size));
  for (int64_t r = 0; r < batch.size; ++r) {
    const float* e = batch.extra.data() + r * batch.extra_floats;
    g[static_cast<size_t>(r)] = {static_cast<int64_t>(e[0]), static_cast<int64_t>(e[1]),
                                 e[2] != 0.f};
  }
  return g;
}

// The batch's images cropped to its largest image rounded up to `divisibility` (the reference's
// collator pads each batch only that far), and each image's true size; NHWC when channels_last.
std::pair<torch::Tensor, models::ImageSizes> CroppedBatch(const data::Batch& batch,
                                                          const std::vector<RowGeometry>& g,
                                                          int64_t divisibility,
                                                          const torch::Device& device,
                                                          bool channels_last) {
  models::ImageSizes sizes;
  int64_t h = 1, w = 1;
  for (const auto& r : g) {
    sizes.emplace_back(r.height, r.width);
    h = std::max(h, r.height);
    w = std::max(w, r.width);
  }
  h = std::min<int64_t>(RoundUpTo(h, divisibility), batch.shape.height);
  w = std::min<int64_t>(RoundUpTo(w, divisibility), batch.shape.width);
  torch::Tensor all = torch::from_blob(
      const_cast<float*>(batch.data.data()),
      {batch.size, batch.shape.channels, batch.shape.height, batch.shape.width}, torch::kFloat32);
  return {all.narrow(2, 0, h)
              .narrow(3, 0, w)
              .to(device, torch::kFloat32, false, true)
              .contiguous(channels_last ? torch::MemoryFormat::ChannelsLast
                                        : torch::MemoryFormat::Contiguous),
          sizes};
}

class InstanceSegmentation : public train::Workload {
 public:
  explicit InstanceSegmentation(core::Json preset) : preset_(std::move(preset)) {}

  // The precision only: FromConfig here would also refuse min_size > max_size before the run,
  // which Init has always done inside it.
  void CheckConfig(const Json& c, const std::string& device) const override {
    training::ParsePrecision(core::ConfigReader(c).String("precision"), torch::Device(device));
  }

  void Init(const train::RunContext& ctx) override {
    ctx_ = ctx;
    device_ = training::SetUpTorch(ctx);
    // The heads' activations (tens of MB a step, allocated and freed every step) would otherwise be
    // mmapped and unmapped each time, page-faulting anew: about 16% of a mini step on 2 cores.
    // glibc's largest mmap threshold, and no trimming of the freed heap top below 1 GB; nothing
    // when SetUpTorch has applied malloc_reuse.
    core::RaiseMmapThreshold();
    opts_ = InstanceSegmentationOptions::FromConfig(ctx.config, preset_);
    const DetectionOptions& d = opts_.detection;
    if (d.blas_threads > 0) training::SetBlasThreads(static_cast<int>(d.blas_threads));
    input_.min_size = opts_.min_size;
    input_.max_size = opts_.max_size;
    precision_ = training::ParsePrecision(opts_.precision, device_);
    train::CheckWorldSize(*this, ctx.benchmark, ctx.config, ctx.world_size);
    models::MaskRcnnOptions mo;
    if (opts_.model == MaskRcnnModel::kMini) {
      mo = models::MiniMaskRcnnOptions(d.num_classes, input_.max_size, d.width, d.blocks_per_stage,
                                       opts_.fpn_channels);
    } else {
      mo = models::MaskRcnnR50FpnOptions(d.num_classes);
    }
    mo.rpn_post_nms_top_n_train = opts_.rpn_post_nms_top_n_train;
    mo.rpn_pre_nms_top_n_train = opts_.rpn_pre_nms_top_n_train;
    mo.rpn_post_nms_top_n_test = opts_.rpn_post_nms_top_n_test;
    mo.rpn_pre_nms_top_n_test = opts_.rpn_pre_nms_top_n_test;
    mo.roi_batch_size_per_image = opts_.roi_batch_size_per_image;
    mo.mask_head_channels = opts_.mask_head_channels;
    mo.mask_pool_size = opts_.mask_pool_size;
    detect_.score_thresh = d.score_threshold;
    detect_.nms_thresh = d.nms_iou;
    detect_.detections_per_img = d.max_detections;
    model_ = models::MaskRcnn(mo);
    model_->to(device_);
    if (opts_.channels_last) training::ToChannelsLast(*model_);
    if (precision_ == torch::kFloat16) scaler_.emplace();
    group_ = training::RunGroup(ctx);
    reducer_ = training::MakeDataParallel(group_, *model_);
    // The reference's optimizer: biases at bias_lr_factor x the learning rate, no weight decay.
    std::vector<torch::Tensor> weights, biases;
    for (const auto& p : model_->named_parameters()) {
      if (!p.value().requires_grad()) continue;
      const std::string& k = p.key();
      (k.size() >= 4 && k.compare(k.size() - 4, 4, "bias") == 0 ? biases : weights)
          .push_back(p.value());
    }
    std::vector<torch::optim::OptimizerParamGroup> groups;
    groups.emplace_back(
        weights,
        std::make_unique<torch::optim::SGDOptions>(
            torch::optim::SGDOptions(d.base_lr).momentum(d.momentum).weight_decay(d.weight_decay)));
    groups.emplace_back(biases, std::make_unique<torch::optim::SGDOptions>(
                                    torch::optim::SGDOptions(d.base_lr * opts_.bias_lr_factor)
                                        .momentum(d.momentum)
                                        .weight_decay(0)));
    sgd_.emplace(std::move(groups), torch::optim::SGDOptions(d.base_lr));
    sampling_rng_ =
        data::Rng(core::SeedFor(ctx.seed, "maskrcnn_sampling"), static_cast<uint64_t>(ctx.rank));
  }

  train::LoggedEvents LoggedHyperparameters() const override {
    const auto& o = model_->options();
    const DetectionOptions& d = opts_.detection;
    return {
        {core::keys::kOptName, "sgd"},
        train::LoggedSetting(ctx_, "base_lr"),
        train::LoggedSetting(ctx_, "momentum"),
        train::LoggedSetting(ctx_, "weight_decay"),
        train::LoggedSetting(ctx_, "bias_lr_factor"),
        {core::keys::kOptBiasWeightDecay, 0.0},
        train::LoggedSetting(ctx_, "warmup_steps"),
        train::LoggedSetting(ctx_, "warmup_factor"),
        {core::keys::kOptLrDecayBoundaryEpochs,
         Json::array({d.lr_decay_epoch_1, d.lr_decay_epoch_2})},
        train::LoggedSetting(ctx_, "lr_decay_factor"),
        {core::keys::kModelBnSpan, d.batch_size / ctx_.world_size},
        // The official closed keys (training_0.7.0/closed_maskrcnn.yaml): the RPN's proposals kept
        // per image for training (the reference's FPN_POST_NMS_TOP_N_TRAIN) and the resized
        // image's shorter side and its longest side allowed (INPUT.MIN/MAX_SIZE_TRAIN). The decay
        // boundaries in steps need the data: LoggedDataFacts.
        {core::keys::kNumImageCandidates, o.rpn_post_nms_top_n_train},
        {core::keys::kMinImageSize, input_.min_size},
        {core::keys::kMaxImageSize, input_.max_size},
        {core::keys::kBackbone, opts_.backbone},
        train::LoggedSetting(ctx_, "min_size"),
        train::LoggedSetting(ctx_, "max_size"),
        train::LoggedSetting(ctx_, "width"),
        train::LoggedSetting(ctx_, "blocks_per_stage"),
        train::LoggedSetting(ctx_, "fpn_channels"),
        train::LoggedSetting(ctx_, "num_classes"),
        {core::keys::kModelHpRpnBatchSizePerImage, o.rpn_batch_size_per_image},
        train::LoggedSetting(ctx_, "rpn_pre_nms_top_n_train"),
        train::LoggedSetting(ctx_, "rpn_post_nms_top_n_train"),
        train::LoggedSetting(ctx_, "roi_batch_size_per_image"),
        {core::keys::kModelHpRoiPositiveFraction, o.roi_positive_fraction},
        train::LoggedSetting(ctx_, "mask_head_channels"),
        train::LoggedSetting(ctx_, "mask_pool_size"),
        train::LoggedSetting(ctx_, "rpn_pre_nms_top_n_test"),
        train::LoggedSetting(ctx_, "rpn_post_nms_top_n_test"),
        train::LoggedSetting(ctx_, "nms_iou"),
        train::LoggedSetting(ctx_, "max_detections"),
        train::LoggedSetting(ctx_, "score_threshold"),
        {core::keys::kEvalHpMaskThreshold, 0.5},
    };
  }

  int64_t GlobalBatchSize() const override { return opts_.detection.batch_size; }

  Json RuntimeProvenance() const override {
    Json j = training::TorchProvenance(device_);
    j["precision"] = training::PrecisionName(precision_);
    j["channels_last"] = opts_.channels_last;
    const int64_t s = input_.max_size;
    j["model_macs_per_image_train"] = model_->ForwardMacs(s, s, true);
    j["model_macs_per_image_eval"] = model_->ForwardMacs(s, s, false, detect_.detections_per_img);
    return j;
  }

  void LoadData() override {
    const CocoRunData d = LoadCocoRunData(ctx_, opts_.detection, true);
    train_split_ = d.splits.train;
    eval_split_ = d.splits.eval;
    eval_gt_ = d.splits.eval_gt;
    MaskRcnnInputOptions eval_input = input_;
    eval_input.train = false;
    train_set_ = std::make_shared<MaskRcnnDataset>(train_split_, input_);
    eval_set_ = std::make_shared<MaskRcnnDataset>(eval_split_, eval_input);
    train_loader_ = std::make_unique<data::BatchLoader>(train_set_, d.train_loader);
    eval_loader_ = std::make_unique<data::BatchLoader>(eval_set_, d.eval_loader);
    steps_per_epoch_ = train_loader_->num_batches();
  }

  int64_t TrainSamples() const override { return train_set_->size(); }
  int64_t EvalSamples() const override { return eval_set_->size(); }

  train::LoggedEvents LoggedDataFacts() const override {
    // The two decay boundaries as the reference's SOLVER.STEPS: the first (0-based) step that
    // trains at the decayed rate, ceil(epoch boundary x steps per epoch); null for a boundary
    // that is off (0).
    auto step_of = [&](double epoch) -> Json {
      if (epoch <= 0) return nullptr;
      return StepAtEpoch(epoch, steps_per_epoch_);
    };
    return {
        {core::keys::kOptLrDecaySteps, Json::array({step_of(opts_.detection.lr_decay_epoch_1),
                                                    step_of(opts_.detection.lr_decay_epoch_2)})},
        {core::keys::kTrainbenchTrainCrowdAnnotationsDropped, train_split_->crowd_dropped},
        {core::keys::kTrainbenchTrainImagesWithoutObjectsDropped, train_split_->empty_dropped}};
  }

  void TrainEpoch(int epoch, train::TrainControl& control) override {
    model_->train();
    train_loader_->StartEpoch(epoch);
    while (auto batch = train_loader_->Next()) {
      const std::vector<RowGeometry> g = Geometry(*batch);
      auto [images, sizes] =
          CroppedBatch(*batch, g, input_.size_divisibility, device_, opts_.channels_last);
      std::vector<models::MaskRcnnTarget> targets;
      targets.reserve(g.size());
      for (int64_t r = 0; r < batch->size; ++r) {
        const DetectionImage& im =
            train_split_
                ->images[static_cast<size_t>(batch->sample_indices[static_cast<size_t>(r)])];
        const RowGeometry& rg = g[static_cast<size_t>(r)];
        MaskRcnnTargetData t = MakeMaskRcnnTarget(im, rg.height, rg.width, rg.flipped);
        targets.push_back({t.boxes.to(device_), t.labels.to(device_), t.masks.to(device_)});
      }
      SetLearningRate(LearningRate(step_));
      torch::Tensor loss;
      {
        // The network under autocast; the model keeps the rest (boxes, sampling, losses) in fp32.
        training::AutocastScope autocast(device_, precision_);
        const auto losses = model_->Losses(images, sizes, targets, sampling_rng_);
        for (const auto& [name, value] : losses) loss = loss.defined() ? loss + value : value;
      }
      sgd_->zero_grad();
      if (reducer_) reducer_->Prepare();
      (scaler_ ? scaler_->Scale(loss) : loss).backward();
      if (reducer_) reducer_->Finish();
      if (!scaler_ || scaler_->UnscaleAndUpdate(model_->parameters())) sgd_->step();
      ++step_;
      if (!training::ReportStep(control, loss, step_, 10, batch->size * ctx_.world_size)) return;
    }
  }

  train::EvalResult Evaluate(int /*epoch*/) override {
    training::SyncForEvaluation(*group_, *model_);
    model_->eval();
    torch::NoGradGuard no_grad;
    std::vector<coco::Detection> results;
    eval_loader_->StartEpoch(0);
    while (auto batch = eval_loader_->Next()) {
      const std::vector<RowGeometry> g = Geometry(*batch);
      auto [images, sizes] =
          CroppedBatch(*batch, g, input_.size_divisibility, device_, opts_.channels_last);
      std::vector<models::MaskRcnnDetections> dets;
      {
        training::AutocastScope autocast(device_, precision_);
        dets = model_->Detect(images, sizes, detect_);
      }
      for (int64_t r = 0; r < batch->num_valid; ++r) {
        const DetectionImage& im =
            eval_split_->images[static_cast<size_t>(batch->sample_indices[static_cast<size_t>(r)])];
        AppendResults(im, g[static_cast<size_t>(r)], dets[static_cast<size_t>(r)], &results);
      }
    }
    if (ctx_.world_size > 1) results = GatherResults(results);
    const coco::CocoStats box = coco::EvaluateDetections(*eval_gt_, results, coco::IouType::kBbox);
    const coco::CocoStats segm = coco::EvaluateDetections(*eval_gt_, results, coco::IouType::kSegm);
    train::EvalResult r;
    r.value = box.values[0];
    r.samples = eval_set_->size();
    r.extra["segm_map"] = segm.values[0];  // the secondary target's metric (the harness's check)
    r.logged = {{core::keys::kEvalBbox, box.values[0]}, {core::keys::kEvalSegm, segm.values[0]}};
    Json bs = Json::array(), ss = Json::array();
    for (double v : box.values) bs.push_back(v);
    for (double v : segm.values) ss.push_back(v);
    r.extra["coco_bbox_stats"] = bs;
    r.extra["coco_segm_stats"] = ss;
    r.extra["detections"] = static_cast<int64_t>(results.size());
    return r;
  }

 private:
  // One image's detections in the original image's pixels: boxes scaled back per axis (as the
  // reference's BoxList.resize), masks pasted at the original size and RLE-encoded.
  void AppendResults(const DetectionImage& im, const RowGeometry& g,
                     const models::MaskRcnnDetections& d, std::vector<coco::Detection>* out) const {
    const int64_t n = d.scores.size(0);
    if (n == 0) return;
    const double rx = static_cast<double>(im.width) / static_cast<double>(g.width);
    const double ry = static_cast<double>(im.height) / static_cast<double>(g.height);
    const torch::Tensor scale = torch::tensor(
        {rx, ry, rx, ry}, torch::TensorOptions().dtype(torch::kFloat32).device(d.boxes.device()));
    const torch::Tensor boxes = d.boxes * scale;
    const torch::Tensor masks =
        vision::PasteMasksInImage(d.masks, boxes, im.height, im.width, 1, 0.5).to(torch::kCPU);
    const torch::Tensor b = boxes.to(torch::kCPU, torch::kFloat64).contiguous();
    const torch::Tensor s = d.scores.to(torch::kCPU, torch::kFloat64).contiguous();
    const torch::Tensor l = d.labels.to(torch::kCPU).contiguous();
    auto ba = b.accessor<double, 2>();
    auto sa = s.accessor<double, 1>();
    auto la = l.accessor<int64_t, 1>();
    for (int64_t j = 0; j < n; ++j) {
      coco::Detection det;
      det.image_id = im.image_id;
      det.category_id = eval_split_->category_ids[static_cast<size_t>(la[j] - 1)];
      det.bbox = {ba[j][0], ba[j][1], ba[j][2] - ba[j][0], ba[j][3] - ba[j][1]};
      det.score = sa[j];
      det.segmentation = coco::Rle{im.height, im.width, vision::MaskToRle(masks[j][0])};
      out->push_back(std::move(det));
    }
  }

  // Every rank's detections, in rank order: each rank's results as COCO results JSON (masks as
  // compressed RLE), the byte strings padded to the longest and all-gathered.
  std::vector<coco::Detection> GatherResults(const std::vector<coco::Detection>& mine) const {
    const std::string text = coco::CocoResultsToJson(mine);
    std::vector<double> lengths(static_cast<size_t>(ctx_.world_size), 0.0);
    lengths[static_cast<size_t>(ctx_.rank)] = static_cast<double>(text.size());
    lengths = dist::AllReduceSum(*group_, lengths);
    const int64_t longest = static_cast<int64_t>(*std::max_element(lengths.begin(), lengths.end()));
    torch::Tensor buf = torch::zeros({std::max<int64_t>(1, longest)}, torch::kUInt8);
    std::memcpy(buf.data_ptr<uint8_t>(), text.data(), text.size());
    const std::vector<torch::Tensor> all = group_->AllGather(buf);
    std::vector<coco::Detection> out;
    for (int rank = 0; rank < ctx_.world_size; ++rank) {
      const torch::Tensor t = all[static_cast<size_t>(rank)].to(torch::kCPU).contiguous();
      const std::string part(reinterpret_cast<const char*>(t.data_ptr<uint8_t>()),
                             static_cast<size_t>(lengths[static_cast<size_t>(rank)]));
      auto dets =
          coco::ParseCocoResults(part, "the detections of rank " + std::to_string(rank), *eval_gt_);
      out.insert(out.end(), std::make_move_iterator(dets.begin()),
                 std::make_move_iterator(dets.end()));
    }
    return out;
  }

  // The reference's WarmupMultiStepLR (linear warmup: factor warmup_factor at step 0 rising to 1
  // at warmup_steps), with the decay boundaries in epochs.
  double LearningRate(int64_t step) const {
    const DetectionOptions& d = opts_.detection;
    double lr = d.base_lr;
    if (step < opts_.warmup_steps) {
      const double alpha = static_cast<double>(step) / static_cast<double>(opts_.warmup_steps);
      lr *= opts_.warmup_factor * (1 - alpha) + alpha;
    }
    const double epoch =
        static_cast<double>(step) / static_cast<double>(std::max<int64_t>(1, steps_per_epoch_));
    if (d.lr_decay_epoch_1 > 0 && epoch >= d.lr_decay_epoch_1) lr *= d.lr_decay_factor;
    if (d.lr_decay_epoch_2 > 0 && epoch >= d.lr_decay_epoch_2) lr *= d.lr_decay_factor;
    return lr;
  }

  void SetLearningRate(double lr) {
    auto& groups = sgd_->param_groups();
    static_cast<torch::optim::SGDOptions&>(groups[0].options()).lr(lr);
    static_cast<torch::optim::SGDOptions&>(groups[1].options()).lr(lr * opts_.bias_lr_factor);
  }

  core::Json preset_;  // the scale's (core::ScaleDef::preset)
  InstanceSegmentationOptions opts_;
  train::RunContext ctx_;
  torch::Device device_{torch::kCPU};
  models::MaskRcnn model_{nullptr};
  models::MaskRcnnDetectOptions detect_;
  std::shared_ptr<dist::ProcessGroup> group_;
  std::unique_ptr<dist::GradientReducer> reducer_;
  std::optional<torch::optim::SGD> sgd_;
  torch::Dtype precision_ = torch::kFloat32;  // opts_.precision
  std::optional<training::LossScaler> scaler_;
  data::Rng sampling_rng_{0};
  int64_t steps_per_epoch_ = 1, step_ = 0;
  MaskRcnnInputOptions input_;
  std::shared_ptr<const DetectionSplit> train_split_, eval_split_;
  std::shared_ptr<const coco::CocoDataset> eval_gt_;
  std::shared_ptr<MaskRcnnDataset> train_set_, eval_set_;
  std::unique_ptr<data::BatchLoader> train_loader_, eval_loader_;
};

}  // namespace

std::unique_ptr<train::Workload> MakeInstanceSegmentation(const core::ScaleDef& scale) {
  return std::make_unique<InstanceSegmentation>(scale.preset);
}

}  // namespace trainbench::workloads

// detection_bench: the speed of the detection benchmarks' parts on this machine (SSD and Mask
// R-CNN).
//   detection_bench [--data DIR] [--model mini|ssd300|both|maskrcnn_mini|maskrcnn_full|all]
//   [--threads N] [--steps N]
//                   [--malloc-reuse 0|1] [--precision fp32|bf16|fp16] [--channels-last 0|1]
// --malloc-reuse 1 sets core::EnableMallocReuse for the whole process, as the definitions'
// malloc_reuse key does: compare two invocations, one after the other. Without it, --model
// maskrcnn_mini and maskrcnn_full run under instance_segmentation's own reference allocator
// setting (core::RaiseMmapThreshold), as its reference runs do. --precision and
// --channels-last apply to Mask R-CNN as instance_segmentation's keys of the same names do
// (autocast around Losses and Detect; NHWC weights and images).
// Prints, per model: the input pipeline's images/s (decode, SSD crop, flip, resize, jitter,
// target encoding; one thread), training images/s of the step (forward, loss with hard negative
// mining, backward, SGD) with its GFLOP/s (3 x the forward MACs x 2) and fraction of the fp32
// GEMM peak, and evaluation time per 100 images (forward + decoding with NMS; and the COCO bbox
// evaluation of those detections). The mini model reads the prepared mini dataset (DIR, default
// the definition's folder); SSD300 runs on random 300x300 images with random boxes (COCO is not
// here), which costs the same per step. Mask R-CNN (maskrcnn_mini: 16 training images of the mini
// dataset with their mask targets; maskrcnn_full: the R-50-FPN on 2 random 800x1216 images):
// the input pipeline with the mask targets, training images/s and GFLOP/s, inference (Detect,
// mask pasting, RLE) per 100 images, and the COCO box + mask evaluation of those detections.
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "coco/coco_dataset.h"
#include "coco/coco_eval.h"
#include "core/malloc_reuse.h"
#include "core/paths.h"
#include "models/mask_rcnn.h"
#include "models/ssd.h"
#include "peak_flops.h"
#include "training/memory_format.h"
#include "training/precision.h"
#include "vision/boxes.h"
#include "vision/masks.h"
#include "workloads/detection_data.h"

namespace tb = trainbench;

namespace {

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct Targets {
  torch::Tensor loc, labels;  // [B, 4, A], [B, A]
};

// Random objects per image, encoded onto the default boxes (the training set's work, here
// without images).
Targets RandomTargets(int64_t batch, int64_t classes, const torch::Tensor& dboxes,
                      tb::data::Rng& rng) {
  const torch::Tensor ltrb = tb::vision::ConvertBoxes(dboxes, tb::vision::BoxFormat::kCxcywh,
                                                      tb::vision::BoxFormat::kXyxy);
  std::vector<torch::Tensor> locs, labels;
  for (int64_t i = 0; i < batch; ++i) {
    const int64_t n = rng.UniformInt(1, 6);
    std::vector<float> b;
    std::vector<int64_t> l;
    for (int64_t k = 0; k < n; ++k) {
      const double w = rng.Uniform(0.05, 0.5), h = rng.Uniform(0.05, 0.5);
      const double x = rng.Uniform(0, 1 - w), y = rng.Uniform(0, 1 - h);
      b.insert(b.end(), {static_cast<float>(x), static_cast<float>(y), static_cast<float>(x + w),
                         static_cast<float>(y + h)});
      l.push_back(rng.UniformInt(1, classes - 1));
    }
    const tb::models::SsdTargets t =
        tb::models::SsdEncode(ltrb, torch::from_blob(b.data(), {n, 4}).clone(),
                              torch::from_blob(l.data(), {n}, torch::kInt64).clone());
    locs.push_back(t.loc.t());
    labels.push_back(t.labels);
  }
  return {torch::stack(locs), torch::stack(labels)};
}

void BenchModel(const std::string& name, const tb::models::SsdOptions& so,
                const tb::models::DefaultBoxOptions& dbo, int64_t image_size, int64_t batch,
                int steps, const torch::Tensor& images, const Targets& targets, double peak) {
  tb::models::Ssd net(so);
  const torch::Tensor dboxes = tb::models::MakeDefaultBoxes(dbo);
  torch::optim::SGD sgd(net->parameters(),
                        torch::optim::SGDOptions(1e-3).momentum(0.9).weight_decay(5e-4));
  net->train();
  double t0 = 0;
  for (int s = -1; s < steps; ++s) {  // one warm-up step
    if (s == 0) t0 = Now();
    auto [ploc, pconf] = net->forward(images);
    torch::Tensor loss = tb::models::SsdLoss(ploc, pconf, targets.loc, targets.labels, dboxes,
                                             dbo.scale_xy, dbo.scale_wh);
    sgd.zero_grad();
    loss.backward();
    sgd.step();
  }
  const double train_s = (Now() - t0) / steps;
  const double macs = static_cast<double>(net->ForwardMacs(image_size));
  const double gflops = 3 * 2 * macs * batch / train_s / 1e9;
  std::printf(
      "%s: train step %.1f ms for %lld images: %.1f images/s, %.1f GFLOP/s = %.0f%% of the fp32 "
      "peak "
      "(%.2f GMAC per image forward)\n",
      name.c_str(), 1e3 * train_s, static_cast<long long>(batch), batch / train_s, gflops,
      100 * gflops / peak, macs / 1e9);
  net->eval();
  torch::NoGradGuard no_grad;
  t0 = Now();
  int64_t dets = 0;
  for (int s = 0; s < steps; ++s) {
    auto [ploc, pconf] = net->forward(images);
    for (const auto& d : tb::models::SsdDecode(ploc, pconf, dboxes, dbo.scale_xy, dbo.scale_wh))
      dets += d.scores.size(0);
  }
  const double eval_s = (Now() - t0) / (steps * batch);
  std::printf(
      "%s: evaluation (forward + decoding) %.2f s per 100 images (%.0f detections per image, "
      "untrained)\n",
      name.c_str(), 100 * eval_s, static_cast<double>(dets) / (steps * batch));
}

// Mask R-CNN: `steps` training steps (losses, backward, SGD) on a batch, then inference
// (Detect, masks pasted into the image and RLE-encoded) over `eval_batches` batches, and the
// COCO box and mask evaluation of those detections when `gt` is given.
void BenchMaskRcnn(const std::string& name, const tb::models::MaskRcnnOptions& mo,
                   const torch::Tensor& images, const tb::models::ImageSizes& sizes,
                   const std::vector<tb::models::MaskRcnnTarget>& targets, int steps,
                   const tb::bench::GemmPeaks& peaks, const tb::coco::CocoDataset* gt,
                   const std::vector<int64_t>& image_ids, const std::vector<int64_t>& category_ids,
                   torch::Dtype precision, bool channels_last) {
  const torch::Device cpu(torch::kCPU);
  tb::models::MaskRcnn net(mo);
  if (channels_last) tb::training::ToChannelsLast(*net);
  const torch::Tensor input = images.contiguous(channels_last ? torch::MemoryFormat::ChannelsLast
                                                              : torch::MemoryFormat::Contiguous);
  torch::optim::SGD sgd(net->parameters(),
                        torch::optim::SGDOptions(1e-3).momentum(0.9).weight_decay(1e-4));
  tb::data::Rng rng(5);
  net->train();
  const int64_t batch = images.size(0);
  double t0 = 0;
  for (int s = -1; s < steps; ++s) {  // one warm-up step
    if (s == 0) t0 = Now();
    torch::Tensor loss;
    {
      tb::training::AutocastScope autocast(cpu, precision);
      for (const auto& [k, v] : net->Losses(input, sizes, targets, rng))
        loss = loss.defined() ? loss + v : v;
    }
    sgd.zero_grad();
    loss.backward();
    sgd.step();
  }
  const double train_s = (Now() - t0) / steps;
  const double macs = static_cast<double>(net->ForwardMacs(images.size(2), images.size(3), true));
  const double gflops = 3 * 2 * macs * batch / train_s / 1e9;
  std::printf(
      "%s, %s%s: train step %.1f ms for %lld images: %.1f images/s, %.1f GFLOP/s = %.0f%% of the "
      "fp32 peak, "
      "%.0f%% of the bf16 peak (%.2f GMAC per image forward)\n",
      name.c_str(), tb::training::PrecisionName(precision), channels_last ? " NHWC" : "",
      1e3 * train_s, static_cast<long long>(batch), batch / train_s, gflops,
      100 * gflops / peaks.fp32, 100 * gflops / peaks.bf16, macs / 1e9);
  net->eval();
  torch::NoGradGuard no_grad;
  std::vector<tb::coco::Detection> dets;
  const int evals = std::max(1, steps);
  t0 = Now();
  for (int s = 0; s < evals; ++s) {
    std::vector<tb::models::MaskRcnnDetections> out;
    {
      tb::training::AutocastScope autocast(cpu, precision);
      out = net->Detect(input, sizes);
    }
    for (int64_t i = 0; i < batch; ++i) {
      const auto& d = out[static_cast<size_t>(i)];
      const int64_t h = sizes[static_cast<size_t>(i)].first,
                    w = sizes[static_cast<size_t>(i)].second;
      const torch::Tensor m = tb::vision::PasteMasksInImage(d.masks, d.boxes, h, w, 1, 0.5);
      for (int64_t j = 0; j < d.scores.size(0); ++j) {
        tb::coco::Detection det;
        det.image_id = image_ids.empty() ? 0 : image_ids[static_cast<size_t>(i)];
        det.category_id = category_ids.empty()
                              ? 1
                              : category_ids[static_cast<size_t>(d.labels[j].item<int64_t>() - 1)];
        auto b = d.boxes[j];
        det.bbox = {b[0].item<double>(), b[1].item<double>(), (b[2] - b[0]).item<double>(),
                    (b[3] - b[1]).item<double>()};
        det.score = d.scores[j].item<double>();
        det.segmentation = tb::coco::Rle{h, w, tb::vision::MaskToRle(m[j][0])};
        if (s == 0) dets.push_back(std::move(det));
      }
    }
  }
  const double eval_s = (Now() - t0) / (evals * batch);
  std::printf(
      "%s: evaluation (Detect + mask pasting + RLE) %.2f s per 100 images (%.0f detections per "
      "image, untrained)\n",
      name.c_str(), 100 * eval_s, static_cast<double>(dets.size()) / static_cast<double>(batch));
  if (gt != nullptr) {
    // The detections of the batch's images, scored against a ground truth holding just those.
    tb::coco::CocoDataset sub;
    for (const auto& im : gt->images) {
      if (std::find(image_ids.begin(), image_ids.end(), im.id) != image_ids.end())
        sub.images.push_back(im);
    }
    for (const auto& a : gt->annotations) {
      if (std::find(image_ids.begin(), image_ids.end(), a.image_id) != image_ids.end())
        sub.annotations.push_back(a);
    }
    sub.categories = gt->categories;
    sub.BuildIndex();
    t0 = Now();
    tb::coco::EvaluateDetections(sub, dets, tb::coco::IouType::kBbox);
    tb::coco::EvaluateDetections(sub, dets, tb::coco::IouType::kSegm);
    std::printf("%s: COCO bbox + segm evaluation of %zu detections: %.3f s per 100 images\n",
                name.c_str(), dets.size(), 100 * (Now() - t0) / static_cast<double>(batch));
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string data_dir = tb::core::ExpandDataPath("{user_data}/datasets/detection_mini"),
              model = "both";
  int threads = 2, steps = 5, malloc_reuse = 0, channels_last = 0;
  std::string precision_name = "fp32";
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--data")
      data_dir = argv[i + 1];
    else if (a == "--model")
      model = argv[i + 1];
    else if (a == "--threads")
      threads = std::atoi(argv[i + 1]);
    else if (a == "--steps")
      steps = std::atoi(argv[i + 1]);
    else if (a == "--malloc-reuse")
      malloc_reuse = std::atoi(argv[i + 1]);
    else if (a == "--precision")
      precision_name = argv[i + 1];
    else if (a == "--channels-last")
      channels_last = std::atoi(argv[i + 1]);
    else {
      std::fprintf(stderr,
                   "usage: detection_bench [--data DIR] [--model "
                   "mini|ssd300|both|maskrcnn_mini|maskrcnn_full|all] [--threads N] [--steps N] "
                   "[--malloc-reuse 0|1] [--precision fp32|bf16|fp16] [--channels-last 0|1]\n");
      return 2;
    }
  }
  torch::Dtype precision = torch::kFloat32;
  try {
    precision = tb::training::ParsePrecision(precision_name, torch::Device(torch::kCPU));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "detection_bench: --precision: %s\n", e.what());
    return 2;
  }
  if (malloc_reuse && !tb::core::EnableMallocReuse())
    std::printf("no glibc mallopt: --malloc-reuse ignored\n");
  std::printf("malloc_reuse=%d\n", tb::core::MallocReuseEnabled() ? 1 : 0);
  // Without malloc_reuse, Mask R-CNN alone runs under instance_segmentation's own allocator
  // setting, as its reference runs do (the SSD workload has none: glibc's defaults).
  if (!malloc_reuse && (model == "maskrcnn_mini" || model == "maskrcnn_full")) {
    std::printf("allocator: instance_segmentation's reference setting (mmap threshold 32 MB): %s\n",
                tb::core::RaiseMmapThreshold() ? "set" : "no glibc mallopt");
  } else if (!malloc_reuse && model == "all") {
    std::printf(
        "allocator: glibc's defaults, the SSD's; instance_segmentation's reference raises the mmap "
        "threshold "
        "(run --model maskrcnn_mini for its figures)\n");
  }
  torch::set_num_threads(threads);
  const tb::bench::GemmPeaks peaks = tb::bench::MeasureGemmPeaks();
  std::printf("peak: 2048^3 GEMM %.1f GFLOP/s fp32, %.1f GFLOP/s bf16 (%d threads)\n", peaks.fp32,
              peaks.bf16, threads);
  tb::data::Rng rng(1);
  try {
    if (model == "mini" || model == "both" || model == "all") {
      const int64_t size = 128, batch = 32, classes = 7;
      const tb::models::SsdOptions so = tb::models::MiniSsdOptions(classes, size, 16, 1);
      tb::models::Ssd probe(so);
      const tb::models::DefaultBoxOptions dbo =
          tb::models::MiniDefaultBoxes(size, probe->FeatureSizes(size));
      const torch::Tensor dboxes = tb::models::MakeDefaultBoxes(dbo);
      auto split =
          std::make_shared<const tb::workloads::DetectionSplit>(tb::workloads::LoadDetectionSplit(
              data_dir + "/annotations/instances_train2017.json", data_dir + "/train2017", true));
      tb::workloads::SsdInputOptions in;
      in.image_size = size;
      const tb::workloads::SsdTrainDataset ds(split, in, dboxes);
      std::vector<float> image(static_cast<size_t>(ds.shape().numel()) * batch),
          extra(static_cast<size_t>(ds.extra_floats()) * batch);
      // The pipeline as configured, then without the hue term (its HSV round trip is the
      // jitter's dearest part), side by side.
      tb::workloads::SsdInputOptions no_hue = in;
      no_hue.hue = 0;
      const tb::workloads::SsdTrainDataset ds_no_hue(split, no_hue, dboxes);
      for (const tb::workloads::SsdTrainDataset* d : {&ds, &ds_no_hue}) {
        const int n = 256;
        for (int i = 0; i < 8; ++i) {  // warm-up (first-use initialisation of the torch kernels)
          tb::data::Rng r = tb::data::SampleRng(2, 1, i);
          d->GetIntoWithExtra(i, r, image.data(), extra.data());
        }
        double t0 = Now();
        for (int i = 0; i < n; ++i) {
          tb::data::Rng r = tb::data::SampleRng(1, 1, i);
          const int64_t row = i % batch;
          d->GetIntoWithExtra(i % d->size(), r, image.data() + row * d->shape().numel(),
                              extra.data() + row * d->extra_floats());
        }
        std::printf(
            "mini: input pipeline%s %.0f images/s (on the calling thread; %lld training images in "
            "%s)\n",
            d == &ds ? "" : " without hue jitter", n / (Now() - t0),
            static_cast<long long>(d->size()), data_dir.c_str());
      }
      const int64_t a = dboxes.size(0);
      const torch::Tensor x = torch::from_blob(image.data(), {batch, 3, size, size}).clone();
      const torch::Tensor e = torch::from_blob(extra.data(), {batch, 5 * a}).clone();
      Targets t{e.narrow(1, 0, 4 * a).view({batch, a, 4}).permute({0, 2, 1}),
                e.narrow(1, 4 * a, a).to(torch::kInt64)};
      BenchModel("mini SSD (128x128, width 16)", so, dbo, size, batch, steps, x, t, peaks.fp32);
      // COCO evaluation of the val set against itself, perturbed: the cost of the protocol.
      const tb::coco::CocoDataset gt =
          tb::coco::ReadCocoDataset(data_dir + "/annotations/instances_val2017.json");
      std::vector<tb::coco::Detection> dets;
      for (const auto& an : gt.annotations) {
        for (int k = 0; k < 20;
             ++k) {  // 20 detections per object, as an untrained-ish detector makes
          tb::coco::Detection d;
          d.image_id = an.image_id;
          d.category_id = an.category_id;
          d.bbox = {an.bbox[0] + rng.Uniform(-3, 3), an.bbox[1] + rng.Uniform(-3, 3), an.bbox[2],
                    an.bbox[3]};
          d.score = rng.Uniform();
          dets.push_back(d);
        }
      }
      const double t0 = Now();
      const tb::coco::CocoStats st =
          tb::coco::EvaluateDetections(gt, dets, tb::coco::IouType::kBbox);
      const double coco_s = Now() - t0;
      std::printf(
          "mini: COCO bbox evaluation of %zu detections on %zu images: %.2f s (%.3f s per 100 "
          "images; AP %.3f)\n",
          dets.size(), gt.images.size(), coco_s,
          100 * coco_s / static_cast<double>(gt.images.size()), st.values[0]);
    }
    if (model == "ssd300" || model == "both" || model == "all") {
      const int64_t batch = 8;
      const tb::models::DefaultBoxOptions dbo = tb::models::Ssd300DefaultBoxes();
      const torch::Tensor dboxes = tb::models::MakeDefaultBoxes(dbo);
      const torch::Tensor x = torch::randn({batch, 3, 300, 300});
      const Targets t = RandomTargets(batch, 81, dboxes, rng);
      BenchModel("SSD300 (ResNet-34, 81 classes)", tb::models::Ssd300Options(81), dbo, 300, batch,
                 std::max(1, steps / 2), x, t, peaks.fp32);
    }
    if (model == "maskrcnn_mini" || model == "all") {
      // The mini reference configuration of configs/benchmarks/instance_segmentation.yaml: 16
      // training images of the prepared dataset with their masks.
      const int64_t size = 128, batch = 16;
      auto split = std::make_shared<const tb::workloads::DetectionSplit>(
          tb::workloads::LoadDetectionSplit(data_dir + "/annotations/instances_train2017.json",
                                            data_dir + "/train2017", true, true));
      tb::workloads::MaskRcnnInputOptions in;
      in.min_size = in.max_size = size;
      const tb::workloads::MaskRcnnDataset ds(split, in);
      std::vector<float> image(static_cast<size_t>(ds.shape().numel()) * batch);
      float extra[3];
      const int n = 256;
      double t0 = Now();
      for (int i = 0; i < n; ++i) {
        tb::data::Rng r = tb::data::SampleRng(1, 1, i);
        ds.GetIntoWithExtra(i % ds.size(), r, image.data() + (i % batch) * ds.shape().numel(),
                            extra);
        const auto& im = split->images[static_cast<size_t>(i % ds.size())];
        tb::workloads::MakeMaskRcnnTarget(im, static_cast<int64_t>(extra[0]),
                                          static_cast<int64_t>(extra[1]), extra[2] != 0);
      }
      std::printf(
          "maskrcnn mini: input pipeline with mask targets %.0f images/s (on the calling thread)\n",
          n / (Now() - t0));
      std::vector<tb::models::MaskRcnnTarget> targets;
      tb::models::ImageSizes sizes;
      for (int64_t i = 0; i < batch; ++i) {
        tb::data::Rng r = tb::data::SampleRng(1, 1, i);
        ds.GetIntoWithExtra(i, r, image.data() + i * ds.shape().numel(), extra);
        const auto t = tb::workloads::MakeMaskRcnnTarget(split->images[static_cast<size_t>(i)],
                                                         size, size, extra[2] != 0);
        targets.push_back({t.boxes, t.labels, t.masks});
        sizes.emplace_back(size, size);
      }
      const torch::Tensor x = torch::from_blob(image.data(), {batch, 3, size, size}).clone();
      tb::models::MaskRcnnOptions mo = tb::models::MiniMaskRcnnOptions(7, size, 16, 1, 64);
      mo.rpn_pre_nms_top_n_train = 1000;
      mo.rpn_post_nms_top_n_train = 500;
      mo.rpn_pre_nms_top_n_test = 500;
      mo.rpn_post_nms_top_n_test = 300;
      mo.roi_batch_size_per_image = 128;
      mo.mask_head_channels = 32;
      mo.mask_pool_size = 7;
      const tb::coco::CocoDataset gt =
          tb::coco::ReadCocoDataset(data_dir + "/annotations/instances_train2017.json");
      std::vector<int64_t> ids;
      for (int64_t i = 0; i < batch; ++i)
        ids.push_back(split->images[static_cast<size_t>(i)].image_id);
      BenchMaskRcnn("maskrcnn mini (128x128, width 16, FPN 64)", mo, x, sizes, targets, steps,
                    peaks, &gt, ids, split->category_ids, precision, channels_last != 0);
    }
    if (model == "maskrcnn_full") {
      // The R-50-FPN on 2 random 800x1216 images (a COCO image's usual size after the resize)
      // with 7 random boxes each; no COCO here.
      const int64_t batch = 2, h = 800, w = 1216;
      std::vector<tb::models::MaskRcnnTarget> targets;
      tb::models::ImageSizes sizes;
      for (int64_t i = 0; i < batch; ++i) {
        tb::models::MaskRcnnTarget t;
        std::vector<float> b;
        std::vector<int64_t> l;
        t.masks = torch::zeros({7, h, w}, torch::kUInt8);
        for (int k = 0; k < 7; ++k) {
          const int64_t bw = rng.UniformInt(40, 400), bh = rng.UniformInt(40, 400);
          const int64_t x0 = rng.UniformInt(0, w - bw - 1), y0 = rng.UniformInt(0, h - bh - 1);
          b.insert(b.end(), {static_cast<float>(x0), static_cast<float>(y0),
                             static_cast<float>(x0 + bw), static_cast<float>(y0 + bh)});
          l.push_back(rng.UniformInt(1, 80));
          t.masks[k].narrow(0, y0, bh).narrow(1, x0, bw).fill_(1);
        }
        t.boxes = torch::tensor(b).view({7, 4});
        t.labels = torch::tensor(l, torch::kLong);
        targets.push_back(t);
        sizes.emplace_back(h, w);
      }
      BenchMaskRcnn("maskrcnn full (R-50-FPN, 800x1216)", tb::models::MaskRcnnR50FpnOptions(81),
                    torch::randn({batch, 3, h, w}), sizes, targets, std::max(1, steps / 5), peaks,
                    nullptr, {}, {}, precision, channels_last != 0);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "detection_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}

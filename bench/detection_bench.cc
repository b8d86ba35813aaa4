// detection_bench: the speed of the SSD benchmark's parts on this machine.
//   detection_bench [--data DIR] [--model mini|ssd300|both] [--threads N] [--steps N]
// Prints, per model: the input pipeline's images/s (decode, SSD crop, flip, resize, jitter,
// target encoding; one thread), training images/s of the step (forward, loss with hard negative
// mining, backward, SGD) with its GFLOP/s (3 x the forward MACs x 2) and fraction of the fp32
// GEMM peak, and evaluation time per 100 images (forward + decoding with NMS; and the COCO bbox
// evaluation of those detections). The mini model reads the prepared mini dataset (DIR, default
// the definition's folder); SSD300 runs on random 300x300 images with random boxes (COCO is not
// here), which costs the same per step.
#include <torch/torch.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "coco/coco_dataset.h"
#include "coco/coco_eval.h"
#include "core/paths.h"
#include "models/ssd.h"
#include "peak_flops.h"
#include "vision/boxes.h"
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
Targets RandomTargets(int64_t batch, int64_t classes, const torch::Tensor& dboxes, tb::data::Rng& rng) {
  const torch::Tensor ltrb = tb::vision::ConvertBoxes(dboxes, tb::vision::BoxFormat::kCxcywh, tb::vision::BoxFormat::kXyxy);
  std::vector<torch::Tensor> locs, labels;
  for (int64_t i = 0; i < batch; ++i) {
    const int64_t n = rng.UniformInt(1, 6);
    std::vector<float> b;
    std::vector<int64_t> l;
    for (int64_t k = 0; k < n; ++k) {
      const double w = rng.Uniform(0.05, 0.5), h = rng.Uniform(0.05, 0.5);
      const double x = rng.Uniform(0, 1 - w), y = rng.Uniform(0, 1 - h);
      b.insert(b.end(), {static_cast<float>(x), static_cast<float>(y), static_cast<float>(x + w), static_cast<float>(y + h)});
      l.push_back(rng.UniformInt(1, classes - 1));
    }
    const tb::models::SsdTargets t = tb::models::SsdEncode(
        ltrb, torch::from_blob(b.data(), {n, 4}).clone(), torch::from_blob(l.data(), {n}, torch::kInt64).clone());
    locs.push_back(t.loc.t());
    labels.push_back(t.labels);
  }
  return {torch::stack(locs), torch::stack(labels)};
}

void BenchModel(const std::string& name, const tb::models::SsdOptions& so, const tb::models::DefaultBoxOptions& dbo,
                int64_t image_size, int64_t batch, int steps, const torch::Tensor& images, const Targets& targets,
                double peak) {
  tb::models::Ssd net(so);
  const torch::Tensor dboxes = tb::models::MakeDefaultBoxes(dbo);
  torch::optim::SGD sgd(net->parameters(), torch::optim::SGDOptions(1e-3).momentum(0.9).weight_decay(5e-4));
  net->train();
  double t0 = 0;
  for (int s = -1; s < steps; ++s) {  // one warm-up step
    if (s == 0) t0 = Now();
    auto [ploc, pconf] = net->forward(images);
    torch::Tensor loss = tb::models::SsdLoss(ploc, pconf, targets.loc, targets.labels, dboxes, dbo.scale_xy, dbo.scale_wh);
    sgd.zero_grad();
    loss.backward();
    sgd.step();
  }
  const double train_s = (Now() - t0) / steps;
  const double macs = static_cast<double>(net->ForwardMacs(image_size));
  const double gflops = 3 * 2 * macs * batch / train_s / 1e9;
  std::printf("%s: train step %.1f ms for %lld images: %.1f images/s, %.1f GFLOP/s = %.0f%% of the fp32 peak "
              "(%.2f GMAC per image forward)\n",
              name.c_str(), 1e3 * train_s, static_cast<long long>(batch), batch / train_s, gflops,
              100 * gflops / peak, macs / 1e9);
  net->eval();
  torch::NoGradGuard no_grad;
  t0 = Now();
  int64_t dets = 0;
  for (int s = 0; s < steps; ++s) {
    auto [ploc, pconf] = net->forward(images);
    for (const auto& d : tb::models::SsdDecode(ploc, pconf, dboxes, dbo.scale_xy, dbo.scale_wh)) dets += d.scores.size(0);
  }
  const double eval_s = (Now() - t0) / (steps * batch);
  std::printf("%s: evaluation (forward + decoding) %.2f s per 100 images (%.0f detections per image, untrained)\n",
              name.c_str(), 100 * eval_s, static_cast<double>(dets) / (steps * batch));
}

}  // namespace

int main(int argc, char** argv) {
  std::string data_dir = tb::core::ExpandDataPath("{user_data}/datasets/detection_mini"), model = "both";
  int threads = 2, steps = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--data") data_dir = argv[i + 1];
    else if (a == "--model") model = argv[i + 1];
    else if (a == "--threads") threads = std::atoi(argv[i + 1]);
    else if (a == "--steps") steps = std::atoi(argv[i + 1]);
    else {
      std::fprintf(stderr, "usage: detection_bench [--data DIR] [--model mini|ssd300|both] [--threads N] [--steps N]\n");
      return 2;
    }
  }
  torch::set_num_threads(threads);
  const tb::bench::GemmPeaks peaks = tb::bench::MeasureGemmPeaks();
  std::printf("peak: 2048^3 GEMM %.1f GFLOP/s fp32, %.1f GFLOP/s bf16 (%d threads)\n", peaks.fp32, peaks.bf16, threads);
  tb::data::Rng rng(1);
  try {
    if (model == "mini" || model == "both") {
      const int64_t size = 128, batch = 32, classes = 7;
      const tb::models::SsdOptions so = tb::models::MiniSsdOptions(classes, size, 16, 1);
      tb::models::Ssd probe(so);
      const tb::models::DefaultBoxOptions dbo = tb::models::MiniDefaultBoxes(size, probe->FeatureSizes(size));
      const torch::Tensor dboxes = tb::models::MakeDefaultBoxes(dbo);
      auto split = std::make_shared<const tb::workloads::DetectionSplit>(tb::workloads::LoadDetectionSplit(
          data_dir + "/annotations/instances_train2017.json", data_dir + "/train2017", true));
      tb::workloads::SsdInputOptions in;
      in.image_size = size;
      const tb::workloads::SsdTrainDataset ds(split, in, dboxes);
      std::vector<float> image(static_cast<size_t>(ds.shape().numel()) * batch), extra(static_cast<size_t>(ds.extra_floats()) * batch);
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
          d->GetIntoWithExtra(i % d->size(), r, image.data() + row * d->shape().numel(), extra.data() + row * d->extra_floats());
        }
        std::printf("mini: input pipeline%s %.0f images/s (on the calling thread; %lld training images in %s)\n",
                    d == &ds ? "" : " without hue jitter", n / (Now() - t0), static_cast<long long>(d->size()),
                    data_dir.c_str());
      }
      const int64_t a = dboxes.size(0);
      const torch::Tensor x = torch::from_blob(image.data(), {batch, 3, size, size}).clone();
      const torch::Tensor e = torch::from_blob(extra.data(), {batch, 5 * a}).clone();
      Targets t{e.narrow(1, 0, 4 * a).view({batch, a, 4}).permute({0, 2, 1}), e.narrow(1, 4 * a, a).to(torch::kInt64)};
      BenchModel("mini SSD (128x128, width 16)", so, dbo, size, batch, steps, x, t, peaks.fp32);
      // COCO evaluation of the val set against itself, perturbed: the cost of the protocol.
      const tb::coco::CocoDataset gt = tb::coco::ReadCocoDataset(data_dir + "/annotations/instances_val2017.json");
      std::vector<tb::coco::Detection> dets;
      for (const auto& an : gt.annotations) {
        for (int k = 0; k < 20; ++k) {  // 20 detections per object, as an untrained-ish detector makes
          tb::coco::Detection d;
          d.image_id = an.image_id;
          d.category_id = an.category_id;
          d.bbox = {an.bbox[0] + rng.Uniform(-3, 3), an.bbox[1] + rng.Uniform(-3, 3), an.bbox[2], an.bbox[3]};
          d.score = rng.Uniform();
          dets.push_back(d);
        }
      }
      const double t0 = Now();
      const tb::coco::CocoStats st = tb::coco::EvaluateDetections(gt, dets, tb::coco::IouType::kBbox);
      const double coco_s = Now() - t0;
      std::printf("mini: COCO bbox evaluation of %zu detections on %zu images: %.2f s (%.3f s per 100 images; AP %.3f)\n",
                  dets.size(), gt.images.size(), coco_s, 100 * coco_s / static_cast<double>(gt.images.size()), st.values[0]);
    }
    if (model == "ssd300" || model == "both") {
      const int64_t batch = 8;
      const tb::models::DefaultBoxOptions dbo = tb::models::Ssd300DefaultBoxes();
      const torch::Tensor dboxes = tb::models::MakeDefaultBoxes(dbo);
      const torch::Tensor x = torch::randn({batch, 3, 300, 300});
      const Targets t = RandomTargets(batch, 81, dboxes, rng);
      BenchModel("SSD300 (ResNet-34, 81 classes)", tb::models::Ssd300Options(81), dbo, 300, batch, std::max(1, steps / 2), x,
                 t, peaks.fp32);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "detection_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}

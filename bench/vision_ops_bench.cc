// Prints the speed of the detection tensor operations (src/vision) on Mask R-CNN-like shapes:
//   nms            one image's RPN proposals (N boxes, IoU 0.7), boxes/s
//   batched_nms    the box head's detections (N boxes over 80 classes, IoU 0.5), boxes/s
//   roi_align      box-head pooling (K RoIs, 7 x 7, sampling 2) from a stride-4 FPN level of
//                  C channels, forward and forward + backward, ms per call
//   roi_align_mask the mask head's 14 x 14 pooling of the same RoIs
// Usage: vision_ops_bench [--threads T] [--boxes N] [--rois K] [--channels C] [--repeats R]
#include <torch/torch.h>

#include <chrono>
#include <cstdio>
#include <string>

#include "vision/nms.h"
#include "vision/roi_align.h"

using namespace trainbench;

namespace {

using Clock = std::chrono::steady_clock;
double Seconds(Clock::time_point a) {
  return std::chrono::duration<double>(Clock::now() - a).count();
}

torch::Tensor RandomBoxes(int64_t n, double h, double w, torch::Generator gen) {
  auto x = torch::rand({n, 1}, gen) * w, y = torch::rand({n, 1}, gen) * h;
  auto bw = 8 + torch::rand({n, 1}, gen) * (w / 3), bh = 8 + torch::rand({n, 1}, gen) * (h / 3);
  return torch::cat({x, y, (x + bw).clamp_max(w), (y + bh).clamp_max(h)}, 1);
}

// Best of `repeats` wall times of f(), in seconds.
template <typename F>
double Best(int repeats, F&& f) {
  double best = 1e30;
  for (int r = 0; r < repeats; ++r) {
    auto t = Clock::now();
    f();
    best = std::min(best, Seconds(t));
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  int threads = 1, repeats = 5;
  int64_t boxes_n = 4000, rois_k = 1024, channels = 256;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i], v = argv[i + 1];
    if (a == "--threads")
      threads = std::stoi(v);
    else if (a == "--boxes")
      boxes_n = std::stoll(v);
    else if (a == "--rois")
      rois_k = std::stoll(v);
    else if (a == "--channels")
      channels = std::stoll(v);
    else if (a == "--repeats")
      repeats = std::stoi(v);
    else {
      std::fprintf(stderr, "unknown flag %s\n", a.c_str());
      return 2;
    }
  }
  torch::set_num_threads(threads);
  auto gen = at::detail::createCPUGenerator(1);
  const double image_h = 800, image_w = 1088;
  std::printf("threads %d, boxes %lld, rois %lld, channels %lld (image %gx%g)\n", threads,
              static_cast<long long>(boxes_n), static_cast<long long>(rois_k),
              static_cast<long long>(channels), image_h, image_w);

  const auto boxes = RandomBoxes(boxes_n, image_h, image_w, gen);
  const auto scores = torch::rand({boxes_n}, gen);
  int64_t kept = 0;
  double t = Best(repeats, [&] { kept = vision::Nms(boxes, scores, 0.7).numel(); });
  std::printf("nms          %8.2f ms  %10.0f boxes/s  (kept %lld)\n", 1e3 * t, boxes_n / t,
              static_cast<long long>(kept));
  const auto classes = torch::randint(0, 80, {boxes_n}, gen).to(torch::kLong);
  t = Best(repeats, [&] { kept = vision::BatchedNms(boxes, scores, classes, 0.5).numel(); });
  std::printf("batched_nms  %8.2f ms  %10.0f boxes/s  (kept %lld)\n", 1e3 * t, boxes_n / t,
              static_cast<long long>(kept));

  // Two images, a stride-4 level (P2) of the padded batch.
  auto features =
      torch::randn(
          {2, channels, static_cast<int64_t>(image_h / 4), static_cast<int64_t>(image_w / 4)}, gen)
          .requires_grad_(true);
  const auto rois = vision::BoxesToRois({RandomBoxes(rois_k / 2, image_h, image_w, gen),
                                         RandomBoxes(rois_k - rois_k / 2, image_h, image_w, gen)});
  for (int64_t size : {7, 14}) {
    vision::RoiAlignOptions o;
    o.output_h = o.output_w = size;
    o.spatial_scale = 0.25;
    o.sampling_ratio = 2;
    const double fwd = Best(repeats, [&] {
      torch::NoGradGuard no_grad;
      vision::RoiAlign(features, rois, o);
    });
    const double both = Best(repeats, [&] {
      features.mutable_grad() = torch::Tensor();
      vision::RoiAlign(features, rois, o).sum().backward();
    });
    std::printf("roi_align %2lldx%-2lld forward %8.2f ms, forward+backward %8.2f ms\n",
                static_cast<long long>(size), static_cast<long long>(size), 1e3 * fwd, 1e3 * both);
  }
  return 0;
}

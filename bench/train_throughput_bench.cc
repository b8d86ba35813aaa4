// Prints the training throughput of the mini image-classification model (images/s, with the
// reference recipe: fp32, SGD, batch 128) measured three ways, side by side in one run:
//   model_only      forward + backward + SGD step on a fixed in-memory batch (compute ceiling),
//                   for each of fp32 / bf16 autocast x NCHW / channels-last (and eval likewise)
//   full_step       the workload's real loop: BatchLoader with augmentation + the step
//   eval            forward only, batch 1000 (the per-epoch evaluation)
// plus the model's achieved GFLOP/s (3x forward MACs x 2 for training) and its fraction of the
// machine's fp32 GEMM peak, measured by the same program (peak_flops.h, fp32 and bf16).
// Usage: train_throughput_bench [--threads T] [--loader-threads L] [--steps N] [--width W]
//        [--batch B] [--blas-threads N] [--malloc-reuse 0|1]
// --malloc-reuse is process-wide (core/malloc_reuse.h): compare two invocations, one after the
// other.
#include <torch/torch.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <thread>

#include "core/malloc_reuse.h"
#include "data/batch_loader.h"
#include "data/fashion_mnist_dataset.h"
#include "data/idx_reader.h"
#include "models/resnet.h"
#include "peak_flops.h"
#include "training/memory_format.h"
#include "training/precision.h"
#include "training/runtime.h"

using namespace trainbench;

namespace {

double Seconds(std::chrono::steady_clock::time_point a) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count();
}

}  // namespace

int main(int argc, char** argv) {
  int threads = 2, loader_threads = 1, steps = 60, width = 16, batch = 128, blas_threads = 0,
      malloc_reuse = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    int v = std::atoi(argv[i + 1]);
    if (a == "--threads")
      threads = v;
    else if (a == "--loader-threads")
      loader_threads = v;
    else if (a == "--steps")
      steps = v;
    else if (a == "--width")
      width = v;
    else if (a == "--batch")
      batch = v;
    else if (a == "--blas-threads")
      blas_threads = v;
    else if (a == "--malloc-reuse")
      malloc_reuse = v;
    else {
      std::fprintf(stderr, "unknown flag %s\n", a.c_str());
      return 2;
    }
  }
  // The machine's peak on all its cores, before --threads and --blas-threads apply.
  at::set_num_threads(static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  const bench::GemmPeaks peak = bench::MeasureGemmPeaks();
  at::set_num_threads(threads);
  if (blas_threads > 0 && !training::SetBlasThreads(blas_threads))
    std::printf("no OpenBLAS: --blas-threads ignored\n");
  if (malloc_reuse && !core::EnableMallocReuse())
    std::printf("no glibc mallopt: --malloc-reuse ignored\n");
  torch::manual_seed(1);
  models::ResNet net(models::ResNetOptions()
                         .in_channels(1)
                         .num_classes(10)
                         .bottleneck(false)
                         .imagenet_stem(false)
                         .blocks({1, 1, 1})
                         .widths({width, 2 * width, 4 * width}));
  torch::optim::SGD opt(net->parameters(),
                        torch::optim::SGDOptions(0.05).momentum(0.9).weight_decay(5e-4));
  const double train_flop_per_image = 3.0 * 2.0 * static_cast<double>(net->ForwardMacs(28, 28));
  auto step = [&](const torch::Tensor& x, const torch::Tensor& y) {
    opt.zero_grad();
    auto loss = torch::cross_entropy_loss(net->forward(x), y);
    loss.backward();
    opt.step();
  };
  std::printf(
      "threads=%d loader_threads=%d batch=%d width=%d steps=%d blas_threads=%d malloc_reuse=%d\n",
      threads, loader_threads, batch, width, steps, blas_threads,
      core::MallocReuseEnabled() ? 1 : 0);

  std::printf("peak         gemm_2048_fp32_gflop_per_s=%.1f  gemm_2048_bf16_gflop_per_s=%.1f\n",
              peak.fp32, peak.bf16);

  // model_only and eval, for each precision and memory format, alternating (same weights' shape
  // and data; a fresh model each, same seed).
  auto x = torch::randn({batch, 1, 28, 28});
  auto y = torch::randint(0, 10, {batch});
  auto xe = torch::randn({1000, 1, 28, 28});
  const torch::Device cpu(torch::kCPU);
  double base_ips = 0;
  for (torch::Dtype dtype : {torch::kFloat32, torch::kBFloat16}) {
    for (bool nhwc : {false, true}) {
      torch::manual_seed(1);
      models::ResNet v(models::ResNetOptions()
                           .in_channels(1)
                           .num_classes(10)
                           .bottleneck(false)
                           .imagenet_stem(false)
                           .blocks({1, 1, 1})
                           .widths({width, 2 * width, 4 * width}));
      if (nhwc) training::ToChannelsLast(*v);
      torch::optim::SGD o(v->parameters(),
                          torch::optim::SGDOptions(0.05).momentum(0.9).weight_decay(5e-4));
      const torch::Tensor xv = nhwc ? x.contiguous(torch::MemoryFormat::ChannelsLast) : x;
      auto vstep = [&] {
        o.zero_grad();
        torch::Tensor loss;
        {
          training::AutocastScope ac(cpu, dtype);
          loss = torch::cross_entropy_loss(v->forward(xv), y);
        }
        loss.backward();
        o.step();
      };
      v->train();
      for (int i = 0; i < 5; ++i) vstep();
      auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < steps; ++i) vstep();
      const double ips = steps * batch / Seconds(t0);
      if (base_ips == 0) base_ips = ips;
      v->eval();
      double eips = 0;
      {
        torch::NoGradGuard ng;
        training::AutocastScope ac(cpu, dtype);
        const torch::Tensor xev = nhwc ? xe.contiguous(torch::MemoryFormat::ChannelsLast) : xe;
        v->forward(xev);
        auto t1 = std::chrono::steady_clock::now();
        for (int i = 0; i < 3; ++i) v->forward(xev);
        eips = 3000 / Seconds(t1);
      }
      std::printf(
          "model_only   %s %-13s images_per_s=%.0f (%.2fx)  gflop_per_s=%.1f  "
          "fraction_of_fp32_peak=%.2f  "
          "fraction_of_bf16_peak=%.2f  eval_images_per_s=%.0f\n",
          training::PrecisionName(dtype), nhwc ? "channels_last" : "nchw", ips, ips / base_ips,
          ips * train_flop_per_image / 1e9, ips * train_flop_per_image / 1e9 / peak.fp32,
          ips * train_flop_per_image / 1e9 / peak.bf16, eips);
    }
  }
  net->train();
  double s = 0, ips = 0;
  auto t0 = std::chrono::steady_clock::now();

  // full_step with the real data pipeline
  auto split = std::make_shared<const data::MnistSplit>(
      data::LoadMnistSplit(data::kFashionMnistSystemDir, "train"));
  data::FashionMnistOptions aug = data::FashionMnistTrainOptions();
  aug.crop_padding = 2;
  auto ds = std::make_shared<data::FashionMnistDataset>(split, aug);
  data::BatchLoaderOptions lo;
  lo.batch_size = batch;
  lo.seed = 1;
  lo.last_batch = data::LastBatchPolicy::kDrop;
  lo.num_workers = loader_threads;
  data::BatchLoader loader(ds, lo);
  loader.StartEpoch(1);
  for (int i = 0; i < 5; ++i) {
    auto b = loader.Next();
    step(torch::from_blob(b->data.data(), {b->size, 1, 28, 28}).clone(),
         torch::from_blob(b->labels.data(), {b->size}, torch::kInt64).clone());
  }
  t0 = std::chrono::steady_clock::now();
  int done = 0;
  for (; done < steps; ++done) {
    auto b = loader.Next();
    if (!b) break;
    step(torch::from_blob(b->data.data(), {b->size, 1, 28, 28}).clone(),
         torch::from_blob(b->labels.data(), {b->size}, torch::kInt64).clone());
  }
  s = Seconds(t0);
  ips = done * batch / s;
  std::printf("full_step    images_per_s=%.0f  gflop_per_s=%.1f  fraction_of_fp32_peak=%.2f\n", ips,
              ips * train_flop_per_image / 1e9, ips * train_flop_per_image / 1e9 / peak.fp32);

  // data pipeline alone, same loader settings
  loader.StartEpoch(2);
  t0 = std::chrono::steady_clock::now();
  int batches = 0;
  while (auto b = loader.Next()) {
    if (++batches == 200) break;
  }
  s = Seconds(t0);
  std::printf("data_only    images_per_s=%.0f\n", batches * batch / s);

  // eval forward (fp32, NCHW)
  net->eval();
  torch::NoGradGuard ng;
  net->forward(xe);
  t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < 5; ++i) net->forward(xe);
  s = Seconds(t0);
  std::printf("eval         images_per_s=%.0f\n", 5000 / s);
  return 0;
}

// Data-parallel figures, measured side by side in one run on this machine:
//   allreduce   Gloo all-reduce (sum, float32) between 2 processes over loopback, for message
//               sizes 4 KiB .. 64 MiB: time per call, algorithm bandwidth (bytes / time) and bus
//               bandwidth (x 2(n-1)/n, the bytes each rank actually sends and receives).
//   step        the training step of the mini image-classification model (ResNet from
//               configs/benchmarks/image_classification.yaml, global batch 128, SGD) as
//               1 process x 2 threads, 2 processes x 1 thread with the overlapped gradient
//               reducer (4 MiB and 64 KiB buckets), and without overlap (all-reduce after
//               backward): ms per step, images/s, and the time the reducer blocked on
//               communication.
// Every configuration runs in fresh child processes (OpenMP must not be forked with threads).
// Usage: dist_bench [--steps N] [--max-mib M]
#include <ATen/Parallel.h>
#include <sys/wait.h>
#include <torch/torch.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "core/benchmark_def.h"
#include "core/paths.h"
#include "dist/connect.h"
#include "dist/gradient_reducer.h"
#include "dist/process_group.h"
#include "models/resnet.h"

using namespace trainbench;

namespace {

double Seconds(std::chrono::steady_clock::time_point a) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count();
}

// Runs fn(group) on `world` forked ranks with `threads` intra-op threads each; rank 0's
// returned text comes back. Exits the program if a rank fails.
std::string OnRanks(int world, int threads,
                    const std::function<std::string(dist::ProcessGroup&)>& fn) {
  std::unique_ptr<dist::StoreServer> store;
  dist::Rendezvous r;
  r.world_size = world;
  r.timeout_s = 120;
  r.mode = world > 1 ? dist::LaunchMode::kLocal : dist::LaunchMode::kSingle;
  if (world > 1) {
    store = std::make_unique<dist::StoreServer>("127.0.0.1", 0, r.timeout_s);
    r.master_port = store->port();
  }
  static int gen = 0;
  const std::string prefix = "bench" + std::to_string(gen++) + "/";
  const std::string out = "/tmp/trainbench_dist_bench_" + std::to_string(::getpid()) + ".txt";
  std::vector<pid_t> pids;
  for (int rank = 0; rank < world; ++rank) {
    std::fflush(stdout);
    pid_t pid = ::fork();
    if (pid == 0) {
      int code = 0;
      try {
        at::set_num_threads(threads);
        dist::Rendezvous me = r;
        me.rank = rank;
        auto g = dist::ConnectGroup(me, prefix, "127.0.0.1");
        std::string text = fn(*g);
        if (rank == 0) std::ofstream(out) << text;
      } catch (const std::exception& e) {
        std::fprintf(stderr, "rank %d: %s\n", rank, e.what());
        code = 1;
      }
      std::fflush(stdout);
      ::_exit(code);
    }
    pids.push_back(pid);
  }
  bool ok = true;
  for (pid_t p : pids) {
    int st = 0;
    ::waitpid(p, &st, 0);
    ok = ok && WIFEXITED(st) && WEXITSTATUS(st) == 0;
  }
  if (!ok) {
    std::fprintf(stderr, "dist_bench: a rank failed\n");
    std::exit(1);
  }
  std::ifstream in(out);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::remove(out.c_str());
  return text;
}

struct StepResult {
  double ms_per_step = 0, images_per_s = 0, comm_wait_ms = 0;
};

}  // namespace

int main(int argc, char** argv) {
  int steps = 40, max_mib = 64;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    int v = std::atoi(argv[i + 1]);
    if (a == "--steps")
      steps = v;
    else if (a == "--max-mib")
      max_mib = v;
    else {
      std::fprintf(stderr, "unknown flag %s\n", a.c_str());
      return 2;
    }
  }
  std::printf("dist_bench: Gloo (LibTorch c10d) over loopback, %u logical CPUs\n",
              std::thread::hardware_concurrency());

  // 1. All-reduce bandwidth, 2 processes x 1 thread.
  std::printf("\nallreduce (2 processes, float32 sum)\n%10s %12s %14s %14s\n", "bytes",
              "us_per_call", "algbw_GB_s", "busbw_GB_s");
  std::string table = OnRanks(2, 1, [max_mib](dist::ProcessGroup& g) {
    std::string t;
    for (int64_t bytes = 4 << 10; bytes <= (int64_t{max_mib} << 20); bytes *= 4) {
      torch::Tensor x = torch::ones({bytes / 4});
      for (int i = 0; i < 3; ++i) g.AllReduceSum(x);
      const int iters =
          static_cast<int>(std::clamp<int64_t>((int64_t{256} << 20) / bytes, 5, 2000));
      g.Barrier();
      auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < iters; ++i) g.AllReduceSum(x);
      double s = Seconds(t0) / iters;
      char line[160];
      std::snprintf(line, sizeof(line), "%10lld %12.1f %14.3f %14.3f\n",
                    static_cast<long long>(bytes), s * 1e6, bytes / s / 1e9,
                    bytes / s / 1e9 * 2.0 * (g.size() - 1) / g.size());
      t += line;
    }
    return t;
  });
  std::printf("%s", table.c_str());

  // 2. Training step of the mini ResNet.
  core::BenchmarkDef def = core::FindBenchmark(core::BenchmarksDir(), "image_classification");
  core::Json hp = core::ResolveConfig(def.Scale("mini"), {}, core::Division::kClosed).effective;
  const int64_t width = hp.at("width").get<int64_t>(),
                blocks = hp.at("blocks_per_stage").get<int64_t>();
  const int64_t global_batch = hp.at("batch_size").get<int64_t>();
  auto measure = [&](int world, int threads, bool overlap, int64_t bucket_bytes) {
    std::string text = OnRanks(world, threads, [&](dist::ProcessGroup& g) {
      torch::manual_seed(1);
      models::ResNet net(models::ResNetOptions()
                             .in_channels(1)
                             .num_classes(10)
                             .bottleneck(false)
                             .imagenet_stem(false)
                             .blocks({blocks, blocks, blocks})
                             .widths({width, 2 * width, 4 * width}));
      std::shared_ptr<dist::ProcessGroup> shared(&g, [](dist::ProcessGroup*) {});
      std::unique_ptr<dist::GradientReducer> reducer;
      dist::GradientReducerOptions ro;
      ro.overlap = overlap;
      ro.bucket_bytes = bucket_bytes;
      if (g.size() > 1)
        reducer = std::make_unique<dist::GradientReducer>(shared, net->parameters(),
                                                          std::vector<torch::Tensor>{}, ro);
      torch::optim::SGD opt(net->parameters(),
                            torch::optim::SGDOptions(0.05).momentum(0.9).weight_decay(5e-4));
      const int64_t b = global_batch / g.size();
      torch::Tensor x = torch::randn({b, 1, 28, 28}), y = torch::randint(0, 10, {b});
      auto step = [&] {
        opt.zero_grad();
        torch::Tensor loss = torch::cross_entropy_loss(net->forward(x), y);
        if (reducer) reducer->Prepare();
        loss.backward();
        if (reducer) reducer->Finish();
        opt.step();
      };
      for (int i = 0; i < 5; ++i) step();
      double wait0 = reducer ? reducer->stats().wait_seconds : 0;
      g.Barrier();
      auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < steps; ++i) step();
      double s = Seconds(t0);
      double wait = reducer ? reducer->stats().wait_seconds - wait0 : 0;
      char line[200];
      std::snprintf(line, sizeof(line), "%.3f %.1f %.3f %lld %lld", 1e3 * s / steps,
                    steps * global_batch / s, 1e3 * wait / steps,
                    static_cast<long long>(reducer ? reducer->stats().buckets : 0),
                    static_cast<long long>(reducer ? reducer->stats().dense_bytes : 0));
      return std::string(line);
    });
    StepResult r;
    long long buckets = 0, bytes = 0;
    std::sscanf(text.c_str(), "%lf %lf %lf %lld %lld", &r.ms_per_step, &r.images_per_s,
                &r.comm_wait_ms, &buckets, &bytes);
    std::string label = std::to_string(world) + (world > 1 ? " processes x " : " process x ") +
                        std::to_string(threads) + (threads > 1 ? " threads" : " thread");
    if (world > 1) {
      label += overlap ? ", overlapped" : ", after bwd";
      label += ", " + std::to_string(bucket_bytes >> 10) + " KiB buckets";
    }
    std::printf("%-44s %10.2f %12.0f %13.2f %8lld %11lld\n", label.c_str(), r.ms_per_step,
                r.images_per_s, r.comm_wait_ms, buckets, bytes);
    return r;
  };
  std::printf(
      "\nstep of the mini image-classification model (ResNet width %lld, %lld block(s)/stage, "
      "global batch %lld, "
      "%d steps)\n%-44s %10s %12s %13s %8s %11s\n",
      static_cast<long long>(width), static_cast<long long>(blocks),
      static_cast<long long>(global_batch), steps, "configuration", "ms_per_step", "images_per_s",
      "comm_wait_ms", "buckets", "grad_bytes");
  const int64_t big = 4 << 20, small = 64 << 10;
  StepResult one = measure(1, 2, true, big);
  StepResult two = measure(2, 1, true, big);
  StepResult two_small = measure(2, 1, true, small);
  StepResult two_after = measure(2, 1, false, small);
  std::printf(
      "\nstep time 2 processes x 1 thread / 1 process x 2 threads: %.2f (4 MiB buckets), %.2f (64 "
      "KiB buckets)\n"
      "overlap: step time after backward / overlapped (64 KiB buckets): %.2f\n",
      two.ms_per_step / one.ms_per_step, two_small.ms_per_step / one.ms_per_step,
      two_after.ms_per_step / two_small.ms_per_step);
  return 0;
}

// Prints the speed of the recommendation (NCF) benchmark's parts, side by side in one run, on
// the mini dataset generated in memory (or a ratings.csv given with --data):
//   prepare        read/generate + leave-one-out split + evaluation negatives (once per run)
//   neg_sampling   one epoch of training examples (1 + 4 negatives per positive, shuffled)
//   train_step     forward + backward + Adam on batches of the epoch (samples/s), and its
//                  parts: forward+backward alone, the Adam step alone
//   eval           the whole evaluation (users x 1000 candidates, HR@10 and NDCG@10), with the
//                  factorised scorer, and with the plain pairwise forward for comparison
// plus the model's achieved GFLOP/s (MLP GEMMs only; embeddings and element-wise ops aside)
// and its fraction of the machine's fp32 GEMM peak measured by the same program (peak_flops.h).
// Usage: recommendation_bench [--threads T] [--steps N] [--users U] [--items I] [--mf-dim F]
//        [--layers 256,256,128,64] [--batch B] [--data DIR] [--eval-pairs P]
#include <ATen/Parallel.h>
#include <torch/torch.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <string>
#include <thread>

#include "data/leave_one_out.h"
#include "data/negative_sampler.h"
#include "data/ratings_csv.h"
#include "data/synthetic_ratings.h"
#include "models/neumf.h"
#include "peak_flops.h"
#include "training/fused_adam.h"
#include "training/runtime.h"
#include "workloads/ranking_metrics.h"

using namespace trainbench;

namespace {

using Clock = std::chrono::steady_clock;
double Seconds(Clock::time_point a) {
  return std::chrono::duration<double>(Clock::now() - a).count();
}

std::vector<int64_t> ParseList(const std::string& s) {
  std::vector<int64_t> v;
  std::stringstream in(s);
  std::string p;
  while (std::getline(in, p, ',')) v.push_back(std::stoll(p));
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  int threads = 2, steps = 200, blas_threads = 0;
  int64_t batch = 2048, mf_dim = 64, eval_pairs = 1 << 18;
  std::string layers_s = "256,256,128,64", data_dir;
  data::SyntheticRatingsOptions g;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i], v = argv[i + 1];
    if (a == "--threads")
      threads = std::stoi(v);
    else if (a == "--steps")
      steps = std::stoi(v);
    else if (a == "--users")
      g.num_users = std::stoll(v);
    else if (a == "--items")
      g.num_items = std::stoll(v);
    else if (a == "--mf-dim")
      mf_dim = std::stoll(v);
    else if (a == "--layers")
      layers_s = v;
    else if (a == "--batch")
      batch = std::stoll(v);
    else if (a == "--eval-pairs")
      eval_pairs = std::stoll(v);
    else if (a == "--data")
      data_dir = v;
    else if (a == "--blas-threads")
      blas_threads = std::stoi(v);
    else {
      std::fprintf(stderr, "unknown flag %s\n", a.c_str());
      return 2;
    }
  }
  // The machine's peak, on all its cores with the BLAS library's default threads (before
  // --threads and --blas-threads apply), so every configuration is measured against one peak.
  at::set_num_threads(static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  const bench::GemmPeaks peak = bench::MeasureGemmPeaks();
  at::set_num_threads(threads);
  if (blas_threads > 0 && !training::SetBlasThreads(blas_threads))
    std::printf("no OpenBLAS loaded: --blas-threads ignored\n");
  torch::manual_seed(1);
  const std::vector<int64_t> layers = ParseList(layers_s);

  auto t0 = Clock::now();
  data::RatingsTable table;
  if (data_dir.empty()) {
    table.ratings = data::GenerateSyntheticRatings(g);
  } else {
    table = data::ReadRatingsCsv(data::RatingsCsvPath(data_dir));
  }
  const double t_read = Seconds(t0);
  t0 = Clock::now();
  data::LeaveOneOutOptions lo;
  lo.threads = threads;
  const data::LeaveOneOutDataset d = data::BuildLeaveOneOut(table, lo);
  const double t_split = Seconds(t0);
  std::printf("dataset: %lld users, %lld items, %lld training positives (%s)\n",
              static_cast<long long>(d.num_users), static_cast<long long>(d.num_items),
              static_cast<long long>(d.num_train()),
              data_dir.empty() ? "generated" : data_dir.c_str());
  std::printf("model: mf_dim=%lld layers=%s batch=%lld threads=%d\n",
              static_cast<long long>(mf_dim), layers_s.c_str(), static_cast<long long>(batch),
              threads);
  std::printf("prepare: %s %.2f s, leave-one-out + 999 eval negatives %.2f s\n",
              data_dir.empty() ? "generate" : "read csv", t_read, t_split);

  t0 = Clock::now();
  data::TrainExamples ex;
  data::NegativeSamplerOptions so;
  so.threads = threads;
  data::SampleTrainEpoch(d, so, 1, &ex);
  const double t_neg = Seconds(t0);
  std::printf("neg_sampling: %.3f s per epoch (%lld examples, %.1f M examples/s)\n", t_neg,
              static_cast<long long>(ex.size()), ex.size() / t_neg / 1e6);

  models::NeuMF m(
      models::NeuMFOptions(d.num_users, d.num_items).mf_dim(mf_dim).mlp_layer_sizes(layers));
  torch::optim::Adam adam(m->parameters(), torch::optim::AdamOptions(5e-4));
  auto users = torch::from_blob(ex.users.data(), {ex.size()}, torch::kInt32).to(torch::kInt64);
  auto items = torch::from_blob(ex.items.data(), {ex.size()}, torch::kInt32).to(torch::kInt64);
  auto labels = torch::from_blob(ex.labels.data(), {ex.size()}, torch::kFloat32).clone();
  double mlp_macs = 0;
  for (size_t k = 1; k < layers.size(); ++k)
    mlp_macs += static_cast<double>(layers[k - 1] * layers[k]);
  mlp_macs += static_cast<double>(mf_dim + layers.back());
  const int64_t nb = ex.size() / batch;
  auto batch_at = [&](int s) {
    const int64_t b = (s % nb) * batch;
    return std::make_tuple(users.slice(0, b, b + batch), items.slice(0, b, b + batch),
                           labels.slice(0, b, b + batch));
  };
  for (int s = 0; s < 5; ++s) {  // warm-up
    auto [u, i, y] = batch_at(s);
    adam.zero_grad();
    torch::binary_cross_entropy_with_logits(m->forward(u, i), y).backward();
    adam.step();
  }
  double t_fb = 0, t_opt = 0;
  t0 = Clock::now();
  for (int s = 0; s < steps; ++s) {
    auto [u, i, y] = batch_at(s);
    auto a = Clock::now();
    adam.zero_grad();
    torch::binary_cross_entropy_with_logits(m->forward(u, i), y).backward();
    t_fb += Seconds(a);
    a = Clock::now();
    adam.step();
    t_opt += Seconds(a);
  }
  const double t_train = Seconds(t0);
  const double sps = steps * batch / t_train;
  std::printf("peak: 2048^3 GEMM %.1f GFLOP/s fp32, %.1f GFLOP/s bf16 (all %u logical CPUs)\n",
              peak.fp32, peak.bf16, std::max(1u, std::thread::hardware_concurrency()));
  const double train_gflops = sps * 6 * mlp_macs / 1e9;
  std::printf(
      "train_step: %.0f samples/s (%.1f ms/step: forward+backward %.1f ms, adam %.1f ms); "
      "MLP %.1f GFLOP/s = %.0f%% of the fp32 peak\n",
      sps, 1e3 * t_train / steps, 1e3 * t_fb / steps, 1e3 * t_opt / steps, train_gflops,
      100.0 * train_gflops / peak.fp32);
  std::printf("epoch estimate: %.1f s training + %.2f s sampling\n", ex.size() / sps, t_neg);
  {
    // The optimizer step alone, torch::optim::Adam against FusedAdam, on the model's gradients
    // (alternating, 50 steps each; the weights move, which does not change the cost).
    training::FusedAdam fused(m->parameters(),
                              training::FusedAdamOptions{5e-4, 0.9, 0.999, 1e-8, 0.0});
    double t_torch = 0, t_fused = 0;
    int64_t numel = 0;
    for (const auto& p : m->parameters()) numel += p.numel();
    for (int s = 0; s < 50; ++s) {
      auto a = Clock::now();
      adam.step();
      t_torch += Seconds(a);
      a = Clock::now();
      fused.Step();
      t_fused += Seconds(a);
    }
    std::printf(
        "adam_step: %.2f M parameters; torch::optim::Adam %.2f ms, FusedAdam %.2f ms per step "
        "(%.2fx)\n",
        numel / 1e6, 1e3 * t_torch / 50, 1e3 * t_fused / 50, t_torch / t_fused);
  }

  // Evaluation: the workload's factorised scorer over all users, and the plain forward.
  const int64_t c = 1 + d.eval_negatives;
  std::vector<int32_t> cand = d.EvalCandidates();
  torch::Tensor candidates =
      torch::from_blob(cand.data(), {d.num_users, c}, torch::kInt32).to(torch::kInt64);
  m->eval();
  torch::NoGradGuard ng;
  const int64_t chunk = std::max<int64_t>(1, eval_pairs / c);
  auto run_eval = [&](bool factorised, const models::NeuMFScorerOptions& so, const char* name) {
    workloads::RankingSums sums;
    auto a = Clock::now();
    const models::NeuMFScorer scorer(m, so);
    for (int64_t b = 0; b < d.num_users; b += chunk) {
      const int64_t e = std::min(d.num_users, b + chunk);
      torch::Tensor u = torch::arange(b, e, torch::kInt64);
      torch::Tensor cs = candidates.slice(0, b, e);
      torch::Tensor s =
          factorised ? scorer.Score(u, cs)
                     : m->forward(u.unsqueeze(1).expand({e - b, c}).reshape({-1}), cs.reshape({-1}))
                           .view({e - b, c});
      workloads::AccumulateRanking(s, 10, &sums);
    }
    const double t = Seconds(a);
    // MLP MACs per pair: the factorised scorer skips the first layer (two table gathers).
    double pair_macs = static_cast<double>(mf_dim + layers.back());
    for (size_t k = factorised ? 2 : 1; k < layers.size(); ++k)
      pair_macs += static_cast<double>(layers[k - 1] * layers[k]);
    const double gflops = 2.0 * pair_macs * static_cast<double>(d.num_users * c) / t / 1e9;
    std::printf(
        "eval (%s): %.2f s for %lld users x %lld candidates (%.1f M pairs/s, %.1f GFLOP/s = %.0f%% "
        "of the fp32 peak), "
        "HR@10 %.4f NDCG@10 %.4f\n",
        name, t, static_cast<long long>(d.num_users), static_cast<long long>(c),
        d.num_users * c / t / 1e6, gflops, 100.0 * gflops / peak.fp32, sums.hits / sums.users,
        sums.ndcg / sums.users);
    return t;
  };
  {
    // Baseline: rank candidates by training popularity (how much structure a model must add).
    std::vector<float> pop(static_cast<size_t>(d.num_items), 0.0f);
    for (int32_t i : d.train_items) pop[static_cast<size_t>(i)] += 1.0f;
    torch::Tensor p = torch::from_blob(pop.data(), {d.num_items}, torch::kFloat32);
    workloads::RankingSums sums;
    for (int64_t b = 0; b < d.num_users; b += chunk) {
      const int64_t e = std::min(d.num_users, b + chunk);
      torch::Tensor cs = candidates.slice(0, b, e);
      workloads::AccumulateRanking(p.index_select(0, cs.reshape({-1})).view({e - b, c}), 10, &sums);
    }
    std::printf("baseline (item popularity): HR@10 %.4f NDCG@10 %.4f\n", sums.hits / sums.users,
                sums.ndcg / sums.users);
  }
  {
    // The factorised scorer's parts on the first chunk of users, 5 repetitions.
    const models::NeuMFScorer scorer(m);
    const int64_t e = std::min(d.num_users, chunk);
    torch::Tensor u = torch::arange(0, e, torch::kInt64);
    torch::Tensor cs = candidates.slice(0, 0, e);
    double tp[5] = {0, 0, 0, 0, 0};
    for (int rep = 0; rep < 5; ++rep) {
      auto a = Clock::now();
      torch::Tensor flat = cs.reshape({-1});
      torch::Tensor h = torch::relu(scorer.item_hidden().index_select(0, flat).view({e, c, -1}) +
                                    scorer.user_hidden().index_select(0, u).unsqueeze(1))
                            .view({e * c, -1});
      tp[0] += Seconds(a);
      a = Clock::now();
      for (size_t k = 1; k < m->mlp->size(); ++k)
        h = torch::relu((*m->mlp)[k]->as<torch::nn::Linear>()->forward(h));
      tp[1] += Seconds(a);
      a = Clock::now();
      torch::Tensor s = scorer.Score(u, cs);
      tp[2] += Seconds(a);
      a = Clock::now();
      workloads::RankingSums sums;
      workloads::AccumulateRanking(s, 10, &sums);
      tp[3] += Seconds(a);
    }
    auto b0 = Clock::now();
    for (int rep = 0; rep < 5; ++rep)
      models::NeuMFScorer(m, models::NeuMFScorerOptions().fused_gather(true)).Score(u, cs);
    const double t_fused = Seconds(b0) * 200;
    std::printf("eval parts: whole Score with the fused gather %.1f ms (scorer set-up included)\n",
                t_fused);
    std::printf(
        "eval parts per chunk of %lld users (%lld pairs): gather+add+relu %.1f ms, MLP layers 2.. "
        "%.1f ms, "
        "whole Score %.1f ms, ranking %.1f ms\n",
        static_cast<long long>(e), static_cast<long long>(e * c), 200 * tp[0], 200 * tp[1],
        200 * tp[2], 200 * tp[3]);
  }
  const double tf = run_eval(true, {}, "factorised");
  const double tg =
      run_eval(true, models::NeuMFScorerOptions().fused_gather(true), "factorised, fused gather");
  const double tb =
      run_eval(true, models::NeuMFScorerOptions().fused_gather(true).mlp_dtype(torch::kBFloat16),
               "factorised, fused gather, bf16 MLP");
  const double tp = run_eval(false, {}, "pairwise forward");
  std::printf(
      "eval speed-ups: factorised scorer %.2fx over the pairwise forward; fused gather %.2fx over "
      "the "
      "factorised scorer; bf16 MLP layers a further %.2fx\n",
      tp / tf, tf / tg, tg / tb);
  return 0;
}

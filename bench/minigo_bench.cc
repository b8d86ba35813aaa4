// Calibration probe for the MiniGo loop (issue #6): runs the workload for N generations on
// held-out GNU Go games it records first, and prints per generation the self-play + training
// time, the loss, the samples in the window, the move-prediction accuracy and the evaluation's
// self-play statistics. Settings are `--set key=value` over the defaults below.
// Two other modes bound what self-play can learn:
//   --teacher R       how often a search with no network (uniform priors, one playout per
//                     leaf, R readouts) plays GNU Go's move in the recorded games;
//   --supervised DIR  the same network trained directly on the moves of 4/5 of DIR's SGF games
//                     (one-hot targets, `--generations` x 100 steps), tested on the other 1/5.
//   --forward 1       the self-play evaluator's cost alone: the network (--set filters, blocks,
//                     value_fc, board_size) in eval mode on one thread, per batch size (16, 64,
//                     128) in fp32 NCHW, fp32 channels-last and bf16 autocast, and with its
//                     BatchNorms folded (models::FoldedGoNet); microseconds per
//                     call and per position and model GFLOP/s, the variants interleaved in rounds
//                     (best of 5 rounds) so that a noisy machine affects them alike.
//   --malloc-reuse 1  core::EnableMallocReuse first (the benchmarks' malloc_reuse option).
// Usage: minigo_bench [--generations N] [--threads T] [--eval-games G] [--teacher R]
//                     [--supervised DIR] [--forward 1] [--malloc-reuse 1] [--set key=value ...]
#include <ATen/Parallel.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>

#include "core/atomic_file.h"
#include "core/benchmark_def.h"
#include "core/malloc_reuse.h"
#include "core/paths.h"
#include "go/expert_games.h"
#include "go/features.h"
#include "go/rollout.h"
#include "training/memory_format.h"
#include "training/precision.h"
#include "training/runtime.h"
#include "workloads/go_selfplay.h"
#include "workloads/minigo.h"

using namespace trainbench;

namespace {

class Count : public train::TrainControl {
 public:
  bool OnStep(int64_t samples, double loss) override {
    this->samples += samples;
    last_loss = loss;
    return true;
  }
  int64_t samples = 0;
  double last_loss = 0;
};

}  // namespace

int main(int argc, char** argv) {
  int generations = 10, threads = 2, eval_games = 20, teacher = 0, forward = 0, malloc_reuse = 0;
  std::string supervised;  // a folder of SGF games: train on all but the last fifth, test on it
  // The mini definition's reference configuration with the bench's own (smaller, faster)
  // values over it; --set changes any key of the definition.
  const core::BenchmarkDef def =
      core::FindBenchmark(core::BenchmarksDir(), "reinforcement_learning");
  const core::ScaleDef& scale = def.Scale("mini");
  core::Json config = core::ResolveConfig(scale, {}, core::Division::kOpen).effective;
  const core::Json bench_values = {{"board_size", 9},
                                   {"komi", 7.5},
                                   {"filters", 32},
                                   {"blocks", 4},
                                   {"value_fc", 64},
                                   {"base_lr", 0.02},
                                   {"momentum", 0.9},
                                   {"weight_decay", 1e-4},
                                   {"games_per_generation", 16},
                                   {"train_steps", 100},
                                   {"batch_size", 64},
                                   {"window_generations", 4},
                                   {"max_game_moves", 162},
                                   {"readouts", 32},
                                   {"mcts_batch", 8},
                                   {"parallel_games", 1},
                                   {"search_precision", "fp32"},
                                   {"channels_last", false},
                                   {"incremental_playouts", false},
                                   {"search_node_pool", false},
                                   {"train_threads", 0},
                                   {"fold_batchnorm", false},
                                   {"malloc_reuse", false},
                                   {"c_puct", 1.5},
                                   {"dirichlet_alpha", 0.3},
                                   {"noise_fraction", 0.25},
                                   {"temperature_moves", 10},
                                   {"pass_allowed_from_move", 54},
                                   {"playout_weight", 0.5},
                                   {"value_target_q_weight", 0.0},
                                   {"eval_readouts", 32},
                                   {"gnugo_games", 0},
                                   {"gnugo_every", 1},
                                   {"gnugo_level", 1},
                                   {"gnugo_binary", "/usr/games/gnugo"},
                                   {"gating_games", 0},
                                   {"gating_win_rate", 0.55}};
  for (auto it = bench_values.begin(); it != bench_values.end(); ++it)
    config[it.key()] = it.value();
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i], v = argv[i + 1];
    if (a == "--generations")
      generations = std::stoi(v);
    else if (a == "--threads")
      threads = std::stoi(v);
    else if (a == "--eval-games")
      eval_games = std::stoi(v);
    else if (a == "--teacher")
      teacher = std::stoi(v);
    else if (a == "--forward")
      forward = std::stoi(v);
    else if (a == "--malloc-reuse")
      malloc_reuse = std::stoi(v);
    else if (a == "--supervised")
      supervised = v;
    else if (a == "--set") {
      auto eq = v.find('=');
      std::string k = v.substr(0, eq), x = v.substr(eq + 1);
      if (!config.contains(k)) {
        std::fprintf(stderr, "unknown key %s\n", k.c_str());
        return 2;
      }
      if (config[k].is_string())
        config[k] = x;
      else if (config[k].is_boolean())
        config[k] = x == "true" || x == "1";
      else
        config[k] =
            config[k].is_number_integer() ? core::Json(std::stoll(x)) : core::Json(std::stod(x));
    } else {
      std::fprintf(stderr, "unknown flag %s\n", a.c_str());
      return 2;
    }
  }
  if (malloc_reuse > 0) core::EnableMallocReuse();
  if (forward > 0) {
    at::set_num_threads(1);
    const bool blas =
        training::SetBlasThreads(1);  // OpenBLAS's own threads would compete for the cores
    torch::NoGradGuard no_grad;
    const int n = config["board_size"].get<int>();
    auto build = [&] {
      torch::manual_seed(1);
      models::GoNet net(models::GoNetOptions()
                            .board_size(n)
                            .filters(config["filters"].get<int>())
                            .blocks(config["blocks"].get<int>())
                            .value_fc(config["value_fc"].get<int>()));
      net->eval();
      return net;
    };
    models::GoNet nchw = build(), nhwc = build();
    training::ToChannelsLast(*nhwc);
    const double macs = static_cast<double>(nchw->ForwardMacs());
    using Forward = std::function<std::pair<torch::Tensor, torch::Tensor>(const torch::Tensor&)>;
    struct Variant {
      const char* name;
      Forward forward;
      bool channels_last;
      torch::Dtype dtype;  // the autocast scope's
    };
    const auto folded_fp32 = std::make_shared<models::FoldedGoNet>(*nchw);
    const auto folded_bf16 = std::make_shared<models::FoldedGoNet>(*nchw, torch::kBFloat16, true);
    auto module = [](models::GoNet& net) {
      return Forward([&net](const torch::Tensor& x) { return net->forward(x); });
    };
    auto folded = [](const std::shared_ptr<models::FoldedGoNet>& f) {
      return Forward([f](const torch::Tensor& x) { return f->forward(x); });
    };
    std::vector<Variant> variants = {
        {"fp32 nchw", module(nchw), false, torch::kFloat32},
        {"fp32 channels-last", module(nhwc), true, torch::kFloat32},
        {"bf16 nchw", module(nchw), false, torch::kBFloat16},
        {"bf16 channels-last", module(nhwc), true, torch::kBFloat16},
        {"folded fp32 nchw", folded(folded_fp32), false, torch::kFloat32},
        {"folded bf16 ch-last", folded(folded_bf16), true, torch::kBFloat16}};
    std::printf(
        "GoNet %dx%d, %d filters, %d blocks: %.2f MFLOP per position; 1 thread%s; malloc_reuse "
        "%s\n",
        n, n, config["filters"].get<int>(), config["blocks"].get<int>(), 2 * macs / 1e6,
        blas ? " (OpenBLAS 1 thread)" : "", malloc_reuse > 0 ? "on" : "off");
    for (int64_t batch : {16, 64, 128}) {
      torch::Tensor x =
          torch::rand({batch, go::FeaturePlanes(go::Position::kHistory), n, n}).round();
      std::vector<double> best(variants.size(), 1e30);
      for (int round = 0; round < 5; ++round) {
        for (size_t v = 0; v < variants.size(); ++v) {
          const Variant& var = variants[v];
          training::AutocastScope autocast(torch::kCPU, var.dtype);
          torch::Tensor in =
              var.channels_last ? x.contiguous(torch::MemoryFormat::ChannelsLast) : x;
          auto call = [&] {
            auto [logits, value] = var.forward(in);
            torch::Tensor p = torch::softmax(logits.to(torch::kFloat32), 1).contiguous();
            torch::Tensor val = value.to(torch::kFloat32).contiguous();
            return p.data_ptr<float>()[0] + val.data_ptr<float>()[0];
          };
          for (int k = 0; k < 5; ++k) call();
          const int reps = static_cast<int>(std::max<int64_t>(20, 4000 / batch));
          auto t = std::chrono::steady_clock::now();
          for (int k = 0; k < reps; ++k) call();
          best[v] = std::min(
              best[v],
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count() / reps);
        }
      }
      for (size_t v = 0; v < variants.size(); ++v) {
        std::printf(
            "batch %4lld  %-20s %9.1f us/call %7.2f us/position %7.1f GFLOP/s  %.2fx of fp32 "
            "nchw\n",
            static_cast<long long>(batch), variants[v].name, best[v] * 1e6, best[v] * 1e6 / batch,
            2 * macs * batch / best[v] / 1e9, best[0] / best[v]);
      }
      std::fflush(stdout);
    }
    return 0;
  }
  if (!supervised.empty()) {
    // The ceiling of imitation: the same network trained directly on expert moves (one-hot
    // policy targets, no value target), tested on held-out games of the same expert.
    at::set_num_threads(threads);
    std::vector<std::string> files;
    for (const auto& e : std::filesystem::directory_iterator(supervised))
      files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
    const size_t split = files.size() * 4 / 5;
    auto train = go::PositionsOf({files.begin(), files.begin() + static_cast<long>(split)});
    auto test = go::PositionsOf({files.begin() + static_cast<long>(split), files.end()});
    const int n = config["board_size"].get<int>(), history = go::Position::kHistory;
    std::deque<workloads::GoSample> window;
    for (const auto& p : train) {
      go::Position pos = go::Position::Of(p.game);
      pos.to_play = p.next.color;
      workloads::GoSample s;
      s.planes.resize(static_cast<size_t>(go::FeaturePlanes(history)) * n * n);
      go::WriteFeatures(pos, history, s.planes.data());
      s.policy.assign(static_cast<size_t>(n * n + 1), 0.0f);
      s.policy[static_cast<size_t>(go::Position::MoveIndex(p.next.point, n))] = 1.0f;
      window.push_back(std::move(s));
    }
    models::GoNet net(models::GoNetOptions()
                          .board_size(n)
                          .filters(config["filters"].get<int>())
                          .blocks(config["blocks"].get<int>())
                          .value_fc(config["value_fc"].get<int>()));
    torch::optim::SGD opt(
        net->parameters(),
        torch::optim::SGDOptions(config["base_lr"].get<double>()).momentum(0.9).weight_decay(1e-4));
    std::mt19937_64 rng(1);
    std::printf("supervised: %zu training positions, %zu test positions\n", train.size(),
                test.size());
    for (int round = 1; round <= generations; ++round) {
      auto st = workloads::TrainOnWindow(net, opt, window, 100, config["batch_size"].get<int>(),
                                         history, rng, torch::kCPU);
      std::printf("steps %4d  policy loss %.3f  test accuracy %.4f  train accuracy %.4f\n",
                  round * 100, st.policy_loss,
                  workloads::MovePredictionAccuracy(net, test, history, torch::kCPU),
                  workloads::MovePredictionAccuracy(net, train, history, torch::kCPU));
      std::fflush(stdout);
    }
    return 0;
  }
  const std::string data = "/tmp/trainbench_minigo_bench_" + std::to_string(::getpid());
  std::filesystem::create_directories(data + "/test");
  go::GnuGoOptions g;
  g.size = config["board_size"].get<int>();
  auto t0 = std::chrono::steady_clock::now();
  for (int k = 1; k <= eval_games; ++k) {
    core::WriteFileAtomically(data + "/test/g" + std::to_string(k) + ".sgf",
                              go::WriteSgf(go::GnuGoSelfPlay(g, 1000 + k), "GNU Go", "GNU Go"));
  }
  double gnugo_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (teacher > 0) {
    // How often a search with no network at all (uniform priors, value from playouts only)
    // plays GNU Go's move: what self-play's visit targets can teach at the start.
    struct Uniform : go::Evaluator {
      void Evaluate(const std::vector<const go::Position*>& ps,
                    std::vector<go::Evaluation>* out) override {
        out->assign(ps.size(),
                    go::Evaluation{
                        std::vector<float>(
                            ps.empty() ? 0 : ps[0]->board.size() * ps[0]->board.size() + 1, 1.0f),
                        0.0f});
      }
    } uniform;
    go::PlayoutMixEvaluator playouts(
        uniform, 1.0f, 7, 2 * config["board_size"].get<int>() * config["board_size"].get<int>());
    go::MctsOptions mo;
    mo.readouts = teacher;
    mo.batch = config["mcts_batch"].get<int>();
    mo.pass_allowed_from_move = config["pass_allowed_from_move"].get<int>();
    go::Mcts mcts(playouts, mo);
    std::vector<std::string> files;
    for (int k = 1; k <= eval_games; ++k)
      files.push_back(data + "/test/g" + std::to_string(k) + ".sgf");
    auto positions = go::PositionsOf(files);
    int hit = 0, n = 0;
    auto s0 = std::chrono::steady_clock::now();
    for (const auto& p : positions) {
      go::Position pos = go::Position::Of(p.game);
      pos.to_play = p.next.color;
      if (pos.over()) continue;
      hit += mcts.Search(pos).move == p.next.point;
      ++n;
    }
    std::printf(
        "playout-only search, %d readouts: plays GNU Go's move in %d of %d positions (%.4f), %.1f "
        "s\n",
        teacher, hit, n, static_cast<double>(hit) / n,
        std::chrono::duration<double>(std::chrono::steady_clock::now() - s0).count());
    std::filesystem::remove_all(data);
    return 0;
  }
  train::RunContext ctx;
  ctx.benchmark = def.name;
  ctx.scale = &scale;
  ctx.config = config;
  ctx.data_dir = data;
  ctx.seed = 1;
  ctx.threads = threads;
  auto w = workloads::MakeMiniGo(scale);
  w->Init(ctx);
  w->LoadData();
  std::printf(
      "minigo_bench: %s\n%d held-out GNU Go games (level 1) recorded in %.1f s: %lld positions\n",
      config.dump().c_str(), eval_games, gnugo_s, static_cast<long long>(w->EvalSamples()));
  train::EvalResult r0 = w->Evaluate(0);
  std::printf("gen  0  accuracy %.4f\n", r0.value);
  double total = 0;
  for (int gen = 1; gen <= generations; ++gen) {
    Count c;
    auto s0 = std::chrono::steady_clock::now();
    w->TrainEpoch(gen, c);
    double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - s0).count();
    total += sec;
    train::EvalResult r = w->Evaluate(gen);
    std::printf(
        "gen %2d  %.1f s (self-play + training)  loss %.3f  window %lld samples  accuracy %.4f  "
        "elapsed %.1f min  %s\n",
        gen, sec, c.last_loss, static_cast<long long>(r.extra["window_samples"].get<int64_t>()),
        r.value, total / 60, r.extra.dump().c_str());
    std::fflush(stdout);
  }
  std::filesystem::remove_all(data);
  return 0;
}

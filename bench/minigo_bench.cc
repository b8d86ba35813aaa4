// Calibration probe for the MiniGo loop (issue #6): runs the workload for N generations on
// held-out GNU Go games it records first, and prints per generation the self-play + training
// time, the samples in the window and the move-prediction accuracy; then the self-play and
// training rates. Settings are `--set key=value` over the defaults below.
// Usage: minigo_bench [--generations N] [--threads T] [--eval-games G] [--set key=value ...]
#include <ATen/Parallel.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>

#include "core/atomic_file.h"
#include "go/expert_games.h"
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
  int generations = 10, threads = 2, eval_games = 20;
  core::Json config = {{"board_size", 9},  {"komi", 7.5},        {"filters", 32},         {"blocks", 4},
                       {"value_fc", 64},   {"base_lr", 0.02},    {"momentum", 0.9},       {"weight_decay", 1e-4},
                       {"games_per_generation", 16}, {"train_steps", 100}, {"batch_size", 64}, {"window_generations", 4},
                       {"max_game_moves", 162}, {"readouts", 32}, {"mcts_batch", 8},      {"c_puct", 1.5},
                       {"dirichlet_alpha", 0.3}, {"noise_fraction", 0.25}, {"temperature_moves", 10},
                       {"pass_allowed_from_move", 54}, {"playout_weight", 0.5},
                       {"eval_readouts", 32}, {"gnugo_games", 0}, {"gnugo_every", 1}, {"gnugo_level", 1}, {"gnugo_binary", "/usr/games/gnugo"}, {"gating_games", 0}, {"gating_win_rate", 0.55}};
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i], v = argv[i + 1];
    if (a == "--generations") generations = std::stoi(v);
    else if (a == "--threads") threads = std::stoi(v);
    else if (a == "--eval-games") eval_games = std::stoi(v);
    else if (a == "--set") {
      auto eq = v.find('=');
      std::string k = v.substr(0, eq), x = v.substr(eq + 1);
      if (!config.contains(k)) {
        std::fprintf(stderr, "unknown key %s\n", k.c_str());
        return 2;
      }
      config[k] = config[k].is_number_integer() ? core::Json(std::stoll(x)) : core::Json(std::stod(x));
    } else {
      std::fprintf(stderr, "unknown flag %s\n", a.c_str());
      return 2;
    }
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
  train::RunContext ctx;
  ctx.config = config;
  ctx.data_dir = data;
  ctx.seed = 1;
  ctx.threads = threads;
  auto w = workloads::MakeMiniGo("mini");
  w->Init(ctx);
  w->LoadData();
  std::printf("minigo_bench: %s\n%d held-out GNU Go games (level 1) recorded in %.1f s: %lld positions\n",
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
    std::printf("gen %2d  %.1f s (self-play + training)  loss %.3f  window %lld samples  accuracy %.4f  elapsed %.1f min  %s\n",
                gen, sec, c.last_loss, static_cast<long long>(r.extra["window_samples"].get<int64_t>()), r.value,
                total / 60, r.extra.dump().c_str());
    std::fflush(stdout);
  }
  std::filesystem::remove_all(data);
  return 0;
}

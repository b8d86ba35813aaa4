// The MiniGo loop end to end on a 5x5 board with a tiny network: two generations of parallel
// self-play and training, then move prediction on held-out GNU Go games; the same seed gives
// the same result.
#include "workloads/minigo.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/atomic_file.h"
#include "core/error.h"
#include "go/expert_games.h"

namespace trainbench::workloads {
namespace {

class Steps : public train::TrainControl {
 public:
  bool OnStep(int64_t samples, double loss) override {
    ++steps;
    this->samples += samples;
    last_loss = loss;
    return true;
  }
  int steps = 0;
  int64_t samples = 0;
  double last_loss = 0;
};

core::Json Config() {
  return core::Json{{"board_size", 5},   {"komi", 7.5},         {"filters", 8},           {"blocks", 1},
                    {"value_fc", 8},     {"base_lr", 0.02},     {"momentum", 0.9},        {"weight_decay", 1e-4},
                    {"games_per_generation", 4}, {"train_steps", 20}, {"batch_size", 32}, {"window_generations", 2},
                    {"max_game_moves", 40}, {"readouts", 8},    {"mcts_batch", 4},        {"c_puct", 1.5},
                    {"dirichlet_alpha", 0.5}, {"noise_fraction", 0.25}, {"temperature_moves", 6}};
}

std::pair<double, int64_t> RunTwoGenerations(const std::string& data, uint64_t seed) {
  train::RunContext ctx;
  ctx.config = Config();
  ctx.data_dir = data;
  ctx.seed = seed;
  ctx.threads = 2;
  auto w = MakeMiniGo("mini");
  w->Init(ctx);
  w->LoadData();
  Steps control;
  w->TrainEpoch(1, control);
  w->TrainEpoch(2, control);
  EXPECT_EQ(control.steps, 40);
  EXPECT_EQ(control.samples, 40 * 32);
  train::EvalResult r = w->Evaluate(2);
  EXPECT_GT(r.extra["window_samples"].get<int64_t>(), 8);
  return {r.value, r.samples};
}

TEST(MiniGo, TwoGenerationsThenMovePrediction) {
  go::GnuGoOptions g;
  g.size = 5;
  if (::access(g.binary.c_str(), X_OK) != 0) GTEST_SKIP() << g.binary << " missing (Debian package gnugo)";
  const std::string data = ::testing::TempDir() + "/tb_minigo_" + std::to_string(::getpid());
  std::filesystem::create_directories(data + "/test");
  for (uint64_t s = 1; s <= 2; ++s) {
    core::WriteFileAtomically(data + "/test/game" + std::to_string(s) + ".sgf",
                              go::WriteSgf(go::GnuGoSelfPlay(g, s), "GNU Go", "GNU Go"));
  }
  auto [acc, n] = RunTwoGenerations(data, 9);
  EXPECT_GT(n, 10);
  EXPECT_GE(acc, 0.0);
  EXPECT_LE(acc, 1.0);
  auto [acc2, n2] = RunTwoGenerations(data, 9);
  EXPECT_EQ(acc, acc2) << "same seed, same run";
  EXPECT_EQ(n, n2);
}

TEST(MiniGo, MissingHeldOutGamesNameTheFolder) {
  train::RunContext ctx;
  ctx.config = Config();
  ctx.data_dir = "/nonexistent/go";
  auto w = MakeMiniGo("mini");
  w->Init(ctx);
  try {
    w->LoadData();
    FAIL() << "no error";
  } catch (const core::Error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/go/test: held-out expert games folder not found"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace trainbench::workloads

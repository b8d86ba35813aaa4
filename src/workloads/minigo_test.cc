// The MiniGo loop end to end on a 5x5 board with a tiny network: two generations of parallel
// self-play and training, then move prediction on held-out GNU Go games; the same seed gives
// the same result.
#include "workloads/minigo.h"

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "core/atomic_file.h"
#include "core/benchmark_def.h"
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

// The mini definition (the logged keys' names, train::LoggedSetting; the preset).
const core::ScaleDef& MiniScale() {
  static const core::BenchmarkDef def = core::LoadBenchmarkDef(
      std::string(TRAINBENCH_TEST_SRCDIR) + "/configs/benchmarks/reinforcement_learning.yaml");
  return def.Scale("mini");
}

core::Json Config() {
  return core::Json{{"board_size", 5},
                    {"komi", 7.5},
                    {"filters", 8},
                    {"blocks", 1},
                    {"value_fc", 8},
                    {"base_lr", 0.02},
                    {"momentum", 0.9},
                    {"weight_decay", 1e-4},
                    {"games_per_generation", 4},
                    {"train_steps", 20},
                    {"batch_size", 32},
                    {"window_generations", 2},
                    {"max_game_moves", 40},
                    {"readouts", 8},
                    {"mcts_batch", 4},
                    {"c_puct", 1.5},
                    {"dirichlet_alpha", 0.5},
                    {"noise_fraction", 0.25},
                    {"temperature_moves", 6},
                    {"pass_allowed_from_move", 10},
                    {"playout_weight", 0.5},
                    {"value_target_q_weight", 0.0},
                    {"eval_readouts", 8},
                    {"gnugo_games", 0},
                    {"gnugo_every", 1},
                    {"gnugo_level", 1},
                    {"gnugo_binary", "/usr/games/gnugo"},
                    {"malloc_reuse", false},
                    {"parallel_games", 1},
                    {"balance_games", false},
                    {"search_precision", "fp32"},
                    {"search_blas_threads", 0},
                    {"channels_last", false},
                    {"incremental_playouts", false},
                    {"search_node_pool", false},
                    {"train_threads", 0},
                    {"fold_batchnorm", false},
                    {"gating_games", 0},
                    {"gating_win_rate", 0.55}};
}

std::pair<double, int64_t> RunTwoGenerations(const std::string& data, uint64_t seed,
                                             int parallel_games = 1) {
  train::RunContext ctx;
  ctx.config = Config();
  ctx.config["parallel_games"] = parallel_games;
  ctx.data_dir = data;
  ctx.seed = seed;
  ctx.threads = 2;
  auto w = MakeMiniGo(MiniScale());
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

// Held-out games for the 5x5 tests: two GNU Go self-play games.
std::string FiveByFiveData(const std::string& name) {
  go::GnuGoOptions g;
  g.size = 5;
  const std::string data = ::testing::TempDir() + "/" + name + "_" + std::to_string(::getpid());
  std::filesystem::create_directories(data + "/test");
  for (uint64_t s = 1; s <= 2; ++s) {
    core::WriteFileAtomically(data + "/test/game" + std::to_string(s) + ".sgf",
                              go::WriteSgf(go::GnuGoSelfPlay(g, s), "GNU Go", "GNU Go"));
  }
  return data;
}

TEST(MiniGo, TwoGenerationsThenMovePrediction) {
  go::GnuGoOptions g;
  g.size = 5;
  if (::access(g.binary.c_str(), X_OK) != 0)
    GTEST_SKIP() << g.binary << " missing (Debian package gnugo)";
  const std::string data = FiveByFiveData("tb_minigo");
  auto [acc, n] = RunTwoGenerations(data, 9);
  EXPECT_GT(n, 10);
  EXPECT_GE(acc, 0.0);
  EXPECT_LE(acc, 1.0);
  auto [acc2, n2] = RunTwoGenerations(data, 9);
  EXPECT_EQ(acc, acc2) << "same seed, same run";
  EXPECT_EQ(n, n2);
  // Two games per thread in lockstep (4 games, 2 threads): a run, the same again for the same seed.
  auto [acc3, n3] = RunTwoGenerations(data, 9, 2);
  auto [acc4, n4] = RunTwoGenerations(data, 9, 2);
  EXPECT_GE(acc3, 0.0);
  EXPECT_LE(acc3, 1.0);
  EXPECT_EQ(acc3, acc4) << "parallel_games 2: same seed, same run";
  EXPECT_EQ(n3, n);
}

TEST(MiniGo, GatingAndGamesAgainstGnuGoAreReported) {
  go::GnuGoOptions g;
  if (::access(g.binary.c_str(), X_OK) != 0)
    GTEST_SKIP() << g.binary << " missing (Debian package gnugo)";
  const std::string data = FiveByFiveData("tb_minigo_gnugo");
  train::RunContext ctx;
  ctx.config = Config();
  ctx.config["gating_games"] = 2;
  ctx.config["gnugo_games"] = 2;
  ctx.config["gnugo_every"] = 2;
  ctx.config["gnugo_level"] = 0;
  ctx.data_dir = data;
  ctx.seed = 4;
  ctx.threads = 2;
  auto w = MakeMiniGo(MiniScale());
  w->Init(ctx);
  w->LoadData();
  Steps control;
  w->TrainEpoch(1, control);
  const train::LoggedEvents facts = w->LoggedEpochFacts(1);
  ASSERT_EQ(facts.size(), 1u);
  EXPECT_EQ(facts[0].key, "actual_selfplay_games_per_generation");
  EXPECT_EQ(facts[0].value, ctx.config["games_per_generation"]);
  train::EvalResult r1 = w->Evaluate(1);
  // Gating ran (2 games: the rate is 0, 0.5 or 1, accepted at >= 0.55); no GNU Go games at an
  // odd evaluation with gnugo_every 2.
  ASSERT_TRUE(r1.extra.contains("gating_win_rate"));
  const double rate = r1.extra["gating_win_rate"].get<double>();
  EXPECT_TRUE(rate == 0.0 || rate == 0.5 || rate == 1.0) << rate;
  EXPECT_EQ(r1.extra["gating_accepted"].get<bool>(), rate >= 0.55);
  EXPECT_FALSE(r1.extra.contains("gnugo_win_rate"));
  w->TrainEpoch(2, control);
  train::EvalResult r2 = w->Evaluate(2);
  ASSERT_TRUE(r2.extra.contains("gnugo_win_rate"));
  EXPECT_EQ(r2.extra["gnugo_games"].get<int>(), 2);
  EXPECT_EQ(r2.extra["gnugo_level"].get<int>(), 0);
  const double win = r2.extra["gnugo_win_rate"].get<double>();
  EXPECT_GE(win, 0.0);
  EXPECT_LE(win, 1.0);
  std::filesystem::remove_all(data);
}

// The optimized tuning's options together, through every search of the loop: self-play games in
// lockstep shared by the threads (balance_games), gating and games against GNU Go, each with a
// folded bf16 NHWC network and incremental playouts, the searches' GEMMs on one OpenBLAS thread,
// and training on one thread. They are logged as set.
TEST(MiniGo, TheSearchOptionsRunEveryPath) {
  go::GnuGoOptions g;
  if (::access(g.binary.c_str(), X_OK) != 0)
    GTEST_SKIP() << g.binary << " missing (Debian package gnugo)";
  const std::string data = FiveByFiveData("tb_minigo_options");
  train::RunContext ctx;
  ctx.scale = &MiniScale();
  ctx.config = Config();
  ctx.config["parallel_games"] = 2;
  ctx.config["balance_games"] = true;
  ctx.config["search_precision"] = "bf16";
  ctx.config["channels_last"] = true;
  ctx.config["incremental_playouts"] = true;
  ctx.config["search_node_pool"] = true;
  ctx.config["train_threads"] = 1;
  ctx.config["fold_batchnorm"] = true;
  ctx.config["search_blas_threads"] = 1;
  ctx.config["gating_games"] = 2;
  ctx.config["gnugo_games"] = 1;
  ctx.config["gnugo_every"] = 1;
  ctx.config["gnugo_level"] = 0;
  ctx.data_dir = data;
  ctx.seed = 5;
  ctx.threads = 2;
  auto w = MakeMiniGo(MiniScale());
  w->Init(ctx);
  std::map<std::string, core::Json> logged;
  for (const auto& e : w->LoggedHyperparameters()) logged[e.key] = e.value;
  // The official 0.7.0 closed keys: one constant rate, no boundaries; the games per generation.
  EXPECT_EQ(logged["lr_boundaries"], core::Json::array());
  EXPECT_EQ(logged["lr_rates"], core::Json::array({ctx.config["base_lr"]}));
  EXPECT_EQ(logged["train_batch_size"], ctx.config["batch_size"]);
  EXPECT_EQ(logged["min_selfplay_games_per_generation"], ctx.config["games_per_generation"]);
  EXPECT_EQ(logged["selfplay_parallel_games"], 2);
  EXPECT_EQ(logged["selfplay_balance_games"], true);
  EXPECT_EQ(logged["search_precision"], "bf16");
  EXPECT_EQ(logged["channels_last"], true);
  EXPECT_EQ(logged["incremental_playouts"], true);
  EXPECT_EQ(logged["search_node_pool"], true);
  EXPECT_EQ(logged["train_threads"], 1);
  EXPECT_EQ(logged["fold_batchnorm"], true);
  EXPECT_EQ(logged["search_blas_threads"], 1);
  using GetThreads = int (*)();
  auto blas_threads =
      reinterpret_cast<GetThreads>(::dlsym(RTLD_DEFAULT, "openblas_get_num_threads"));
  const int blas_before = blas_threads ? blas_threads() : 0;
  w->LoadData();
  Steps control;
  w->TrainEpoch(1, control);
  EXPECT_EQ(control.samples, 20 * 32);
  train::EvalResult r = w->Evaluate(1);
  EXPECT_GE(r.value, 0.0);
  EXPECT_LE(r.value, 1.0);
  EXPECT_GT(r.extra["window_samples"].get<int64_t>(), 4);
  EXPECT_GT(r.extra["selfplay_seconds"].get<double>(), 0.0);
  EXPECT_GT(r.extra["train_seconds"].get<double>(), 0.0);
  ASSERT_TRUE(r.extra.contains("gating_win_rate"));
  ASSERT_TRUE(r.extra.contains("gnugo_win_rate"));
  EXPECT_EQ(r.extra["gnugo_games"].get<int>(), 1);
  if (blas_threads)
    EXPECT_EQ(blas_threads(), blas_before) << "the searches' BLAS thread count outlived them";
  std::filesystem::remove_all(data);
}

TEST(MiniGo, AFailingOpponentNamesTheCommand) {
  go::GnuGoOptions g;
  if (::access(g.binary.c_str(), X_OK) != 0)
    GTEST_SKIP() << g.binary << " missing (Debian package gnugo)";
  const std::string data = FiveByFiveData("tb_minigo_false");
  train::RunContext ctx;
  ctx.config = Config();
  ctx.config["gnugo_games"] = 1;
  ctx.config["gnugo_binary"] = "/bin/false";  // exits at once: the first GTP command fails
  ctx.data_dir = data;
  ctx.threads = 1;
  auto w = MakeMiniGo(MiniScale());
  w->Init(ctx);
  w->LoadData();
  try {
    w->Evaluate(1);
    FAIL() << "no error";
  } catch (const core::Error& e) {
    EXPECT_NE(std::string(e.what()).find("boardsize"), std::string::npos) << e.what();
  }
  std::filesystem::remove_all(data);
}

TEST(MiniGo, MissingHeldOutGamesNameTheFolder) {
  train::RunContext ctx;
  ctx.config = Config();
  ctx.data_dir = "/nonexistent/go";
  auto w = MakeMiniGo(MiniScale());
  w->Init(ctx);
  try {
    w->LoadData();
    FAIL() << "no error";
  } catch (const core::Error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/go/test: folder of .sgf games not found"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace trainbench::workloads

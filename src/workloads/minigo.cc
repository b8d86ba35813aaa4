#include "workloads/minigo.h"

#include <ATen/Parallel.h>
#include <torch/torch.h>

#include <algorithm>
#include <deque>
#include <exception>
#include <filesystem>
#include <optional>

#include "core/error.h"
#include "core/random.h"
#include "data/parallel.h"
#include "go/expert_games.h"
#include "workloads/go_evaluator.h"
#include "workloads/go_selfplay.h"
#include "workloads/torch_util.h"

namespace trainbench::workloads {

namespace {

using core::Json;
namespace fs = std::filesystem;

class MiniGo : public train::Workload {
 public:
  explicit MiniGo(std::string scale) : scale_(std::move(scale)) {}

  void Init(const train::RunContext& ctx) override {
    ctx_ = ctx;
    const Json& c = ctx.config;
    device_ = SetUpTorch(ctx);
    if (ctx.world_size != 1) throw core::Error("minigo: data-parallel training is not supported yet (world size 1 only)");
    auto i = [&](const char* k) { return c.at(k).get<int64_t>(); };
    auto d = [&](const char* k) { return c.at(k).get<double>(); };
    size_ = static_cast<int>(i("board_size"));
    komi_ = d("komi");
    net_options_ = models::GoNetOptions().board_size(size_).filters(i("filters")).blocks(i("blocks")).value_fc(i("value_fc"));
    net_ = models::GoNet(net_options_);
    net_->to(device_);
    lr_ = d("base_lr");
    momentum_ = d("momentum");
    weight_decay_ = d("weight_decay");
    opt_.emplace(net_->parameters(), torch::optim::SGDOptions(lr_).momentum(momentum_).weight_decay(weight_decay_));
    games_ = static_cast<int>(i("games_per_generation"));
    train_steps_ = i("train_steps");
    batch_ = i("batch_size");
    window_generations_ = static_cast<int>(i("window_generations"));
    sp_.size = size_;
    sp_.komi = komi_;
    sp_.max_moves = static_cast<int>(i("max_game_moves"));
    sp_.mcts.readouts = static_cast<int>(i("readouts"));
    sp_.mcts.batch = static_cast<int>(i("mcts_batch"));
    sp_.mcts.c_puct = static_cast<float>(d("c_puct"));
    sp_.mcts.root_noise = true;
    sp_.mcts.dirichlet_alpha = static_cast<float>(d("dirichlet_alpha"));
    sp_.mcts.noise_fraction = static_cast<float>(d("noise_fraction"));
    sp_.mcts.temperature_moves = static_cast<int>(i("temperature_moves"));
    rng_.seed(core::SeedFor(ctx.seed, "train"));
  }

  std::vector<std::pair<std::string, Json>> LoggedHyperparameters() const override {
    return {{"opt_name", "sgd"},
            {"opt_base_learning_rate", lr_},
            {"opt_momentum", momentum_},
            {"opt_weight_decay", weight_decay_},
            {"model_board_size", size_},
            {"model_filters", net_options_.filters()},
            {"model_blocks", net_options_.blocks()},
            {"model_value_fc", net_options_.value_fc()},
            {"selfplay_games_per_generation", games_},
            {"selfplay_readouts", sp_.mcts.readouts},
            {"selfplay_c_puct", sp_.mcts.c_puct},
            {"selfplay_dirichlet_alpha", sp_.mcts.dirichlet_alpha},
            {"selfplay_noise_fraction", sp_.mcts.noise_fraction},
            {"selfplay_temperature_moves", sp_.mcts.temperature_moves},
            {"train_steps_per_generation", train_steps_},
            {"train_window_generations", window_generations_},
            {"komi", komi_}};
  }

  int64_t GlobalBatchSize() const override { return batch_; }
  Json RuntimeProvenance() const override { return TorchProvenance(device_); }

  void LoadData() override {
    const fs::path dir = fs::path(ctx_.data_dir) / "test";
    if (!fs::is_directory(dir)) throw core::FileError(dir.string(), 0, "held-out expert games folder not found");
    std::vector<std::string> files;
    for (const auto& e : fs::directory_iterator(dir)) {
      if (e.path().extension() == ".sgf") files.push_back(e.path().string());
    }
    std::sort(files.begin(), files.end());
    if (files.empty()) throw core::FileError(dir.string(), 0, "no .sgf files");
    eval_positions_ = go::PositionsOf(files);
    for (const auto& p : eval_positions_) {
      if (p.game.board().size() != size_) {
        throw core::Error(p.source + ": a " + std::to_string(p.game.board().size()) + "x" +
                          std::to_string(p.game.board().size()) + " game, the benchmark plays " + std::to_string(size_) +
                          "x" + std::to_string(size_));
      }
    }
  }

  int64_t TrainSamples() const override { return train_steps_ * batch_; }
  int64_t EvalSamples() const override { return static_cast<int64_t>(eval_positions_.size()); }

  void TrainEpoch(int epoch, train::TrainControl& control) override {
    // 1. Self-play, one game per thread at a time; each game has its own seed, so the games do
    // not depend on the thread count.
    const int threads = std::max(1, ctx_.threads);
    std::vector<SelfPlayGame> played(static_cast<size_t>(games_));
    std::vector<std::exception_ptr> errors(static_cast<size_t>(threads));
    net_->eval();
    at::set_num_threads(1);
    data::RunOnThreads(threads, [&](int t) {
      try {
        GoNetEvaluator evaluator(net_, device_);
        for (int g = t; g < games_; g += threads) {
          const uint64_t seed = core::SeedFor(ctx_.seed, "selfplay") ^ (static_cast<uint64_t>(epoch) << 32) ^
                                static_cast<uint64_t>(g);
          played[static_cast<size_t>(g)] = PlaySelfPlayGame(evaluator, sp_, seed);
        }
      } catch (...) {
        errors[static_cast<size_t>(t)] = std::current_exception();
      }
    });
    for (auto& e : errors) {
      if (e) std::rethrow_exception(e);
    }
    at::set_num_threads(threads);
    std::vector<GoSample> generation;
    for (auto& g : played) {
      for (auto& s : g.samples) generation.push_back(std::move(s));
    }
    generations_.push_back(std::move(generation));
    while (static_cast<int>(generations_.size()) > window_generations_) generations_.pop_front();
    std::deque<GoSample> window;
    for (const auto& gen : generations_) window.insert(window.end(), gen.begin(), gen.end());
    // 2. Training on the window.
    for (int64_t step = 0; step < train_steps_; ++step) {
      TrainStats st = TrainOnWindow(net_, *opt_, window, 1, batch_, go::Position::kHistory, rng_, device_);
      if (!control.OnStep(batch_, st.policy_loss + st.value_loss)) return;
    }
  }

  train::EvalResult Evaluate(int /*epoch*/) override {
    train::EvalResult r;
    r.value = MovePredictionAccuracy(net_, eval_positions_, go::Position::kHistory, device_);
    r.samples = static_cast<int64_t>(eval_positions_.size());
    int64_t samples = 0;
    for (const auto& g : generations_) samples += static_cast<int64_t>(g.size());
    r.extra = Json{{"window_samples", samples}};
    return r;
  }

 private:
  std::string scale_;
  train::RunContext ctx_;
  torch::Device device_{torch::kCPU};
  int size_ = 9;
  double komi_ = 7.5, lr_ = 0, momentum_ = 0, weight_decay_ = 0;
  models::GoNetOptions net_options_;
  models::GoNet net_{nullptr};
  std::optional<torch::optim::SGD> opt_;
  int games_ = 0, window_generations_ = 1;
  int64_t train_steps_ = 0, batch_ = 0;
  SelfPlayOptions sp_;
  std::mt19937_64 rng_;
  std::deque<std::vector<GoSample>> generations_;
  std::vector<go::LabelledPosition> eval_positions_;
};

}  // namespace

std::unique_ptr<train::Workload> MakeMiniGo(const std::string& scale) {
  if (scale != "mini" && scale != "full") throw core::Error("minigo has no scale \"" + scale + "\"");
  return std::make_unique<MiniGo>(scale);
}

}  // namespace trainbench::workloads

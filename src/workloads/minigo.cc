#include "workloads/minigo.h"

#include <ATen/Parallel.h>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <exception>
#include <filesystem>
#include <optional>

#include "core/error.h"
#include "core/mllog_keys.h"
#include "core/random.h"
#include "data/parallel.h"
#include "go/expert_games.h"
#include "go/go_dataset.h"
#include "go/gtp.h"
#include "go/match.h"
#include "go/rollout.h"
#include "training/memory_format.h"
#include "training/precision.h"
#include "training/runtime.h"
#include "workloads/go_evaluator.h"
#include "workloads/go_selfplay.h"
#include "workloads/minigo_options.h"

namespace trainbench::workloads {

namespace {

using core::Json;
namespace fs = std::filesystem;

class MiniGo : public train::Workload {
 public:
  explicit MiniGo(core::Json preset) : preset_(std::move(preset)) {}

  const char* DataParallelBatchKey() const override { return nullptr; }  // one process only

  void Init(const train::RunContext& ctx) override {
    ctx_ = ctx;
    device_ = training::SetUpTorch(ctx);
    train::CheckWorldSize(*this, ctx.benchmark, ctx.config, ctx.world_size);
    opts_ = MiniGoOptions::FromConfig(ctx.config, preset_);
    net_options_ = models::GoNetOptions()
                       .board_size(opts_.board_size)
                       .filters(opts_.filters)
                       .blocks(opts_.blocks)
                       .value_fc(opts_.value_fc);
    net_ = models::GoNet(net_options_);
    net_->to(device_);
    if (opts_.channels_last) training::ToChannelsLast(*net_);
    search_dtype_ = training::ParsePrecision(opts_.search_precision, device_, "search_precision");
    net_threads_ =
        opts_.train_threads > 0 ? static_cast<int>(opts_.train_threads) : std::max(1, ctx.threads);
    // The run's count from here on, in place of SetUpTorch's ctx.threads; the search phases switch
    // to one thread with an IntraOpThreadsScope that comes back to this count.
    at::set_num_threads(net_threads_);
    opt_.emplace(net_->parameters(), torch::optim::SGDOptions(opts_.base_lr)
                                         .momentum(opts_.momentum)
                                         .weight_decay(opts_.weight_decay));
    sp_.size = opts_.board_size;
    sp_.komi = opts_.komi;
    sp_.max_moves = opts_.max_game_moves;
    sp_.mcts.readouts = opts_.readouts;
    sp_.mcts.batch = opts_.mcts_batch;
    sp_.mcts.c_puct = static_cast<float>(opts_.c_puct);
    sp_.mcts.root_noise = true;
    sp_.mcts.dirichlet_alpha = static_cast<float>(opts_.dirichlet_alpha);
    sp_.mcts.noise_fraction = static_cast<float>(opts_.noise_fraction);
    sp_.mcts.temperature_moves = opts_.temperature_moves;
    sp_.mcts.pass_allowed_from_move = opts_.pass_allowed_from_move;
    sp_.playout_weight = static_cast<float>(opts_.playout_weight);
    sp_.incremental_playouts = opts_.incremental_playouts;
    sp_.mcts.node_pool = opts_.search_node_pool;
    sp_.q_weight = static_cast<float>(opts_.value_target_q_weight);
    best_ = opts_.gating_games > 0 ? Snapshot(net_) : net_;
    rng_.seed(core::SeedFor(ctx.seed, "train"));
  }

  train::LoggedEvents LoggedHyperparameters() const override {
    namespace k = core::keys;
    // The official closed keys (training_0.7.0/closed_minigo.yaml): MiniGo's learning rate is
    // piecewise constant (lr_rates[i] until step lr_boundaries[i]); trainbench's is one constant
    // rate, so no boundaries and one rate. Each generation plays exactly games_per_generation.
    return {train::LoggedSetting(ctx_, "batch_size"),
            {k::kLrBoundaries, Json::array()},
            {k::kLrRates, Json::array({opts_.base_lr})},
            {k::kMinSelfplayGamesPerGeneration, opts_.games_per_generation},
            {core::keys::kOptName, "sgd"},
            train::LoggedSetting(ctx_, "base_lr"),
            train::LoggedSetting(ctx_, "momentum"),
            train::LoggedSetting(ctx_, "weight_decay"),
            train::LoggedSetting(ctx_, "board_size"),
            train::LoggedSetting(ctx_, "filters"),
            train::LoggedSetting(ctx_, "blocks"),
            train::LoggedSetting(ctx_, "value_fc"),
            train::LoggedSetting(ctx_, "games_per_generation"),
            train::LoggedSetting(ctx_, "readouts"),
            // The search's and the value target's float values, as the search uses them.
            {core::keys::kSelfplayCPuct, sp_.mcts.c_puct},
            {core::keys::kSelfplayDirichletAlpha, sp_.mcts.dirichlet_alpha},
            {core::keys::kSelfplayNoiseFraction, sp_.mcts.noise_fraction},
            train::LoggedSetting(ctx_, "temperature_moves"),
            train::LoggedSetting(ctx_, "pass_allowed_from_move"),
            train::LoggedSetting(ctx_, "playout_weight"),
            train::LoggedSetting(ctx_, "parallel_games"),
            train::LoggedSetting(ctx_, "balance_games"),
            train::LoggedSetting(ctx_, "search_blas_threads"),
            train::LoggedSetting(ctx_, "mcts_batch"),
            {core::keys::kSearchPrecision, training::PrecisionName(search_dtype_)},
            train::LoggedSetting(ctx_, "channels_last"),
            train::LoggedSetting(ctx_, "incremental_playouts"),
            train::LoggedSetting(ctx_, "search_node_pool"),
            {core::keys::kTrainThreads, net_threads_},
            train::LoggedSetting(ctx_, "fold_batchnorm"),
            {core::keys::kTrainValueTargetQWeight, sp_.q_weight},
            train::LoggedSetting(ctx_, "train_steps"),
            train::LoggedSetting(ctx_, "window_generations"),
            train::LoggedSetting(ctx_, "komi"),
            train::LoggedSetting(ctx_, "eval_readouts"),
            train::LoggedSetting(ctx_, "gnugo_games"),
            train::LoggedSetting(ctx_, "gnugo_every"),
            train::LoggedSetting(ctx_, "gnugo_level"),
            train::LoggedSetting(ctx_, "gating_games"),
            train::LoggedSetting(ctx_, "gating_win_rate")};
  }

  int64_t GlobalBatchSize() const override { return opts_.batch_size; }
  Json RuntimeProvenance() const override { return training::TorchProvenance(device_); }

  void LoadData() override {
    // mini: the held-out GNU Go games of `prepare go` (<data>/test); full: every .sgf under the
    // expert collection the user points to.
    const std::string dir = opts_.eval_games_subdir.empty()
                                ? ctx_.data_dir
                                : (fs::path(ctx_.data_dir) / opts_.eval_games_subdir).string();
    // The expert's board moves only: its passes (which end a game under Tromp-Taylor, once the
    // board is settled) are left out, so a policy that collapses onto passing cannot score.
    eval_positions_ = go::PositionsOf(go::SgfFilesUnder(dir));
    eval_positions_.erase(
        std::remove_if(eval_positions_.begin(), eval_positions_.end(),
                       [](const go::LabelledPosition& p) { return p.next.point == go::kPass; }),
        eval_positions_.end());
    if (eval_positions_.empty()) throw core::FileError(dir, 0, "the games hold no move to predict");
    for (const auto& p : eval_positions_) {
      if (p.game.board().size() != opts_.board_size) {
        throw core::Error(p.source + ": a " + std::to_string(p.game.board().size()) + "x" +
                          std::to_string(p.game.board().size()) + " game, the benchmark plays " +
                          std::to_string(opts_.board_size) + "x" +
                          std::to_string(opts_.board_size));
      }
    }
  }

  int64_t TrainSamples() const override { return opts_.train_steps * opts_.batch_size; }
  int64_t EvalSamples() const override { return static_cast<int64_t>(eval_positions_.size()); }

  void TrainEpoch(int epoch, train::TrainControl& control) override {
    // 1. Self-play: thread t plays games t, t + threads, ..., parallel_games of them at a time in
    // lockstep (their searches share network calls); with balance_games the threads share the
    // games instead (SelfPlayPool). Each game has its own seed, so the games do not depend on
    // the thread count.
    const auto selfplay_start = std::chrono::steady_clock::now();
    const int threads = std::max(1, ctx_.threads);
    std::vector<SelfPlayGame> played(static_cast<size_t>(opts_.games_per_generation));
    std::vector<std::exception_ptr> errors(static_cast<size_t>(threads));
    best_->eval();
    const std::shared_ptr<const models::FoldedGoNet> folded =
        Folded(best_);  // shared by the threads
    std::vector<uint64_t> seeds;
    for (int g = 0; g < opts_.games_per_generation; ++g) {
      seeds.push_back(core::SeedFor(ctx_.seed, "selfplay") ^ (static_cast<uint64_t>(epoch) << 32) ^
                      static_cast<uint64_t>(g));
    }
    std::unique_ptr<SelfPlayPool> pool;
    if (opts_.balance_games)
      pool = std::make_unique<SelfPlayPool>(sp_, seeds, threads, opts_.parallel_games);
    // One intra-op thread per search thread; back to the run's count (net_threads_, not the
    // count read now: see IntraOpThreadsScope) for the training below.
    training::IntraOpThreadsScope search_threads(1, net_threads_);
    auto blas_threads =
        std::make_unique<training::BlasThreadsScope>(opts_.search_blas_threads);  // self-play only
    data::RunOnThreads(threads, [&](int t) {
      try {
        // Per thread; the weights are cast once.
        training::AutocastScope autocast(device_, search_dtype_);
        GoNetEvaluator evaluator = SearchEvaluator(best_, folded);
        if (pool) {
          pool->Play(evaluator);
          return;
        }
        std::vector<int> mine;
        for (int g = t; g < opts_.games_per_generation; g += threads) mine.push_back(g);
        for (size_t first = 0; first < mine.size();
             first += static_cast<size_t>(opts_.parallel_games)) {
          const size_t last =
              std::min(mine.size(), first + static_cast<size_t>(opts_.parallel_games));
          std::vector<uint64_t> group;
          for (size_t k = first; k < last; ++k)
            group.push_back(seeds[static_cast<size_t>(mine[k])]);
          std::vector<SelfPlayGame> games = PlaySelfPlayGames(evaluator, sp_, group);
          for (size_t k = first; k < last; ++k)
            played[static_cast<size_t>(mine[k])] = std::move(games[k - first]);
        }
      } catch (...) {
        errors[static_cast<size_t>(t)] = std::current_exception();
      }
    });
    blas_threads.reset();
    for (auto& e : errors) {
      if (e) std::rethrow_exception(e);
    }
    search_threads.Restore();
    if (pool) played = pool->Take();
    games_played_ = static_cast<int64_t>(played.size());
    std::vector<GoSample> generation;
    int64_t moves = 0, passes = 0, black_wins = 0, resigned = 0;
    for (auto& g : played) {
      moves += static_cast<int64_t>(g.game.moves().size());
      for (const auto& m : g.game.moves()) passes += m.point == go::kPass;
      black_wins += g.game.Winner() == go::kBlack;
      resigned += g.game.resigned() != go::kEmpty;
      for (auto& s : g.samples) generation.push_back(std::move(s));
    }
    last_selfplay_ =
        Json{{"selfplay_mean_moves", static_cast<double>(moves) / opts_.games_per_generation},
             {"selfplay_pass_fraction", moves > 0 ? static_cast<double>(passes) / moves : 0.0},
             {"selfplay_black_wins", static_cast<double>(black_wins) / opts_.games_per_generation},
             {"selfplay_resigned", static_cast<double>(resigned) / opts_.games_per_generation},
             {"selfplay_seconds", Seconds(selfplay_start)}};
    generations_.push_back(std::move(generation));
    while (static_cast<int>(generations_.size()) > opts_.window_generations)
      generations_.pop_front();
    std::deque<GoSample> window;
    for (const auto& gen : generations_) window.insert(window.end(), gen.begin(), gen.end());
    // 2. Training on the window.
    const auto train_start = std::chrono::steady_clock::now();
    for (int64_t step = 0; step < opts_.train_steps; ++step) {
      TrainStats st = TrainOnWindow(net_, *opt_, window, 1, opts_.batch_size,
                                    go::Position::kHistory, rng_, device_);
      if (!control.OnStep(opts_.batch_size, st.policy_loss + st.value_loss)) return;
    }
    last_selfplay_["train_seconds"] = Seconds(train_start);
    // 3. Gating (optional): the trained network becomes the self-play and evaluated network only
    // if it wins gating_win_rate of gating_games against the current best, colours alternating.
    if (opts_.gating_games <= 0) {
      best_ = net_;
      return;
    }
    const double rate = GatingWinRate(epoch);
    last_gating_ =
        Json{{"gating_win_rate", rate}, {"gating_accepted", rate >= opts_.gating_win_rate}};
    if (rate >= opts_.gating_win_rate) best_ = Snapshot(net_);
  }

  // The self-play games of the generation just trained (0 when it was stopped before them).
  train::LoggedEvents LoggedEpochFacts(int /*epoch*/) const override {
    return {{core::keys::kActualSelfplayGamesPerGeneration, games_played_}};
  }

  train::EvalResult Evaluate(int epoch) override {
    train::EvalResult r;
    double pass_fraction = 0;
    r.value = MovePredictionAccuracy(best_, eval_positions_, go::Position::kHistory, device_, 256,
                                     &pass_fraction);
    r.samples = static_cast<int64_t>(eval_positions_.size());
    int64_t samples = 0;
    for (const auto& g : generations_) samples += static_cast<int64_t>(g.size());
    r.extra = last_selfplay_;
    r.extra["window_samples"] = samples;
    r.extra["predicted_pass_fraction"] = pass_fraction;
    for (const auto& [k, v] : last_gating_.items()) r.extra[k] = v;
    if (opts_.gnugo_games > 0 && epoch % opts_.gnugo_every == 0) {
      auto [wins, played] = GnuGoWins(epoch);
      r.extra["gnugo_win_rate"] = static_cast<double>(wins) / played;
      r.extra["gnugo_games"] = played;
      r.extra["gnugo_level"] = opts_.gnugo_level;
    }
    return r;
  }

 private:
  // The search's network: `net` with its BatchNorms folded when fold_batchnorm is on (null
  // otherwise); built once per generation or match and shared read-only by the threads.
  std::shared_ptr<const models::FoldedGoNet> Folded(const models::GoNet& net) const {
    return opts_.fold_batchnorm ? std::make_shared<const models::FoldedGoNet>(*net, search_dtype_,
                                                                              opts_.channels_last)
                                : nullptr;
  }
  GoNetEvaluator SearchEvaluator(const models::GoNet& net,
                                 std::shared_ptr<const models::FoldedGoNet> folded) const {
    if (folded)
      return GoNetEvaluator(std::move(folded), device_, go::Position::kHistory,
                            opts_.channels_last);
    return GoNetEvaluator(net, device_, go::Position::kHistory, opts_.channels_last);
  }

  static double Seconds(std::chrono::steady_clock::time_point since) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
  }

  // A copy of `net` with its own parameters (the gating's new best).
  models::GoNet Snapshot(const models::GoNet& net) const {
    models::GoNet copy(net_options_);
    copy->to(device_);
    torch::NoGradGuard no_grad;
    auto from = net->parameters(), to = copy->parameters();
    for (size_t k = 0; k < from.size(); ++k) to[k].copy_(from[k]);
    auto from_b = net->buffers(), to_b = copy->buffers();
    for (size_t k = 0; k < from_b.size(); ++k) to_b[k].copy_(from_b[k]);
    if (opts_.channels_last) training::ToChannelsLast(*copy);
    return copy;
  }

  // Our evaluation player: MCTS with `net` (no noise, the most visited move), the self-play's
  // playout mixing, `eval_readouts` readouts. Seeded for the playouts.
  struct Player {
    Player(GoNetEvaluator net, const SelfPlayOptions& sp, int readouts, double playout_weight,
           int size, uint64_t seed, int temperature_moves)
        : evaluator(std::move(net)),
          mixed(evaluator, static_cast<float>(playout_weight), seed, 2 * size * size,
                sp.incremental_playouts),
          mcts(mixed, [&] {
            go::MctsOptions o = sp.mcts;
            o.readouts = readouts;
            o.root_noise = false;
            o.temperature_moves = temperature_moves;
            o.seed = seed;
            return o;
          }()) {}
    int operator()(const go::Game& g, go::Color c) {
      go::Position p = go::Position::Of(g);
      p.to_play = c;
      return mcts.Search(p).move;
    }
    GoNetEvaluator evaluator;
    go::PlayoutMixEvaluator mixed;
    go::Mcts mcts;
  };

  // Games of the best network against GNU Go (gnugo_level, a new GNU Go seed per game), ours
  // black in the even games; returns (our wins, games). An opponent that fails, crashes or hangs
  // throws an error naming the command and the answer, which aborts the run.
  std::pair<int, int> GnuGoWins(int epoch) {
    torch::NoGradGuard no_grad;
    training::AutocastScope autocast(device_, search_dtype_);
    best_->eval();
    const std::shared_ptr<const models::FoldedGoNet> folded = Folded(best_);
    training::IntraOpThreadsScope search_threads(1, net_threads_);
    training::BlasThreadsScope blas_threads(opts_.search_blas_threads);
    int wins = 0;
    for (int g = 0; g < opts_.gnugo_games; ++g) {
      const uint64_t seed = core::SeedFor(ctx_.seed, "gnugo") ^
                            (static_cast<uint64_t>(epoch) << 32) ^ static_cast<uint64_t>(g);
      go::GtpClient gnugo(
          {opts_.gnugo_binary, "--mode", "gtp", "--level", std::to_string(opts_.gnugo_level),
           "--chinese-rules", "--seed", std::to_string(seed % 1000000007)},
          60);
      Player ours(SearchEvaluator(best_, folded), sp_, opts_.eval_readouts, opts_.playout_weight,
                  opts_.board_size, seed, 0);
      const go::Color our_color = g % 2 == 0 ? go::kBlack : go::kWhite;
      go::MatchOptions mo;
      mo.size = opts_.board_size;
      mo.komi = opts_.komi;
      const go::Game game = go::PlayMatch(gnugo, std::ref(ours), our_color, mo);
      wins += game.Winner() == our_color;
    }
    // Before blas_threads ends, the order this phase has always restored the two counts in (with
    // an OpenMP build of OpenBLAS, restoring the BLAS count sets the OpenMP count too).
    search_threads.Restore();
    return {wins, opts_.gnugo_games};
  }

  // Fraction of gating_games the trained network wins against the best one, colours
  // alternating; the first temperature_moves moves are sampled so that the games differ.
  double GatingWinRate(int epoch) {
    torch::NoGradGuard no_grad;
    training::AutocastScope autocast(device_, search_dtype_);
    net_->eval();
    best_->eval();
    const std::shared_ptr<const models::FoldedGoNet> folded_candidate = Folded(net_),
                                                     folded_best = Folded(best_);
    training::IntraOpThreadsScope search_threads(1, net_threads_);
    training::BlasThreadsScope blas_threads(opts_.search_blas_threads);
    int wins = 0;
    for (int g = 0; g < opts_.gating_games; ++g) {
      const uint64_t seed = core::SeedFor(ctx_.seed, "gating") ^
                            (static_cast<uint64_t>(epoch) << 32) ^ static_cast<uint64_t>(g);
      Player candidate(SearchEvaluator(net_, folded_candidate), sp_, opts_.eval_readouts,
                       opts_.playout_weight, opts_.board_size, seed, sp_.mcts.temperature_moves);
      Player best(SearchEvaluator(best_, folded_best), sp_, opts_.eval_readouts,
                  opts_.playout_weight, opts_.board_size, seed + 1, sp_.mcts.temperature_moves);
      const go::Color candidate_color = g % 2 == 0 ? go::kBlack : go::kWhite;
      go::Game game(opts_.board_size, opts_.komi);
      const int limit = sp_.max_moves > 0 ? sp_.max_moves : 2 * opts_.board_size * opts_.board_size;
      while (!game.over() && static_cast<int>(game.moves().size()) < limit) {
        const go::Color c = game.to_play();
        const int move = c == candidate_color ? candidate(game, c) : best(game, c);
        TB_CHECK(game.Play(go::Move{c, move}), "gating: the search chose an illegal move");
      }
      wins += game.Winner() == candidate_color;
    }
    net_->train();
    // Before blas_threads ends, the order this phase has always restored the two counts in (with
    // an OpenMP build of OpenBLAS, restoring the BLAS count sets the OpenMP count too).
    search_threads.Restore();
    return static_cast<double>(wins) / opts_.gating_games;
  }

  core::Json preset_;  // the scale's (core::ScaleDef::preset)
  MiniGoOptions opts_;
  train::RunContext ctx_;
  torch::Device device_{torch::kCPU};
  int64_t games_played_ = 0;  // self-play games of the last generation
  models::GoNetOptions net_options_;
  models::GoNet net_{nullptr};   // trained every generation
  models::GoNet best_{nullptr};  // plays self-play and is evaluated (net_ itself without gating)
  Json last_gating_ = Json::object();
  std::optional<torch::optim::SGD> opt_;
  int net_threads_ = 1;  // intra-op threads of training and the move-prediction evaluation
  torch::Dtype search_dtype_ = torch::kFloat32;  // the network's compute dtype in searches
  SelfPlayOptions sp_;
  std::mt19937_64 rng_;
  std::deque<std::vector<GoSample>> generations_;
  std::vector<go::LabelledPosition> eval_positions_;
  Json last_selfplay_ = Json::object();  // statistics of the last generation's self-play games
};

}  // namespace

std::unique_ptr<train::Workload> MakeMiniGo(const core::ScaleDef& scale) {
  return std::make_unique<MiniGo>(scale.preset);
}

}  // namespace trainbench::workloads

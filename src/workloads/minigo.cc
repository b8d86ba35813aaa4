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

  const char* DataParallelBatchKey() const override { return nullptr; }  // one process only

  void Init(const train::RunContext& ctx) override {
    ctx_ = ctx;
    const Json& c = ctx.config;
    device_ = SetUpTorch(ctx);
    train::CheckWorldSize(*this, ctx.benchmark, c, ctx.world_size);
    auto i = [&](const char* k) { return c.at(k).get<int64_t>(); };
    auto d = [&](const char* k) { return c.at(k).get<double>(); };
    size_ = static_cast<int>(i("board_size"));
    komi_ = d("komi");
    net_options_ = models::GoNetOptions().board_size(size_).filters(i("filters")).blocks(i("blocks")).value_fc(i("value_fc"));
    net_ = models::GoNet(net_options_);
    net_->to(device_);
    channels_last_ = c.at("channels_last").get<bool>();
    if (channels_last_) ToChannelsLast(*net_);
    search_dtype_ = ParsePrecision(c.at("search_precision").get<std::string>(), device_, "search_precision");
    fold_batchnorm_ = c.at("fold_batchnorm").get<bool>();
    const int64_t train_threads = c.at("train_threads").get<int64_t>();
    net_threads_ = train_threads > 0 ? static_cast<int>(train_threads) : std::max(1, ctx.threads);
    at::set_num_threads(net_threads_);
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
    sp_.mcts.pass_allowed_from_move = static_cast<int>(i("pass_allowed_from_move"));
    playout_weight_ = d("playout_weight");
    sp_.playout_weight = static_cast<float>(playout_weight_);
    sp_.incremental_playouts = c.at("incremental_playouts").get<bool>();
    sp_.mcts.node_pool = c.at("search_node_pool").get<bool>();
    parallel_games_ = static_cast<int>(i("parallel_games"));
    balance_games_ = c.at("balance_games").get<bool>();
    search_blas_threads_ = static_cast<int>(i("search_blas_threads"));
    sp_.q_weight = static_cast<float>(d("value_target_q_weight"));
    eval_readouts_ = static_cast<int>(i("eval_readouts"));
    gnugo_games_ = static_cast<int>(i("gnugo_games"));
    gnugo_every_ = std::max<int>(1, static_cast<int>(i("gnugo_every")));
    gnugo_level_ = static_cast<int>(i("gnugo_level"));
    gnugo_binary_ = c.at("gnugo_binary").get<std::string>();
    gating_games_ = static_cast<int>(i("gating_games"));
    gating_win_rate_ = d("gating_win_rate");
    best_ = gating_games_ > 0 ? Snapshot(net_) : net_;
    rng_.seed(core::SeedFor(ctx.seed, "train"));
  }

  train::LoggedEvents LoggedHyperparameters() const override {
    namespace k = core::keys;
    // The official closed keys (training_0.7.0/closed_minigo.yaml): MiniGo's learning rate is
    // piecewise constant (lr_rates[i] until step lr_boundaries[i]); trainbench's is one constant
    // rate, so no boundaries and one rate. Each generation plays exactly games_per_generation.
    return {{k::kTrainBatchSize, batch_},
            {k::kLrBoundaries, Json::array()},
            {k::kLrRates, Json::array({lr_})},
            {k::kMinSelfplayGamesPerGeneration, games_},
            {"opt_name", "sgd"},
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
            {"selfplay_pass_allowed_from_move", sp_.mcts.pass_allowed_from_move},
            {"selfplay_playout_weight", playout_weight_},
            {"selfplay_parallel_games", parallel_games_},
            {"selfplay_balance_games", balance_games_},
            {"search_blas_threads", search_blas_threads_},
            {"selfplay_mcts_batch", sp_.mcts.batch},
            {"search_precision", PrecisionName(search_dtype_)},
            {"channels_last", channels_last_},
            {"incremental_playouts", sp_.incremental_playouts},
            {"search_node_pool", sp_.mcts.node_pool},
            {"train_threads", net_threads_},
            {"fold_batchnorm", fold_batchnorm_},
            {"train_value_target_q_weight", sp_.q_weight},
            {"train_steps_per_generation", train_steps_},
            {"train_window_generations", window_generations_},
            {"komi", komi_},
            {"eval_readouts", eval_readouts_},
            {"eval_gnugo_games", gnugo_games_},
            {"eval_gnugo_every", gnugo_every_},
            {"eval_gnugo_level", gnugo_level_},
            {"gating_games", gating_games_},
            {"gating_win_rate", gating_win_rate_}};
  }

  int64_t GlobalBatchSize() const override { return batch_; }
  Json RuntimeProvenance() const override { return TorchProvenance(device_); }

  void LoadData() override {
    // mini: the held-out GNU Go games of `prepare go` (<data>/test); full: every .sgf under the
    // expert collection the user points to.
    const std::string dir = scale_ == "mini" ? (fs::path(ctx_.data_dir) / "test").string() : ctx_.data_dir;
    // The expert's board moves only: its passes (which end a game under Tromp-Taylor, once the
    // board is settled) are left out, so a policy that collapses onto passing cannot score.
    eval_positions_ = go::PositionsOf(go::SgfFilesUnder(dir));
    eval_positions_.erase(std::remove_if(eval_positions_.begin(), eval_positions_.end(),
                                         [](const go::LabelledPosition& p) { return p.next.point == go::kPass; }),
                          eval_positions_.end());
    if (eval_positions_.empty()) throw core::FileError(dir, 0, "the games hold no move to predict");
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
    // 1. Self-play: thread t plays games t, t + threads, ..., parallel_games of them at a time in
    // lockstep (their searches share network calls); with balance_games the threads share the
    // games instead (SelfPlayPool). Each game has its own seed, so the games do not depend on
    // the thread count.
    const auto selfplay_start = std::chrono::steady_clock::now();
    const int threads = std::max(1, ctx_.threads);
    std::vector<SelfPlayGame> played(static_cast<size_t>(games_));
    std::vector<std::exception_ptr> errors(static_cast<size_t>(threads));
    best_->eval();
    const std::shared_ptr<const models::FoldedGoNet> folded = Folded(best_);  // shared by the threads
    std::vector<uint64_t> seeds;
    for (int g = 0; g < games_; ++g) {
      seeds.push_back(core::SeedFor(ctx_.seed, "selfplay") ^ (static_cast<uint64_t>(epoch) << 32) ^ static_cast<uint64_t>(g));
    }
    std::unique_ptr<SelfPlayPool> pool;
    if (balance_games_) pool = std::make_unique<SelfPlayPool>(sp_, seeds, threads, parallel_games_);
    at::set_num_threads(1);
    auto blas_threads = std::make_unique<BlasThreadsScope>(search_blas_threads_);  // self-play only
    data::RunOnThreads(threads, [&](int t) {
      try {
        AutocastScope autocast(device_, search_dtype_);  // per thread; the weights are cast once
        GoNetEvaluator evaluator = SearchEvaluator(best_, folded);
        if (pool) {
          pool->Play(evaluator);
          return;
        }
        std::vector<int> mine;
        for (int g = t; g < games_; g += threads) mine.push_back(g);
        for (size_t first = 0; first < mine.size(); first += static_cast<size_t>(parallel_games_)) {
          const size_t last = std::min(mine.size(), first + static_cast<size_t>(parallel_games_));
          std::vector<uint64_t> group;
          for (size_t k = first; k < last; ++k) group.push_back(seeds[static_cast<size_t>(mine[k])]);
          std::vector<SelfPlayGame> games = PlaySelfPlayGames(evaluator, sp_, group);
          for (size_t k = first; k < last; ++k) played[static_cast<size_t>(mine[k])] = std::move(games[k - first]);
        }
      } catch (...) {
        errors[static_cast<size_t>(t)] = std::current_exception();
      }
    });
    blas_threads.reset();
    for (auto& e : errors) {
      if (e) std::rethrow_exception(e);
    }
    at::set_num_threads(net_threads_);
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
    last_selfplay_ = Json{{"selfplay_mean_moves", static_cast<double>(moves) / games_},
                          {"selfplay_pass_fraction", moves > 0 ? static_cast<double>(passes) / moves : 0.0},
                          {"selfplay_black_wins", static_cast<double>(black_wins) / games_},
                          {"selfplay_resigned", static_cast<double>(resigned) / games_},
                          {"selfplay_seconds", Seconds(selfplay_start)}};
    generations_.push_back(std::move(generation));
    while (static_cast<int>(generations_.size()) > window_generations_) generations_.pop_front();
    std::deque<GoSample> window;
    for (const auto& gen : generations_) window.insert(window.end(), gen.begin(), gen.end());
    // 2. Training on the window.
    const auto train_start = std::chrono::steady_clock::now();
    for (int64_t step = 0; step < train_steps_; ++step) {
      TrainStats st = TrainOnWindow(net_, *opt_, window, 1, batch_, go::Position::kHistory, rng_, device_);
      if (!control.OnStep(batch_, st.policy_loss + st.value_loss)) return;
    }
    last_selfplay_["train_seconds"] = Seconds(train_start);
    // 3. Gating (optional): the trained network becomes the self-play and evaluated network only
    // if it wins gating_win_rate of gating_games against the current best, colours alternating.
    if (gating_games_ <= 0) {
      best_ = net_;
      return;
    }
    const double rate = GatingWinRate(epoch);
    last_gating_ = Json{{"gating_win_rate", rate}, {"gating_accepted", rate >= gating_win_rate_}};
    if (rate >= gating_win_rate_) best_ = Snapshot(net_);
  }

  // The self-play games of the generation just trained (0 when it was stopped before them).
  train::LoggedEvents LoggedEpochFacts(int /*epoch*/) const override {
    return {{core::keys::kActualSelfplayGamesPerGeneration, games_played_}};
  }

  train::EvalResult Evaluate(int epoch) override {
    train::EvalResult r;
    double pass_fraction = 0;
    r.value = MovePredictionAccuracy(best_, eval_positions_, go::Position::kHistory, device_, 256, &pass_fraction);
    r.samples = static_cast<int64_t>(eval_positions_.size());
    int64_t samples = 0;
    for (const auto& g : generations_) samples += static_cast<int64_t>(g.size());
    r.extra = last_selfplay_;
    r.extra["window_samples"] = samples;
    r.extra["predicted_pass_fraction"] = pass_fraction;
    for (const auto& [k, v] : last_gating_.items()) r.extra[k] = v;
    if (gnugo_games_ > 0 && epoch % gnugo_every_ == 0) {
      auto [wins, played] = GnuGoWins(epoch);
      r.extra["gnugo_win_rate"] = static_cast<double>(wins) / played;
      r.extra["gnugo_games"] = played;
      r.extra["gnugo_level"] = gnugo_level_;
    }
    return r;
  }

 private:
  // The search's network: `net` with its BatchNorms folded when fold_batchnorm is on (null
  // otherwise); built once per generation or match and shared read-only by the threads.
  std::shared_ptr<const models::FoldedGoNet> Folded(const models::GoNet& net) const {
    return fold_batchnorm_ ? std::make_shared<const models::FoldedGoNet>(*net, search_dtype_, channels_last_) : nullptr;
  }
  GoNetEvaluator SearchEvaluator(const models::GoNet& net, std::shared_ptr<const models::FoldedGoNet> folded) const {
    if (folded) return GoNetEvaluator(std::move(folded), device_, go::Position::kHistory, channels_last_);
    return GoNetEvaluator(net, device_, go::Position::kHistory, channels_last_);
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
    if (channels_last_) ToChannelsLast(*copy);
    return copy;
  }

  // Our evaluation player: MCTS with `net` (no noise, the most visited move), the self-play's
  // playout mixing, `eval_readouts` readouts. Seeded for the playouts.
  struct Player {
    Player(GoNetEvaluator net, const SelfPlayOptions& sp, int readouts, double playout_weight, int size, uint64_t seed,
           int temperature_moves)
        : evaluator(std::move(net)),
          mixed(evaluator, static_cast<float>(playout_weight), seed, 2 * size * size, sp.incremental_playouts),
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
    AutocastScope autocast(device_, search_dtype_);
    best_->eval();
    const std::shared_ptr<const models::FoldedGoNet> folded = Folded(best_);
    at::set_num_threads(1);
    BlasThreadsScope blas_threads(search_blas_threads_);
    int wins = 0;
    for (int g = 0; g < gnugo_games_; ++g) {
      const uint64_t seed = core::SeedFor(ctx_.seed, "gnugo") ^ (static_cast<uint64_t>(epoch) << 32) ^ static_cast<uint64_t>(g);
      go::GtpClient gnugo({gnugo_binary_, "--mode", "gtp", "--level", std::to_string(gnugo_level_), "--chinese-rules",
                           "--seed", std::to_string(seed % 1000000007)},
                          60);
      Player ours(SearchEvaluator(best_, folded), sp_, eval_readouts_, playout_weight_, size_, seed, 0);
      const go::Color our_color = g % 2 == 0 ? go::kBlack : go::kWhite;
      go::MatchOptions mo;
      mo.size = size_;
      mo.komi = komi_;
      const go::Game game = go::PlayMatch(gnugo, std::ref(ours), our_color, mo);
      wins += game.Winner() == our_color;
    }
    at::set_num_threads(net_threads_);
    return {wins, gnugo_games_};
  }

  // Fraction of gating_games the trained network wins against the best one, colours
  // alternating; the first temperature_moves moves are sampled so that the games differ.
  double GatingWinRate(int epoch) {
    torch::NoGradGuard no_grad;
    AutocastScope autocast(device_, search_dtype_);
    net_->eval();
    best_->eval();
    const std::shared_ptr<const models::FoldedGoNet> folded_candidate = Folded(net_), folded_best = Folded(best_);
    at::set_num_threads(1);
    BlasThreadsScope blas_threads(search_blas_threads_);
    int wins = 0;
    for (int g = 0; g < gating_games_; ++g) {
      const uint64_t seed = core::SeedFor(ctx_.seed, "gating") ^ (static_cast<uint64_t>(epoch) << 32) ^ static_cast<uint64_t>(g);
      Player candidate(SearchEvaluator(net_, folded_candidate), sp_, eval_readouts_, playout_weight_, size_, seed,
                       sp_.mcts.temperature_moves);
      Player best(SearchEvaluator(best_, folded_best), sp_, eval_readouts_, playout_weight_, size_, seed + 1,
                  sp_.mcts.temperature_moves);
      const go::Color candidate_color = g % 2 == 0 ? go::kBlack : go::kWhite;
      go::Game game(size_, komi_);
      const int limit = sp_.max_moves > 0 ? sp_.max_moves : 2 * size_ * size_;
      while (!game.over() && static_cast<int>(game.moves().size()) < limit) {
        const go::Color c = game.to_play();
        const int move = c == candidate_color ? candidate(game, c) : best(game, c);
        TB_CHECK(game.Play(go::Move{c, move}), "gating: the search chose an illegal move");
      }
      wins += game.Winner() == candidate_color;
    }
    net_->train();
    at::set_num_threads(net_threads_);
    return static_cast<double>(wins) / gating_games_;
  }

  std::string scale_;
  train::RunContext ctx_;
  torch::Device device_{torch::kCPU};
  int size_ = 9;
  double komi_ = 7.5, playout_weight_ = 0, lr_ = 0, momentum_ = 0, weight_decay_ = 0;
  int64_t games_played_ = 0;  // self-play games of the last generation
  models::GoNetOptions net_options_;
  models::GoNet net_{nullptr};   // trained every generation
  models::GoNet best_{nullptr};  // plays self-play and is evaluated (net_ itself without gating)
  int eval_readouts_ = 0, gnugo_games_ = 0, gnugo_every_ = 1, gnugo_level_ = 1, gating_games_ = 0;
  double gating_win_rate_ = 0.55;
  std::string gnugo_binary_;
  Json last_gating_ = Json::object();
  std::optional<torch::optim::SGD> opt_;
  int games_ = 0, window_generations_ = 1, parallel_games_ = 1;
  bool balance_games_ = false;
  int search_blas_threads_ = 0;
  bool channels_last_ = false, fold_batchnorm_ = false;
  int net_threads_ = 1;  // intra-op threads of training and the move-prediction evaluation
  torch::Dtype search_dtype_ = torch::kFloat32;  // the network's compute dtype in searches
  int64_t train_steps_ = 0, batch_ = 0;
  SelfPlayOptions sp_;
  std::mt19937_64 rng_;
  std::deque<std::vector<GoSample>> generations_;
  std::vector<go::LabelledPosition> eval_positions_;
  Json last_selfplay_ = Json::object();  // statistics of the last generation's self-play games
};

}  // namespace

std::unique_ptr<train::Workload> MakeMiniGo(const std::string& scale) {
  if (scale != "mini" && scale != "full") throw core::Error("minigo has no scale \"" + scale + "\"");
  return std::make_unique<MiniGo>(scale);
}

}  // namespace trainbench::workloads

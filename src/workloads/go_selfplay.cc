#include "workloads/go_selfplay.h"

#include <memory>

#include "core/error.h"
#include "go/features.h"
#include "go/rollout.h"
#include "workloads/go_evaluator.h"

namespace trainbench::workloads {

SelfPlayGame PlaySelfPlayGame(go::Evaluator& evaluator, const SelfPlayOptions& o, uint64_t seed) {
  return std::move(PlaySelfPlayGames(evaluator, o, {seed}).front());
}

namespace {

// One game of PlaySelfPlayGames: its search, the position it stands at, and its playouts.
struct GameInPlay {
  GameInPlay(const SelfPlayOptions& o, uint64_t seed)
      : out{go::Game(o.size, o.komi), {}},
        mcts([&] {
          go::MctsOptions mo = o.mcts;
          mo.seed = seed;
          return mo;
        }()),
        pos(go::Position::Of(out.game)),
        playout_rng(PlayoutSeed(seed)) {}
  SelfPlayGame out;
  go::Mcts mcts;
  go::Position pos;
  std::vector<go::Color> movers;
  std::mt19937_64 playout_rng;
  bool playing = false;
  size_t first = 0;  // where this game's positions start in the shared batch
};

}  // namespace

std::vector<SelfPlayGame> PlaySelfPlayGames(go::Evaluator& evaluator, const SelfPlayOptions& o,
                                            const std::vector<uint64_t>& seeds) {
  const int limit = o.max_moves > 0 ? o.max_moves : 2 * o.size * o.size;
  const int playout_moves = 2 * o.size * o.size;
  const int planes = go::FeaturePlanes(o.history);
  std::vector<std::unique_ptr<GameInPlay>> games;
  // Starts the game's next search, or ends the game (the value targets mix in the outcome).
  auto next_move = [&](GameInPlay& g) {
    if (!g.out.game.over() && static_cast<int>(g.out.game.moves().size()) < limit) {
      g.mcts.Begin(g.pos);
      g.playing = true;
      return;
    }
    g.playing = false;
    const go::Color winner = g.out.game.Winner();
    for (size_t k = 0; k < g.out.samples.size(); ++k) {
      const float z = winner == go::kEmpty ? 0.0f : (winner == g.movers[k] ? 1.0f : -1.0f);
      g.out.samples[k].value = (1 - o.q_weight) * z + o.q_weight * g.out.samples[k].value;
    }
  };
  for (uint64_t seed : seeds) {
    games.push_back(std::make_unique<GameInPlay>(o, seed));
    next_move(*games.back());
  }
  std::vector<const go::Position*> batch;
  std::vector<go::Evaluation> evals;
  for (;;) {
    batch.clear();
    for (auto& g : games) {
      if (!g->playing) continue;
      g->first = batch.size();
      const auto& pending = g->mcts.Pending();
      batch.insert(batch.end(), pending.begin(), pending.end());
    }
    if (batch.empty()) break;
    evaluator.Evaluate(batch, &evals);
    TB_CHECK(evals.size() == batch.size(), "Evaluator: wrong number of evaluations");
    for (auto& gp : games) {
      GameInPlay& g = *gp;
      if (!g.playing) continue;
      const size_t count = g.mcts.Pending().size();
      if (o.playout_weight > 0) {
        for (size_t k = g.first; k < g.first + count; ++k) {
          go::MixPlayout(*batch[k], o.playout_weight, g.playout_rng, playout_moves, o.incremental_playouts, &evals[k]);
        }
      }
      g.mcts.Provide(evals.data() + g.first, count);
      if (!g.mcts.Pending().empty()) continue;
      const go::SearchResult r = g.mcts.Finish();
      GoSample s;
      s.planes.resize(static_cast<size_t>(planes) * o.size * o.size);
      go::WriteFeatures(g.pos, o.history, s.planes.data());
      s.policy = r.visits;
      s.value = r.root_value;  // q for now; mixed with the outcome when the game ends
      g.out.samples.push_back(std::move(s));
      g.movers.push_back(g.pos.to_play);
      TB_CHECK(g.out.game.Play(r.move), "self-play: the search chose an illegal move");
      g.pos.Play(r.move);
      next_move(g);
    }
  }
  std::vector<SelfPlayGame> out;
  out.reserve(games.size());
  for (auto& g : games) out.push_back(std::move(g->out));
  return out;
}

TrainStats TrainOnWindow(models::GoNet& net, torch::optim::Optimizer& opt, const std::deque<GoSample>& window,
                         int64_t steps, int64_t batch, int history, std::mt19937_64& rng, const torch::Device& device) {
  TrainStats st;
  if (window.empty() || steps <= 0) return st;
  const int n = static_cast<int>(net->options().board_size());
  const int planes = go::FeaturePlanes(history);
  const int64_t moves = static_cast<int64_t>(n) * n + 1;
  net->train();
  torch::Tensor x = torch::empty({batch, planes, n, n});
  torch::Tensor pi = torch::empty({batch, moves});
  torch::Tensor z = torch::empty({batch});
  std::uniform_int_distribution<size_t> pick(0, window.size() - 1);
  std::uniform_int_distribution<int> sym(0, 7);
  for (int64_t step = 0; step < steps; ++step) {
    float* xp = x.data_ptr<float>();
    float* pp = pi.data_ptr<float>();
    float* zp = z.data_ptr<float>();
    for (int64_t b = 0; b < batch; ++b) {
      const GoSample& s = window[pick(rng)];
      const int t = sym(rng);
      go::ApplySymmetry(s.planes.data(), planes, n, t, xp + b * planes * n * n);
      for (int64_t m = 0; m < moves; ++m) pp[b * moves + go::SymmetricMoveIndex(static_cast<int>(m), n, t)] = s.policy[m];
      zp[b] = s.value;
    }
    auto [logits, value] = net->forward(x.to(device));
    torch::Tensor policy_loss = -(pi.to(device) * torch::log_softmax(logits, 1)).sum(1).mean();
    torch::Tensor value_loss = torch::mse_loss(value, z.to(device));
    opt.zero_grad();
    (policy_loss + value_loss).backward();
    opt.step();
    st.policy_loss += policy_loss.item<double>();
    st.value_loss += value_loss.item<double>();
    ++st.steps;
  }
  st.policy_loss /= st.steps;
  st.value_loss /= st.steps;
  return st;
}

double MovePredictionAccuracy(models::GoNet& net, const std::vector<go::LabelledPosition>& positions, int history,
                              const torch::Device& device, int64_t batch, double* pass_fraction) {
  if (pass_fraction != nullptr) *pass_fraction = 0.0;
  if (positions.empty()) return 0.0;
  torch::NoGradGuard no_grad;
  const bool was_training = net->is_training();
  net->eval();
  int64_t correct = 0, passes = 0;
  std::vector<go::Position> ps;
  for (size_t first = 0; first < positions.size(); first += static_cast<size_t>(batch)) {
    const size_t last = std::min(positions.size(), first + static_cast<size_t>(batch));
    ps.clear();
    for (size_t k = first; k < last; ++k) {
      ps.push_back(go::Position::Of(positions[k].game));
      ps.back().to_play = positions[k].next.color;
    }
    std::vector<const go::Position*> ptrs;
    for (const auto& p : ps) ptrs.push_back(&p);
    auto [logits, value] = net->forward(GoFeatures(ptrs, history, device));
    torch::Tensor l = logits.to(torch::kCPU).contiguous();
    const int n = ps[0].board.size();
    const float* lp = l.data_ptr<float>();
    for (size_t k = 0; k < ps.size(); ++k) {
      const float* row = lp + k * (n * n + 1);
      int best = n * n;  // pass is always legal
      for (int p : ps[k].board.LegalMoves(ps[k].to_play)) {
        int idx = go::Position::MoveIndex(p, n);
        if (row[idx] > row[best]) best = idx;
      }
      correct += best == go::Position::MoveIndex(positions[first + k].next.point, n);
      passes += best == n * n;
    }
  }
  if (was_training) net->train();
  if (pass_fraction != nullptr) *pass_fraction = static_cast<double>(passes) / static_cast<double>(positions.size());
  return static_cast<double>(correct) / static_cast<double>(positions.size());
}

}  // namespace trainbench::workloads

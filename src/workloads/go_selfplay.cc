#include "workloads/go_selfplay.h"

#include <condition_variable>
#include <memory>
#include <mutex>

#include "core/error.h"
#include "go/features.h"
#include "go/rollout.h"
#include "workloads/go_evaluator.h"

namespace trainbench::workloads {

SelfPlayGame PlaySelfPlayGame(go::Evaluator& evaluator, const SelfPlayOptions& o, uint64_t seed) {
  return std::move(PlaySelfPlayGames(evaluator, o, {seed}).front());
}

namespace {

// One game of PlaySelfPlayGames or SelfPlayPool: its search, the position it stands at, and its
// playouts.
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
  // SelfPlayPool only: a thread is working on the game; the thread that last did.
  bool claimed = false;
  int owner = -1;
};

// Starts the game's next search, or ends the game (the value targets mix in the outcome).
void NextMove(GameInPlay& g, const SelfPlayOptions& o) {
  const int limit = o.max_moves > 0 ? o.max_moves : 2 * o.size * o.size;
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
}

// One network call for `games` (all playing): the positions their searches wait for, evaluated
// together; each search gets its evaluations (mixed with playouts), and a search that is done
// plays its move and starts the next (or ends its game).
class Stepper {
 public:
  explicit Stepper(const SelfPlayOptions& o) : o_(o) {}

  void Step(const std::vector<GameInPlay*>& games, go::Evaluator& evaluator) {
    const int playout_moves = 2 * o_.size * o_.size;
    batch_.clear();
    for (GameInPlay* g : games) {
      g->first = batch_.size();
      const auto& pending = g->mcts.Pending();
      batch_.insert(batch_.end(), pending.begin(), pending.end());
    }
    evaluator.Evaluate(batch_, &evals_);
    TB_CHECK(evals_.size() == batch_.size(), "Evaluator: wrong number of evaluations");
    for (GameInPlay* gp : games) {
      GameInPlay& g = *gp;
      const size_t count = g.mcts.Pending().size();
      if (o_.playout_weight > 0) {
        for (size_t k = g.first; k < g.first + count; ++k) {
          go::MixPlayout(*batch_[k], o_.playout_weight, g.playout_rng, playout_moves,
                         o_.incremental_playouts, &evals_[k]);
        }
      }
      g.mcts.Provide(evals_.data() + g.first, count);
      if (!g.mcts.Pending().empty()) continue;
      const go::SearchResult r = g.mcts.Finish();
      GoSample s;
      s.planes.resize(static_cast<size_t>(go::FeaturePlanes(o_.history)) * o_.size * o_.size);
      go::WriteFeatures(g.pos, o_.history, s.planes.data());
      s.policy = r.visits;
      s.value = r.root_value;  // q for now; mixed with the outcome when the game ends
      g.out.samples.push_back(std::move(s));
      g.movers.push_back(g.pos.to_play);
      TB_CHECK(g.out.game.Play(r.move), "self-play: the search chose an illegal move");
      g.pos.Play(r.move);
      NextMove(g, o_);
    }
  }

 private:
  const SelfPlayOptions& o_;
  std::vector<const go::Position*> batch_;
  std::vector<go::Evaluation> evals_;
};

std::vector<std::unique_ptr<GameInPlay>> StartGames(const SelfPlayOptions& o,
                                                    const std::vector<uint64_t>& seeds) {
  std::vector<std::unique_ptr<GameInPlay>> games;
  for (uint64_t seed : seeds) {
    games.push_back(std::make_unique<GameInPlay>(o, seed));
    NextMove(*games.back(), o);
  }
  return games;
}

std::vector<SelfPlayGame> Results(std::vector<std::unique_ptr<GameInPlay>>& games) {
  std::vector<SelfPlayGame> out;
  out.reserve(games.size());
  for (auto& g : games) out.push_back(std::move(g->out));
  return out;
}

}  // namespace

std::vector<SelfPlayGame> PlaySelfPlayGames(go::Evaluator& evaluator, const SelfPlayOptions& o,
                                            const std::vector<uint64_t>& seeds) {
  std::vector<std::unique_ptr<GameInPlay>> games = StartGames(o, seeds);
  Stepper stepper(o);
  std::vector<GameInPlay*> playing;
  for (;;) {
    playing.clear();
    for (auto& g : games) {
      if (g->playing) playing.push_back(g.get());
    }
    if (playing.empty()) break;
    stepper.Step(playing, evaluator);
  }
  return Results(games);
}

struct SelfPlayPool::State {
  State(const SelfPlayOptions& options, const std::vector<uint64_t>& seeds, int threads,
        int per_call)
      : o(options), games(StartGames(o, seeds)), threads(threads), per_call(per_call) {}
  const SelfPlayOptions o;
  std::vector<std::unique_ptr<GameInPlay>> games;
  const int threads, per_call;
  std::mutex mu;
  std::condition_variable released;
  int next_id = 0;
  bool failed = false;
};

SelfPlayPool::SelfPlayPool(const SelfPlayOptions& o, const std::vector<uint64_t>& seeds,
                           int threads, int per_call)
    : s_(std::make_unique<State>(o, seeds, std::max(1, threads), std::max(1, per_call))) {}
SelfPlayPool::~SelfPlayPool() = default;

void SelfPlayPool::Play(go::Evaluator& evaluator) {
  State& s = *s_;
  Stepper stepper(s.o);
  std::vector<GameInPlay*> mine;
  std::unique_lock<std::mutex> lock(s.mu);
  const int me = s.next_id++;
  auto release = [&] {
    for (GameInPlay* g : mine) g->claimed = false;
    if (!mine.empty()) s.released.notify_all();
    mine.clear();
  };
  for (;;) {
    release();
    if (s.failed) return;
    // `playing` is read only for unclaimed games: a claimed game's thread writes it outside the
    // lock, so a claimed game counts as unfinished until it is released.
    int unfinished = 0;
    for (auto& g : s.games) unfinished += g->claimed || g->playing;
    if (unfinished == 0) return;
    // This thread's share: the unfinished games over the threads, rounded up, at most per_call;
    // the games it worked on last time first, so a game stays on one thread while it can.
    const int share = std::min(s.per_call, (unfinished + s.threads - 1) / s.threads);
    for (int pass = 0; pass < 2 && static_cast<int>(mine.size()) < share; ++pass) {
      for (auto& g : s.games) {
        if (static_cast<int>(mine.size()) >= share) break;
        if (g->claimed || !g->playing || (pass == 0 && g->owner != me)) continue;
        g->claimed = true;
        g->owner = me;
        mine.push_back(g.get());
      }
    }
    if (mine.empty()) {  // every unfinished game is another thread's for now
      s.released.wait(lock);
      continue;
    }
    lock.unlock();
    try {
      stepper.Step(mine, evaluator);
    } catch (...) {
      lock.lock();
      s.failed = true;
      release();
      s.released.notify_all();
      throw;
    }
    lock.lock();
  }
}

std::vector<SelfPlayGame> SelfPlayPool::Take() {
  std::lock_guard<std::mutex> lock(s_->mu);
  TB_CHECK(!s_->failed, "SelfPlayPool::Take after a failed Play");
  for (auto& g : s_->games) TB_CHECK(!g->playing, "SelfPlayPool::Take before every game is over");
  return Results(s_->games);
}

TrainStats TrainOnWindow(models::GoNet& net, torch::optim::Optimizer& opt,
                         const std::deque<GoSample>& window, int64_t steps, int64_t batch,
                         int history, std::mt19937_64& rng, const torch::Device& device) {
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
      for (int64_t m = 0; m < moves; ++m)
        pp[b * moves + go::SymmetricMoveIndex(static_cast<int>(m), n, t)] = s.policy[m];
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

double MovePredictionAccuracy(models::GoNet& net,
                              const std::vector<go::LabelledPosition>& positions, int history,
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
  if (pass_fraction != nullptr)
    *pass_fraction = static_cast<double>(passes) / static_cast<double>(positions.size());
  return static_cast<double>(correct) / static_cast<double>(positions.size());
}

}  // namespace trainbench::workloads

#include "workloads/go_selfplay.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <thread>

#include "go/features.h"
#include "go/rollout.h"
#include "workloads/go_evaluator.h"

namespace trainbench::workloads {
namespace {

models::GoNet TinyNet(int size) {
  return models::GoNet(models::GoNetOptions().board_size(size).filters(8).blocks(1).value_fc(8));
}

TEST(SelfPlay, GameSamplesCarryPolicyAndOutcome) {
  torch::manual_seed(1);
  models::GoNet net = TinyNet(5);
  GoNetEvaluator e(net, torch::kCPU);
  SelfPlayOptions o;
  o.size = 5;
  o.mcts.readouts = 8;
  o.mcts.root_noise = true;
  o.mcts.dirichlet_alpha = 0.5f;
  o.mcts.temperature_moves = 4;
  SelfPlayGame g = PlaySelfPlayGame(e, o, 7);
  ASSERT_EQ(g.samples.size(), g.game.moves().size());
  ASSERT_GT(g.samples.size(), 2u);
  const go::Color winner = g.game.Winner();
  for (size_t k = 0; k < g.samples.size(); ++k) {
    const GoSample& s = g.samples[k];
    EXPECT_EQ(s.planes.size(), 17u * 25u);
    double sum = 0;
    for (float v : s.policy) sum += v;
    EXPECT_NEAR(sum, 1.0, 1e-5);
    const go::Color mover = g.game.moves()[k].color;
    EXPECT_EQ(s.value, winner == go::kEmpty ? 0.0f : (winner == mover ? 1.0f : -1.0f));
  }
  // Same seed, same game.
  torch::manual_seed(1);
  models::GoNet net2 = TinyNet(5);
  GoNetEvaluator e2(net2, torch::kCPU);
  EXPECT_EQ(PlaySelfPlayGame(e2, o, 7).game.moves(), g.game.moves());
  // With q_weight 0.5 the same game's targets are halfway between the outcome and the search's
  // root value: within 0.5 of half the outcome, and away from the outcome itself (it would be
  // the outcome if q_weight were ignored).
  o.q_weight = 0.5f;
  torch::manual_seed(1);
  models::GoNet net3 = TinyNet(5);
  GoNetEvaluator e3(net3, torch::kCPU);
  SelfPlayGame h = PlaySelfPlayGame(e3, o, 7);
  ASSERT_EQ(h.game.moves(), g.game.moves());
  size_t moved = 0;
  for (size_t k = 0; k < h.samples.size(); ++k) {
    EXPECT_LE(std::abs(h.samples[k].value - 0.5f * g.samples[k].value), 0.5f + 1e-6f) << k;
    moved += std::abs(h.samples[k].value - g.samples[k].value) > 0.05f;
  }
  EXPECT_GT(moved, h.samples.size() / 2);
}

// A stand-in network whose evaluation of a position does not depend on the rest of the batch:
// priors from the position's hash, the value from its area score. Records the batch sizes.
class PositionEvaluator : public go::Evaluator {
 public:
  void Evaluate(const std::vector<const go::Position*>& ps,
                std::vector<go::Evaluation>* out) override {
    out->clear();
    batch_sizes.push_back(ps.size());
    for (const go::Position* p : ps) {
      const int n = p->board.size();
      go::Evaluation e;
      const uint64_t h = p->board.hash() ^ (p->to_play == go::kBlack ? 0x9e3779b97f4a7c15ull : 0);
      for (int k = 0; k <= n * n; ++k)
        e.priors.push_back(1.0f + static_cast<float>((h >> (k % 60)) & 7));
      const double score = p->board.Score(p->komi);
      e.value = static_cast<float>(std::tanh((p->to_play == go::kBlack ? score : -score) / 5.0));
      out->push_back(std::move(e));
    }
  }
  std::vector<size_t> batch_sizes;
};

void ExpectSameGame(const SelfPlayGame& a, const SelfPlayGame& b, const std::string& what) {
  ASSERT_EQ(a.game.moves(), b.game.moves()) << what;
  ASSERT_EQ(a.samples.size(), b.samples.size()) << what;
  for (size_t k = 0; k < a.samples.size(); ++k) {
    EXPECT_EQ(a.samples[k].planes, b.samples[k].planes) << what << " move " << k;
    EXPECT_EQ(a.samples[k].policy, b.samples[k].policy) << what << " move " << k;
    EXPECT_EQ(a.samples[k].value, b.samples[k].value) << what << " move " << k;
  }
}

// Games in lockstep (their searches' positions evaluated together) are the games played one by
// one, playouts included; the evaluator sees larger batches and fewer calls.
// Short 5x5 self-play games with noise and an opening temperature, 4 leaves per network call.
SelfPlayOptions ShortGames(int readouts) {
  SelfPlayOptions o;
  o.size = 5;
  o.max_moves = 30;
  o.mcts.readouts = readouts;
  o.mcts.batch = 4;
  o.mcts.root_noise = true;
  o.mcts.temperature_moves = 4;
  return o;
}

TEST(SelfPlay, GamesInLockstepAreTheGamesPlayedOneByOne) {
  SelfPlayOptions o = ShortGames(24);
  o.mcts.dirichlet_alpha = 0.5f;
  o.q_weight = 0.5f;
  o.playout_weight = 0.5f;
  const std::vector<uint64_t> seeds = {3, 4, 5};
  PositionEvaluator alone;
  std::vector<SelfPlayGame> one_by_one;
  for (uint64_t seed : seeds) one_by_one.push_back(PlaySelfPlayGame(alone, o, seed));
  PositionEvaluator shared;
  std::vector<SelfPlayGame> together = PlaySelfPlayGames(shared, o, seeds);
  ASSERT_EQ(together.size(), seeds.size());
  for (size_t k = 0; k < seeds.size(); ++k)
    ExpectSameGame(together[k], one_by_one[k], "seed " + std::to_string(seeds[k]));
  EXPECT_NE(one_by_one[0].game.moves(), one_by_one[1].game.moves())
      << "the seeds should give different games";
  EXPECT_LE(*std::max_element(alone.batch_sizes.begin(), alone.batch_sizes.end()), 4u);
  EXPECT_EQ(*std::max_element(shared.batch_sizes.begin(), shared.batch_sizes.end()), 12u);
  EXPECT_LT(shared.batch_sizes.size(), alone.batch_sizes.size());
}

// Games shared by two threads (SelfPlayPool) are the games played one by one, playouts included:
// every game is played to its end exactly once, whichever thread takes its steps, and no network
// call carries more than per_call games' positions.
TEST(SelfPlay, PoolGamesOnTwoThreadsAreTheGamesPlayedOneByOne) {
  SelfPlayOptions o = ShortGames(24);
  o.mcts.dirichlet_alpha = 0.5f;
  o.q_weight = 0.5f;
  o.playout_weight = 0.5f;
  o.incremental_playouts = true;
  const std::vector<uint64_t> seeds = {3, 4, 5, 6, 7};
  PositionEvaluator alone;
  std::vector<SelfPlayGame> one_by_one;
  for (uint64_t seed : seeds) one_by_one.push_back(PlaySelfPlayGame(alone, o, seed));
  SelfPlayPool pool(o, seeds, 2, 2);
  PositionEvaluator a, b;
  std::thread other([&] { pool.Play(b); });
  pool.Play(a);
  other.join();
  std::vector<SelfPlayGame> shared = pool.Take();
  ASSERT_EQ(shared.size(), seeds.size());
  for (size_t k = 0; k < seeds.size(); ++k)
    ExpectSameGame(shared[k], one_by_one[k], "seed " + std::to_string(seeds[k]));
  for (const PositionEvaluator* e : {&a, &b}) {
    for (size_t n : e->batch_sizes) EXPECT_LE(n, 2u * 4u);
  }
  EXPECT_EQ(*std::max_element(a.batch_sizes.begin(), a.batch_sizes.end()), 8u)
      << "two games per call at the start";
  EXPECT_LT(a.batch_sizes.size() + b.batch_sizes.size(), alone.batch_sizes.size());
}

// One thread alone plays every game of a pool, per_call of them at a time.
TEST(SelfPlay, PoolOnOneThreadPlaysEveryGame) {
  SelfPlayOptions o = ShortGames(16);
  const std::vector<uint64_t> seeds = {8, 9, 10};
  PositionEvaluator alone;
  std::vector<SelfPlayGame> one_by_one;
  for (uint64_t seed : seeds) one_by_one.push_back(PlaySelfPlayGame(alone, o, seed));
  SelfPlayPool pool(o, seeds, 1, 2);
  PositionEvaluator e;
  pool.Play(e);
  std::vector<SelfPlayGame> games = pool.Take();
  ASSERT_EQ(games.size(), seeds.size());
  for (size_t k = 0; k < seeds.size(); ++k)
    ExpectSameGame(games[k], one_by_one[k], "seed " + std::to_string(seeds[k]));
  EXPECT_EQ(*std::max_element(e.batch_sizes.begin(), e.batch_sizes.end()), 8u);
}

// An evaluator that fails on one thread ends the pool's work on every thread: the failing
// thread's Play rethrows its error, the other's returns, and Take refuses the unfinished games
// (an internal check: taking them is the caller's error).
TEST(SelfPlay, PoolFailureOnOneThreadEndsEveryThread) {
  class Failing : public PositionEvaluator {
   public:
    void Evaluate(const std::vector<const go::Position*>& ps,
                  std::vector<go::Evaluation>* out) override {
      if (++calls_ == 5) throw std::runtime_error("network failed");
      PositionEvaluator::Evaluate(ps, out);
    }

   private:
    int calls_ = 0;
  };
  SelfPlayOptions o = ShortGames(24);
  SelfPlayPool pool(o, {1, 2, 3, 4}, 2, 2);
  PositionEvaluator fine;
  Failing failing;
  std::thread other([&] { pool.Play(fine); });
  EXPECT_THROW(pool.Play(failing), std::runtime_error);
  other.join();  // returns instead of waiting for games that will not be played
  EXPECT_DEATH(pool.Take(), "after a failed Play");
}

// playout_weight in the options is what the workload used to do by wrapping the evaluator in a
// PlayoutMixEvaluator seeded with PlayoutSeed(seed): the same games.
TEST(SelfPlay, PlayoutWeightIsThePlayoutMixEvaluator) {
  SelfPlayOptions o = ShortGames(16);
  PositionEvaluator net;
  go::PlayoutMixEvaluator mixed(net, 0.5f, PlayoutSeed(11), 2 * 5 * 5);
  const SelfPlayGame wrapped = PlaySelfPlayGame(mixed, o, 11);
  o.playout_weight = 0.5f;
  PositionEvaluator net2;
  ExpectSameGame(PlaySelfPlayGame(net2, o, 11), wrapped, "seed 11");
  o.incremental_playouts = true;  // the same playouts, by the incremental list of empty points
  PositionEvaluator net4;
  ExpectSameGame(PlaySelfPlayGame(net4, o, 11), wrapped, "seed 11, incremental playouts");
  o.playout_weight = 0.0f;
  PositionEvaluator net3;
  EXPECT_NE(PlaySelfPlayGame(net3, o, 11).game.moves(), wrapped.game.moves())
      << "the playouts should change the game";
}

TEST(SelfPlay, TrainingOnSelfPlayLowersBothLosses) {
  torch::manual_seed(2);
  models::GoNet net = TinyNet(5);
  GoNetEvaluator e(net, torch::kCPU);
  SelfPlayOptions o;
  o.size = 5;
  o.mcts.readouts = 16;
  std::deque<GoSample> window;
  for (uint64_t seed = 1; seed <= 2; ++seed) {
    for (auto& s : PlaySelfPlayGame(e, o, seed).samples) window.push_back(s);
  }
  torch::optim::SGD opt(net->parameters(), torch::optim::SGDOptions(0.05).momentum(0.9));
  std::mt19937_64 rng(3);
  TrainStats first = TrainOnWindow(net, opt, window, 5, 32, 8, rng, torch::kCPU);
  TrainOnWindow(net, opt, window, 150, 32, 8, rng, torch::kCPU);
  TrainStats last = TrainOnWindow(net, opt, window, 5, 32, 8, rng, torch::kCPU);
  EXPECT_EQ(last.steps, 5);
  EXPECT_LT(last.policy_loss, first.policy_loss);
  EXPECT_LT(last.value_loss, first.value_loss);
}

// A task the symmetries preserve: one black stone at (r, c), white's move at the point
// reflected through the centre, (n-1-r, n-1-c). Training on it (under random symmetries) must
// make the move prediction nearly perfect; before training it is near chance.
TEST(SelfPlay, MovePredictionLearnsAMirrorTask) {
  const int n = 5;
  std::vector<go::LabelledPosition> positions;
  std::deque<GoSample> window;
  for (int r = 0; r < n; ++r) {
    for (int c = 0; c < n; ++c) {
      if (r == n / 2 && c == n / 2) continue;
      go::Game g(n, 7.5);
      g.Play(go::Move{go::kBlack, go::Board::Index(r, c)});
      go::Move next{go::kWhite, go::Board::Index(n - 1 - r, n - 1 - c)};
      positions.push_back({g, next, "mirror"});
      GoSample s;
      s.planes.resize(17 * n * n);
      go::WriteFeatures(go::Position::Of(g), 8, s.planes.data());
      s.policy.assign(n * n + 1, 0.0f);
      s.policy[go::Position::MoveIndex(next.point, n)] = 1.0f;
      window.push_back(s);
    }
  }
  torch::manual_seed(4);
  models::GoNet net(models::GoNetOptions().board_size(n).filters(16).blocks(1).value_fc(8));
  const double before = MovePredictionAccuracy(net, positions, 8, torch::kCPU, 7);
  torch::optim::SGD opt(net->parameters(), torch::optim::SGDOptions(0.05).momentum(0.9));
  std::mt19937_64 rng(5);
  TrainOnWindow(net, opt, window, 300, 24, 8, rng, torch::kCPU);
  const double after = MovePredictionAccuracy(net, positions, 8, torch::kCPU, 7);
  EXPECT_LT(before, 0.3);
  EXPECT_GT(after, 0.9) << "before " << before;
}

}  // namespace
}  // namespace trainbench::workloads

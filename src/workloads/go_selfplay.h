// The pieces of the MiniGo loop that run on the network: self-play games (MCTS with the
// current network, noise at the root, a temperature for the opening), their training samples
// (input planes, the search's visit distribution as the policy target, the game's outcome as
// the value target), training on a window of samples with random board symmetries, and
// move-prediction accuracy on expert positions (the v0.5 quality metric).
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <deque>
#include <memory>
#include <random>
#include <vector>

#include "go/expert_games.h"
#include "go/mcts.h"
#include "models/go_net.h"

namespace trainbench::workloads {

struct GoSample {
  std::vector<float> planes;  // FeaturePlanes(history) * N * N
  std::vector<float> policy;  // N * N + 1, sums to 1
  float value = 0;            // the value target for the player to move (see SelfPlayOptions)
};

struct SelfPlayOptions {
  int size = 9;
  double komi = 7.5;
  int history = go::Position::kHistory;
  int max_moves = 0;     // 0: 2 * size * size
  go::MctsOptions mcts;  // root_noise and temperature_moves are used as given
  // Value target = (1 - q_weight) * z + q_weight * q, z the game's outcome (+1 win, -1 loss, 0
  // tie) and q the search's mean value at the root, both for the player to move. MiniGo trains
  // on z alone (q_weight 0); averaging in q gives a target per position rather than one per game.
  float q_weight = 0;
  // Leaf value = (1 - playout_weight) * the evaluator's + playout_weight * one random playout of
  // at most 2 * size * size moves (go/rollout.h, PlayoutMixEvaluator), the playouts of a game
  // drawn from PlayoutSeed(its seed). 0: the evaluator alone.
  float playout_weight = 0;
  bool incremental_playouts = false;  // go::PlayoutBoard's `incremental`: the same playouts, faster
};

// The seed of a self-play game's playouts, derived from the game's seed.
inline uint64_t PlayoutSeed(uint64_t game_seed) { return game_seed ^ 0x5bd1e995u; }

struct SelfPlayGame {
  go::Game game;
  std::vector<GoSample> samples;  // one per move
};

// One self-play game with `evaluator`; `seed` drives the search's noise and sampling.
SelfPlayGame PlaySelfPlayGame(go::Evaluator& evaluator, const SelfPlayOptions& o, uint64_t seed);

// seeds.size() self-play games in lockstep on the calling thread (MiniGo's parallel games):
// every game's search runs step by step, and the positions that all of the searches need next
// go to `evaluator` in one call, so a network sees batches of up to games * mcts.batch
// positions instead of mcts.batch. Game k is PlaySelfPlayGame(evaluator, o, seeds[k]) whenever
// the evaluator's result for a position does not depend on the other positions of its batch
// (a network's does only within float rounding).
std::vector<SelfPlayGame> PlaySelfPlayGames(go::Evaluator& evaluator, const SelfPlayOptions& o,
                                            const std::vector<uint64_t>& seeds);

// The self-play games of one generation shared by several threads (the `balance_games` option):
// each of `threads` threads calls Play with its own evaluator. At every network call a thread
// takes the games that wait for an evaluation, up to its share (the unfinished games over the
// threads, rounded up, at most `per_call`), those it had before first; so when one thread's games
// end first it takes over some of the others' instead of waiting for them. Game k is
// PlaySelfPlayGame(evaluator, o, seeds[k]) whenever the evaluators' results do not depend on the
// other positions of a batch; which games share a network call depends on the threads' timing,
// so with a real network the games can differ from run to run within float rounding.
class SelfPlayPool {
 public:
  SelfPlayPool(const SelfPlayOptions& o, const std::vector<uint64_t>& seeds, int threads,
               int per_call);
  ~SelfPlayPool();
  // Returns when every game is over (or another thread's Play failed: it rethrows its error).
  void Play(go::Evaluator& evaluator);
  // The games, in the order of `seeds`, once every Play has returned.
  std::vector<SelfPlayGame> Take();

 private:
  struct State;
  std::unique_ptr<State> s_;
};

struct TrainStats {
  double policy_loss = 0, value_loss = 0;  // means over the steps
  int64_t steps = 0;
};

// `steps` SGD steps on random minibatches of `batch` samples drawn from `window`, each sample
// under a random one of the 8 symmetries. Loss: cross-entropy to the visit distribution +
// mean squared error to the outcome (weight decay, if any, is the optimizer's).
TrainStats TrainOnWindow(models::GoNet& net, torch::optim::Optimizer& opt,
                         const std::deque<GoSample>& window, int64_t steps, int64_t batch,
                         int history, std::mt19937_64& rng, const torch::Device& device);

// Fraction of `positions` where the network's most likely legal move (pass included) is the
// expert's move, evaluated in batches of `batch`. With `pass_fraction`, also the fraction of
// positions where that move is a pass (a policy that has collapsed onto passing shows here).
double MovePredictionAccuracy(models::GoNet& net,
                              const std::vector<go::LabelledPosition>& positions, int history,
                              const torch::Device& device, int64_t batch = 256,
                              double* pass_fraction = nullptr);

}  // namespace trainbench::workloads

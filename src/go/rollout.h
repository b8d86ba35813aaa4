// Random playouts as a second leaf evaluation, as AlphaGo (2016) mixed its value network with
// fast rollouts: V = (1 - w) * v_network + w * z_playout. MiniGo (and the full scale) use the
// network alone (w = 0); the mini scale mixes in light playouts so that a network trained for
// minutes on a CPU still searches with a value that knows captures and territory from the
// first generation (docs/go.md, "Calibration").
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "go/mcts.h"

namespace trainbench::go {

// Plays uniform random legal moves that do not fill the mover's own single-point eyes
// (passing when none is left) from `p` until two passes or `max_moves` moves, and returns the
// final board. Each move tries the empty points in a random order (drawn from `rng` over the
// empty points listed row by row) and plays the first that qualifies.
// `incremental`: the list of empty points is kept up to date move by move (a play removes its
// point, a capture rebuilds the list) instead of being rebuilt by scanning the board before
// every move, and PlayoutValue plays on a board of its thread's earlier playouts, copying only
// the used area of p.board (Board::AssignUsed): the same moves from the same `rng`, less work.
Board PlayoutBoard(const Position& p, std::mt19937_64& rng, int max_moves,
                   bool incremental = false);

// PlayoutBoard scored (Tromp-Taylor, p.komi): +1 if the player to move in `p` wins, -1 if they
// lose, 0 tie.
float PlayoutValue(const Position& p, std::mt19937_64& rng, int max_moves,
                   bool incremental = false);

// Mixes one playout from `p` into `e`'s value: (1 - weight) * value + weight * PlayoutValue.
void MixPlayout(const Position& p, float weight, std::mt19937_64& rng, int max_moves,
                bool incremental, Evaluation* e);

// Wraps `inner`: its priors unchanged, its value mixed with one playout per position.
class PlayoutMixEvaluator : public Evaluator {
 public:
  PlayoutMixEvaluator(Evaluator& inner, float playout_weight, uint64_t seed, int max_moves,
                      bool incremental = false)
      : inner_(inner),
        weight_(playout_weight),
        max_moves_(max_moves),
        incremental_(incremental),
        rng_(seed) {}
  void Evaluate(const std::vector<const Position*>& positions,
                std::vector<Evaluation>* out) override;

 private:
  Evaluator& inner_;
  float weight_;
  int max_moves_;
  bool incremental_;
  std::mt19937_64 rng_;
};

}  // namespace trainbench::go

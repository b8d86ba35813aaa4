// Reinforcement learning (MLPerf `minigo`), the benchmark loop on the harness. One "epoch" is
// one generation:
//   1. self-play: `games_per_generation` games of the current network with itself (MCTS,
//      Dirichlet noise at the root, temperature for the opening moves), played in parallel on
//      the run's threads (one game per thread at a time, one intra-op thread each);
//   2. training: `train_steps` SGD steps (momentum, weight decay) on minibatches drawn from the
//      samples of the last `window_generations` generations, under random board symmetries;
// and evaluation is move-prediction accuracy on the held-out expert positions
// (<data>/test/*.sgf), the v0.5 quality metric. Gating and games against GNU Go are not part of
// the loop yet.
// Work in progress (issue #6): no benchmark definition or rules use it yet.
#pragma once

#include <memory>
#include <string>

#include "train/workload.h"

namespace trainbench::workloads {

std::unique_ptr<train::Workload> MakeMiniGo(const std::string& scale);

}  // namespace trainbench::workloads

// Reinforcement learning (MLPerf `minigo`), the benchmark loop on the harness. One "epoch" is
// one generation:
//   1. self-play: `games_per_generation` games of the best network with itself (MCTS,
//      Dirichlet noise at the root, temperature for the opening moves), played in parallel on
//      the run's threads (one game per thread at a time, one intra-op thread each);
//   2. training: `train_steps` SGD steps (momentum, weight decay) on minibatches drawn from the
//      samples of the last `window_generations` generations, under random board symmetries;
//   3. optional gating: the trained network replaces the best (which plays self-play and is
//      evaluated) only if it wins gating_win_rate of gating_games against it;
// and evaluation is move-prediction accuracy on the expert's board moves in the held-out games
// (mini: <data>/test, full: every .sgf under <data>), the v0.5 quality metric, plus, every
// gnugo_every generations, gnugo_games games against GNU Go over GTP (logged, not a target).
// The benchmark reinforcement_learning (configs/benchmarks/reinforcement_learning.yaml).
#pragma once

#include <memory>
#include <string>

#include "core/benchmark_def.h"
#include "train/workload.h"

namespace trainbench::workloads {

std::unique_ptr<train::Workload> MakeMiniGo(const core::ScaleDef& scale);

}  // namespace trainbench::workloads

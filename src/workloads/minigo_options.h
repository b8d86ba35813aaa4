// The settings of reinforcement_learning (workloads/minigo.h) as typed data. FromConfig reads a
// resolved configuration (core::ResolveConfig's `effective`) once, every key through
// core::ConfigReader (so an error names the key), and sets what the scale decides (where the
// held-out games lie), so that the workload neither reads keys by string nor branches on the
// scale for a setting. No LibTorch. Counts the workload keeps as int are narrowed from the
// 64-bit value here, as the workload always did.
#pragma once

#include <cstdint>
#include <string>

#include "core/json.h"

namespace trainbench::workloads {

// Defaults: the mini definition's values.
struct MiniGoOptions {
  // The game and the network.
  int board_size = 9;
  double komi = 7.5;
  int64_t filters = 16;   // channels of the residual trunk
  int64_t blocks = 2;     // residual blocks
  int64_t value_fc = 32;  // width of the value head's hidden layer
  // Training.
  double base_lr = 0.02;
  double momentum = 0.9;
  double weight_decay = 0.0001;
  int64_t batch_size = 64;             // positions per SGD step
  int64_t train_steps = 100;           // SGD steps per generation
  int window_generations = 4;          // generations of self-play samples trained on
  int64_t train_threads = 0;           // intra-op threads of training and evaluation; 0: the run's
  double value_target_q_weight = 0.5;  // value target = (1 - a) outcome + a root value
  // Self-play.
  int games_per_generation = 8;
  int max_game_moves = 162;  // a game is scored as it stands after this many moves
  int readouts = 256;        // MCTS readouts per move
  int mcts_batch = 16;       // leaves per network call (virtual loss)
  double c_puct = 1.5;
  double dirichlet_alpha = 0.3;
  double noise_fraction = 0.25;
  int temperature_moves = 10;       // opening moves sampled in proportion to the visits
  int pass_allowed_from_move = 54;  // no pass is searched before this move
  double playout_weight = 0.5;      // leaf value = (1 - w) network + w random playout
  int parallel_games = 1;           // games a thread plays in lockstep
  bool balance_games = false;       // the threads share the generation's games
  bool incremental_playouts = false;
  bool search_node_pool = false;
  // The searches' computation (self-play, gating, GNU Go games).
  // "fp32", "bf16" or "fp16" (checked here; the workload's ParsePrecision needs the device too).
  std::string search_precision = "fp32";
  int search_blas_threads = 0;  // 0: OpenBLAS's default
  bool channels_last = false;
  bool fold_batchnorm = false;
  // Gating and evaluation.
  int gating_games = 0;  // 0: no gating, the trained network is the best
  double gating_win_rate = 0.55;
  int eval_readouts = 128;  // readouts per move in gating and GNU Go games
  int gnugo_games = 2;      // games against GNU Go at an evaluation; 0: none
  int gnugo_every = 25;     // generations between them; a configured value below 1 is 1
  int gnugo_level = 1;
  std::string gnugo_binary = "/usr/games/gnugo";
  // Fixed by the scale's preset: the folder of held-out .sgf games under the data directory (mini:
  // the `test` folder of `trainbench prepare go`); empty: the data directory itself (full: the
  // user's expert collection).
  std::string eval_games_subdir = "test";

  // `config`: a resolved configuration; `preset`: its scale's (core::ScaleDef::preset). Throws
  // core::Error naming the key for a missing key, a value of the wrong type and a search
  // precision other than fp32, bf16 or fp16.
  static MiniGoOptions FromConfig(const core::Json& config, const core::Json& preset);
};

}  // namespace trainbench::workloads

#include "workloads/minigo_options.h"

#include <algorithm>

#include "core/benchmark_def.h"
#include "core/config_reader.h"
#include "core/error.h"

namespace trainbench::workloads {

namespace {

using core::ConfigReader;

// A count the workload keeps as int: the 64-bit value cast, as the workload always did (a value
// beyond int is not refused here; the definitions bound the ones that matter).
int Narrow(const ConfigReader& r, const std::string& key) { return static_cast<int>(r.Int(key)); }

}  // namespace

MiniGoOptions MiniGoOptions::FromConfig(const core::Json& config, const core::Json& preset) {
  const core::Json all = core::WithPreset(config, preset);
  const ConfigReader r(all);
  MiniGoOptions o;
  o.eval_games_subdir = r.String("eval_games_subdir");
  o.board_size = Narrow(r, "board_size");
  o.komi = r.Float("komi");
  o.filters = r.Int("filters");
  o.blocks = r.Int("blocks");
  o.value_fc = r.Int("value_fc");
  o.base_lr = r.Float("base_lr");
  o.momentum = r.Float("momentum");
  o.weight_decay = r.Float("weight_decay");
  o.batch_size = r.Int("batch_size");
  o.train_steps = r.Int("train_steps");
  o.window_generations = Narrow(r, "window_generations");
  o.train_threads = r.Int("train_threads");
  o.value_target_q_weight = r.Float("value_target_q_weight");
  o.games_per_generation = Narrow(r, "games_per_generation");
  o.max_game_moves = Narrow(r, "max_game_moves");
  o.readouts = Narrow(r, "readouts");
  o.mcts_batch = Narrow(r, "mcts_batch");
  o.c_puct = r.Float("c_puct");
  o.dirichlet_alpha = r.Float("dirichlet_alpha");
  o.noise_fraction = r.Float("noise_fraction");
  o.temperature_moves = Narrow(r, "temperature_moves");
  o.pass_allowed_from_move = Narrow(r, "pass_allowed_from_move");
  o.playout_weight = r.Float("playout_weight");
  o.parallel_games = Narrow(r, "parallel_games");
  o.balance_games = r.Bool("balance_games");
  o.incremental_playouts = r.Bool("incremental_playouts");
  o.search_node_pool = r.Bool("search_node_pool");
  o.search_precision = r.OneOf("search_precision", {"fp32", "bf16", "fp16"});
  o.search_blas_threads = Narrow(r, "search_blas_threads");
  o.channels_last = r.Bool("channels_last");
  o.fold_batchnorm = r.Bool("fold_batchnorm");
  o.gating_games = Narrow(r, "gating_games");
  o.gating_win_rate = r.Float("gating_win_rate");
  o.eval_readouts = Narrow(r, "eval_readouts");
  o.gnugo_games = Narrow(r, "gnugo_games");
  o.gnugo_every = std::max<int>(1, Narrow(r, "gnugo_every"));
  o.gnugo_level = Narrow(r, "gnugo_level");
  o.gnugo_binary = r.String("gnugo_binary");
  return o;
}

}  // namespace trainbench::workloads

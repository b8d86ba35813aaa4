// The settings of recommendation (MLPerf `ncf`) as data: every configuration key the workload
// uses, typed. No LibTorch, so that the settings can be read and tested without it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/json.h"

namespace trainbench::workloads {

// Defaults are the mini scale's reference values (configs/benchmarks/recommendation.yaml);
// FromConfig sets every field. Both scales have the same keys and no presets.
struct RecommendationOptions {
  enum class Optimizer { kAdam, kLazyAdam };
  enum class SparseUsers { kDrop, kError };
  enum class EvalMlpDtype { kFp32, kBf16 };

  // "adam" or "lazy_adam", as MLLOG's opt_name logs it.
  static const char* OptimizerName(Optimizer o);

  // `config`: a resolved configuration (core::ResolveConfig's `effective`; both scales have the
  // same keys and no preset). Each key is read once; a missing key, a value of the wrong type, an
  // unknown choice, a malformed mlp_layer_sizes or a combination CheckConfig refuses is a
  // core::Error naming the key.
  static RecommendationOptions FromConfig(const core::Json& config);

  // The checks that span keys (fused_optimizer needs adam; eval_mlp_dtype fp32 or bf16), which
  // `trainbench run` makes before any run starts (Workload::CheckConfig); FromConfig makes them
  // too. Narrower than FromConfig on purpose: a malformed mlp_layer_sizes (possible in the open
  // division) fails the run's Init, an aborted run with its log, as it always has.
  static void CheckConfig(const core::Json& config);

  int64_t batch_size = 2048;               // global batch in examples, negatives included
  Optimizer optimizer = Optimizer::kAdam;  // opt_name
  double base_lr = 0.0005;
  double adam_beta1 = 0.9;
  double adam_beta2 = 0.999;
  double adam_epsilon = 1.0e-8;
  int num_negatives = 4;     // training negatives per positive
  int eval_negatives = 999;  // sampled negatives ranked with each user's test item
  int min_ratings = 20;      // users with fewer ratings are dropped or an error (sparse_users)
  SparseUsers sparse_users = SparseUsers::kError;
  int64_t topk = 10;    // K of HR@K and NDCG@K
  int64_t mf_dim = 64;  // GMF factors
  // mlp_layer_sizes ("256,256,128,64"): at least two, the first even (user and item halves).
  std::vector<int64_t> mlp_layer_sizes = {256, 256, 128, 64};
  uint64_t eval_seed = 0;             // seeds the evaluation negatives
  int64_t eval_batch_pairs = 262144;  // (user, item) pairs scored per evaluation batch
  int train_threads = 0;              // intra-op threads while training; 0: the run's --threads
  int eval_threads = 0;               // intra-op threads while evaluating; 0: the run's --threads
  int blas_threads = 0;               // 0: the BLAS library's default
  bool fused_optimizer = false;       // FusedAdam (optimizer kAdam only)
  EvalMlpDtype eval_mlp_dtype = EvalMlpDtype::kFp32;
  bool eval_fused_gather = false;
};

}  // namespace trainbench::workloads

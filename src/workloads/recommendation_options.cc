#include "workloads/recommendation_options.h"

#include <sstream>
#include <stdexcept>

#include "core/config_reader.h"

namespace trainbench::workloads {

namespace {

using core::ConfigReader;

// "256,256,128,64" -> {256, 256, 128, 64}.
std::vector<int64_t> ParseLayerSizes(const std::string& s) {
  std::vector<int64_t> out;
  std::stringstream in(s);
  std::string part;
  while (std::getline(in, part, ',')) {
    try {
      size_t used = 0;
      long long v = std::stoll(part, &used);
      if (used != part.size() || v < 1) throw std::invalid_argument(part);
      out.push_back(v);
    } catch (const std::exception&) {
      throw ConfigReader::KeyError(
          "mlp_layer_sizes", "\"" + s + "\" is not a comma-separated list of positive integers");
    }
  }
  if (out.size() < 2 || out[0] % 2 != 0) {
    throw ConfigReader::KeyError(
        "mlp_layer_sizes",
        "\"" + s + "\" needs at least two sizes, the first even (user and item halves)");
  }
  return out;
}

void CheckFused(bool fused_optimizer, const std::string& opt_name) {
  if (fused_optimizer && opt_name != "adam") {
    throw ConfigReader::KeyError("fused_optimizer",
                                 "true needs opt_name adam (got " + opt_name + ")");
  }
}

RecommendationOptions::EvalMlpDtype ParseEvalMlpDtype(const std::string& s) {
  if (s == "fp32") return RecommendationOptions::EvalMlpDtype::kFp32;
  if (s == "bf16") return RecommendationOptions::EvalMlpDtype::kBf16;
  throw ConfigReader::KeyError("eval_mlp_dtype", "expected fp32 or bf16, got \"" + s + "\"");
}

}  // namespace

const char* RecommendationOptions::OptimizerName(Optimizer o) {
  return o == Optimizer::kLazyAdam ? "lazy_adam" : "adam";
}

void RecommendationOptions::CheckConfig(const core::Json& config) {
  const ConfigReader r(config);
  const std::string opt_name = r.String("opt_name");
  CheckFused(r.Bool("fused_optimizer"), opt_name);
  ParseEvalMlpDtype(r.String("eval_mlp_dtype"));
}

RecommendationOptions RecommendationOptions::FromConfig(const core::Json& config) {
  const ConfigReader r(config);
  RecommendationOptions o;
  o.batch_size = r.Int("batch_size");
  const std::string opt_name = r.String("opt_name");
  if (opt_name == "adam") {
    o.optimizer = Optimizer::kAdam;
  } else if (opt_name == "lazy_adam") {
    o.optimizer = Optimizer::kLazyAdam;
  } else {
    throw ConfigReader::KeyError(
        "opt_name", "optimizer \"" + opt_name + "\" is not implemented (adam, lazy_adam)");
  }
  o.base_lr = r.Float("base_lr");
  o.adam_beta1 = r.Float("adam_beta1");
  o.adam_beta2 = r.Float("adam_beta2");
  o.adam_epsilon = r.Float("adam_epsilon");
  // Read as 64-bit and narrowed, as the workload always has (Int32 would refuse what wraps).
  o.num_negatives = static_cast<int>(r.Int("num_negatives"));
  o.eval_negatives = static_cast<int>(r.Int("eval_negatives"));
  o.min_ratings = static_cast<int>(r.Int("min_ratings"));
  o.topk = r.Int("topk");
  o.mf_dim = r.Int("mf_dim");
  o.mlp_layer_sizes = ParseLayerSizes(r.String("mlp_layer_sizes"));
  o.eval_seed = static_cast<uint64_t>(r.Int("eval_seed"));
  const std::string sparse_users = r.String("sparse_users");
  if (sparse_users == "drop") {
    o.sparse_users = SparseUsers::kDrop;
  } else if (sparse_users == "error") {
    o.sparse_users = SparseUsers::kError;
  } else {
    throw ConfigReader::KeyError("sparse_users",
                                 "expected drop or error, got \"" + sparse_users + "\"");
  }
  o.eval_batch_pairs = r.Int("eval_batch_pairs");
  o.train_threads = static_cast<int>(r.Int("train_threads"));
  o.eval_threads = static_cast<int>(r.Int("eval_threads"));
  o.blas_threads = static_cast<int>(r.Int("blas_threads"));
  // CheckConfig's checks, in its order.
  o.fused_optimizer = r.Bool("fused_optimizer");
  CheckFused(o.fused_optimizer, opt_name);
  o.eval_mlp_dtype = ParseEvalMlpDtype(r.String("eval_mlp_dtype"));
  o.eval_fused_gather = r.Bool("eval_fused_gather");
  return o;
}

}  // namespace trainbench::workloads

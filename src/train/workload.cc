#include "train/workload.h"

#include "core/error.h"

namespace trainbench::train {

LoggedEvent LoggedSetting(const RunContext& ctx, const std::string& key, core::Json metadata) {
  TB_CHECK(ctx.scale != nullptr, "LoggedSetting(" << key << "): the run context has no scale");
  const core::HyperparameterDef* h = ctx.scale->Find(key);
  TB_CHECK(h != nullptr && !h->mllog.empty(),
           "hyperparameter " << key << " has no `mllog:` name in its definition (" << ctx.benchmark
                             << ")");
  TB_CHECK(ctx.config.contains(key),
           "hyperparameter " << key << " is not in the effective configuration");
  return {h->mllog, ctx.config.at(key), std::move(metadata)};
}

void CheckWorldSize(const Workload& workload, const std::string& benchmark,
                    const core::Json& config, int world_size) {
  if (world_size <= 1) return;
  const char* key = workload.DataParallelBatchKey();
  if (key == nullptr) {
    throw core::Error(benchmark +
                      ": data-parallel training is not supported yet (world size 1 only; got " +
                      std::to_string(world_size) + ")");
  }
  const core::Json* v = config.contains(key) ? &config.at(key) : nullptr;
  if (v == nullptr || !v->is_number_integer()) {
    throw core::Error(std::string("configuration key \"") + key + "\": missing or not an integer");
  }
  const int64_t batch = v->get<int64_t>();
  if (batch % world_size != 0) {
    throw core::Error(std::string("configuration key \"") + key + "\": " + std::to_string(batch) +
                      " is not a multiple of the world size " + std::to_string(world_size));
  }
}

}  // namespace trainbench::train

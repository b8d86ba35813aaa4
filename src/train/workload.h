// The seam between the harness and a benchmark. A workload supplies its data, model, training
// step and metric; the harness (harness.h) owns everything else: the clock, the MLLOG events,
// the evaluation cadence, the stop at the quality target, seeds and result files. A workload
// never reads a clock for a result and never writes MLLOG lines itself.
//
// Call order, all from one thread:
//   Init(ctx)                untimed (between init_start and init_stop): build the model and the
//                            optimizer, validate the configuration; must not read the dataset.
//   LoggedHyperparameters()  after Init; logged before init_stop.
//   LoadData()               timed (after run_start): read and prepare the datasets.
//   TrainEpoch(e, control)   timed, e = 1, 2, ...; report every step to `control`.
//   LoggedEpochFacts(e)      after TrainEpoch(e); logged after epoch_stop.
//   Evaluate(e)              timed; the whole evaluation set.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/benchmark_def.h"
#include "core/json.h"

namespace trainbench::dist {
class ProcessGroup;  // dist/process_group.h (LibTorch); the harness never touches it
}

namespace trainbench::train {

struct RunContext {
  std::string benchmark;  // trainbench name, e.g. "image_classification"
  const core::ScaleDef* scale = nullptr;
  core::Json config;           // effective hyperparameters (core::ResolveConfig)
  std::string data_dir;        // where the dataset lives
  uint64_t seed = 0;           // the run's logged seed; derive streams with core::SeedFor
  int threads = 1;             // intra-op threads the workload must use
  int loader_threads = 1;      // data-loading worker threads
  std::string device = "cpu";  // "cpu" or "cuda[:N]"
  int rank = 0;
  int world_size = 1;
  // The data-parallel group of world_size ranks; null: one process (world_size 1). Workloads
  // average gradients and reduce evaluation results over it.
  std::shared_ptr<dist::ProcessGroup> group;
  core::Json dist_info = core::Json::object();  // logged as trainbench_dist when world_size > 1
};

// Given to TrainEpoch by the harness.
class TrainControl {
 public:
  virtual ~TrainControl() = default;
  // Call after every optimizer step with the samples it consumed (global, over all ranks) and
  // its loss (NaN if not computed). Returns false when the workload must end the epoch now
  // (interrupt or step budget): return from TrainEpoch promptly.
  virtual bool OnStep(int64_t samples, double loss) = 0;
};

struct EvalResult {
  double value = 0;                         // the quality metric compared with the target
  int64_t samples = 0;                      // samples evaluated (the whole evaluation set)
  core::Json extra = core::Json::object();  // other metrics, logged as metadata
  // eval_accuracy's value when it is not `value` itself (null: `value` is logged), in the
  // official log's shape: Mask R-CNN's {"BBOX": box mAP, "SEGM": mask mAP}. The harness still
  // compares `value` and `extra`'s secondary metrics with the targets.
  core::Json logged;
};

// One MLLOG event a workload asks the harness to log: key, value and metadata (epoch_num is
// added to the metadata of LoggedEpochFacts' events).
struct LoggedEvent {
  std::string key;
  core::Json value;
  core::Json metadata = core::Json::object();
};
using LoggedEvents = std::vector<LoggedEvent>;

// The event of hyperparameter `key` as configured: its definition's MLLOG name (`mllog:` in
// configs/benchmarks/*.yaml) and its effective value. A key without an `mllog` name, or not in
// the definition, is a programming error (TB_CHECK): the name must live in the definition.
LoggedEvent LoggedSetting(const RunContext& ctx, const std::string& key,
                          core::Json metadata = core::Json::object());

class Workload {
 public:
  virtual ~Workload() = default;
  // Checks of the resolved configuration that span keys or need the device (e.g. fp16 needs
  // CUDA), run by `trainbench run` before any run starts, so that bad input ends with exit 2 and
  // no log; Init applies them again. Throws core::Error naming the key. Cheap: no model, no data.
  virtual void CheckConfig(const core::Json& /*config*/, const std::string& /*device*/) const {}
  // The configuration key of the global batch that data parallelism splits evenly over the
  // ranks ("batch_size"; "batch_tokens" for translation); null: the workload trains in one
  // process only. `trainbench run` checks it before it forks any worker (CheckWorldSize).
  virtual const char* DataParallelBatchKey() const { return "batch_size"; }
  virtual void Init(const RunContext& ctx) = 0;
  // MLLOG keys -> values (opt_name, sgd_opt_*, model_bn_span, ...), logged in this order.
  virtual LoggedEvents LoggedHyperparameters() const = 0;
  virtual int64_t GlobalBatchSize() const = 0;
  // Runtime facts for provenance (LibTorch version, effective threads, device, ...).
  virtual core::Json RuntimeProvenance() const = 0;
  virtual void LoadData() = 0;
  virtual int64_t TrainSamples() const = 0;  // per epoch, after LoadData
  virtual int64_t EvalSamples() const = 0;   // after LoadData
  // MLLOG keys -> values known only once the data is loaded (dataset sizes, evaluation
  // users, ...), logged in this order right after train_samples and eval_samples. Default: none.
  // Hyperparameters that need the data (a schedule's boundaries in steps) go here too.
  virtual LoggedEvents LoggedDataFacts() const { return {}; }
  virtual void TrainEpoch(int epoch, TrainControl& control) = 0;
  // MLLOG keys -> values of the epoch just trained (MiniGo's self-play games of the
  // generation), logged after its epoch_stop with metadata epoch_num. Default: none.
  virtual LoggedEvents LoggedEpochFacts(int /*epoch*/) const { return {}; }
  virtual EvalResult Evaluate(int epoch) = 0;
};

// Throws core::Error (naming the key) unless `world_size` ranks can train `workload` with
// `config`: the workload is data-parallel and its global batch is a multiple of world_size.
void CheckWorldSize(const Workload& workload, const std::string& benchmark,
                    const core::Json& config, int world_size);

}  // namespace trainbench::train

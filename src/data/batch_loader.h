// BatchLoader: turns a Dataset into a deterministic stream of batches for one rank.
//
// Per epoch e the sample order is a Fisher-Yates permutation drawn from
// Rng(MixSeed({seed, kShuffleDomain, e})) (identity when shuffle is off). Rank r of world_size
// takes the positions r, r + world_size, r + 2*world_size, ... of that order, then cuts its shard
// into batches of batch_size according to the last-batch policy:
//   kDrop:        every rank gets floor(N / world_size) samples (the tail of the order is
//                 dropped) and only full batches: floor(N / world_size / batch_size) batches.
//   kPad:         every rank gets ceil(ceil(N / world_size) / batch_size) full batches; the
//                 positions after the rank's own samples repeat them from the start (wrapping),
//                 and Batch::num_valid says how many rows are real (for exact evaluation).
//   kKeepPartial: each rank gets its own samples exactly once; the last batch may be short and
//                 ranks may differ by one batch. Over all ranks every sample appears once.
// The example in a row is dataset->GetInto(index, SampleRng(seed, e, index)), so batch b of
// epoch e has the same bytes whatever the number of worker threads.
//
// Threading: num_workers background threads build whole batches ahead of the consumer, at most
// prefetch_batches batches in flight or ready (bounded memory); with num_workers = 0 batches are
// built on the consumer's thread inside Next(). StartEpoch/Next/the destructor must be called
// from one consumer thread. An exception thrown while building a batch (e.g. core::Error for a
// corrupt JPEG) is rethrown, as the same exception object, by the Next() call that would have
// returned that batch; the epoch then ends (Next() returns nullopt until StartEpoch). The
// destructor (or a new StartEpoch) cancels outstanding work and joins the threads promptly.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "data/dataset.h"

namespace trainbench::data {

enum class LastBatchPolicy { kDrop, kPad, kKeepPartial };

struct BatchLoaderOptions {
  int64_t batch_size = 1;  // rows per batch (per rank), > 0
  bool shuffle = true;     // false: dataset order (e.g. for evaluation)
  uint64_t seed = 0;       // the data seed: shuffle and augmentation streams derive from it
  int rank = 0;            // 0 <= rank < world_size
  int world_size = 1;
  LastBatchPolicy last_batch = LastBatchPolicy::kKeepPartial;
  int num_workers = 0;       // background threads; 0 = build in Next() on the caller's thread
  int prefetch_batches = 0;  // max batches built ahead; <= 0 means 2 * num_workers
};

// A data-parallel run's training loader: this rank's `per_rank_batch` rows of each global
// batch, shuffled per epoch from `seed`, the last partial batch dropped (every rank takes the
// same number of steps).
BatchLoaderOptions TrainLoaderOptions(int64_t per_rank_batch, uint64_t seed, int rank,
                                      int world_size, int num_workers);
// Its evaluation loader: the same ranks and workers, dataset order, the last batch padded, so
// that every sample is evaluated exactly once over the ranks.
BatchLoaderOptions EvalLoaderOptions(const BatchLoaderOptions& train, int64_t per_rank_batch);

// One batch; owns its buffers.
struct Batch {
  int64_t epoch = 0;
  int64_t index = 0;                    // batch number within the epoch on this rank
  int64_t size = 0;                     // rows (B)
  int64_t num_valid = 0;                // rows [0, num_valid) are real; the rest are kPad padding
  ExampleShape shape;                   // per-row shape (C, H, W)
  std::vector<float> data;              // [B, C, H, W] contiguous
  std::vector<int64_t> labels;          // [B]
  int64_t extra_floats = 0;             // Dataset::extra_floats() per row
  std::vector<float> extra;             // [B, extra_floats] (empty when 0)
  std::vector<int64_t> sample_indices;  // [B] dataset index of each row
};

// The sample order of one epoch (a permutation of [0, size)).
std::vector<int64_t> EpochOrder(int64_t size, uint64_t seed, int64_t epoch, bool shuffle);

// The dataset indices, in order, that rank `options.rank` processes in `epoch` (padding
// included, so its length is num_batches * batch_size for kDrop/kPad); *num_valid receives the
// count of real (non-padding) positions.
std::vector<int64_t> RankSchedule(int64_t size, const BatchLoaderOptions& options, int64_t epoch,
                                  int64_t* num_valid);

class BatchLoader {
 public:
  // The dataset is shared (kept alive by the loader) and must be thread-safe for GetInto.
  // Invalid options are invariant violations (TB_CHECK).
  BatchLoader(std::shared_ptr<const Dataset> dataset, BatchLoaderOptions options);
  ~BatchLoader();
  BatchLoader(const BatchLoader&) = delete;
  BatchLoader& operator=(const BatchLoader&) = delete;

  // Starts (or restarts) epoch `epoch`, cancelling whatever remains of the previous one.
  void StartEpoch(int64_t epoch);
  // The next batch of the current epoch, or nullopt at its end (or before any StartEpoch).
  // Blocks until the batch is ready; rethrows a worker's exception.
  std::optional<Batch> Next();

  // Batches per epoch on this rank (the same for every epoch).
  int64_t num_batches() const { return num_batches_; }
  const BatchLoaderOptions& options() const { return options_; }

 private:
  struct EpochPlan {
    int64_t epoch = 0;
    std::vector<int64_t> schedule;  // dataset indices, see RankSchedule
    int64_t num_valid = 0;
  };
  struct Slot {
    std::optional<Batch> batch;
    std::exception_ptr error;
  };

  // Builds batch b of the plan; returns nullopt when cancelled (generation changed).
  std::optional<Batch> BuildBatch(const EpochPlan& plan, int64_t b, uint64_t generation) const;
  void WorkerLoop();
  void CancelLocked();

  std::shared_ptr<const Dataset> dataset_;
  BatchLoaderOptions options_;
  int64_t num_batches_ = 0;
  int prefetch_ = 0;

  std::mutex mu_;
  std::condition_variable work_cv_;        // workers wait for claimable work
  std::condition_variable ready_cv_;       // the consumer waits for its batch
  std::shared_ptr<const EpochPlan> plan_;  // guarded by mu_; null before StartEpoch
  bool epoch_active_ = false;
  int64_t next_claim_ = 0;   // next batch a worker may start
  int64_t next_return_ = 0;  // next batch Next() returns
  std::map<int64_t, Slot> ready_;
  bool stop_ = false;
  std::atomic<uint64_t> generation_{0};  // bumped on cancel; workers poll it between samples
  std::vector<std::thread> workers_;
};

}  // namespace trainbench::data

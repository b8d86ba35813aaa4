#include "data/batch_loader.h"

#include <algorithm>
#include <numeric>
#include <utility>

#include "core/error.h"

namespace trainbench::data {

BatchLoaderOptions TrainLoaderOptions(int64_t per_rank_batch, uint64_t seed, int rank,
                                      int world_size, int num_workers) {
  BatchLoaderOptions t;
  t.batch_size = per_rank_batch;
  t.shuffle = true;
  t.seed = seed;
  t.rank = rank;
  t.world_size = world_size;
  t.last_batch = LastBatchPolicy::kDrop;
  t.num_workers = num_workers;
  return t;
}

BatchLoaderOptions EvalLoaderOptions(const BatchLoaderOptions& train, int64_t per_rank_batch) {
  BatchLoaderOptions e = train;
  e.batch_size = per_rank_batch;
  e.shuffle = false;
  e.last_batch = LastBatchPolicy::kPad;
  return e;
}

std::vector<int64_t> EpochOrder(int64_t size, uint64_t seed, int64_t epoch, bool shuffle) {
  std::vector<int64_t> order(static_cast<size_t>(size));
  std::iota(order.begin(), order.end(), int64_t{0});
  if (!shuffle) return order;
  Rng rng(MixSeed({seed, kShuffleDomain, static_cast<uint64_t>(epoch)}));
  for (int64_t i = size - 1; i > 0; --i) {  // Fisher-Yates
    const int64_t j = rng.UniformInt(0, i);
    std::swap(order[i], order[j]);
  }
  return order;
}

namespace {

void CheckOptions(const BatchLoaderOptions& o) {
  TB_CHECK(o.batch_size > 0, "batch_size " << o.batch_size);
  TB_CHECK(o.world_size > 0 && o.rank >= 0 && o.rank < o.world_size,
           "rank " << o.rank << " world_size " << o.world_size);
  TB_CHECK(o.num_workers >= 0, "num_workers " << o.num_workers);
}

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

int64_t NumBatches(int64_t size, const BatchLoaderOptions& o) {
  const int64_t w = o.world_size;
  switch (o.last_batch) {
    case LastBatchPolicy::kDrop:
      return size / w / o.batch_size;
    case LastBatchPolicy::kPad:
      return CeilDiv(CeilDiv(size, w), o.batch_size);
    case LastBatchPolicy::kKeepPartial: {
      const int64_t own = size > o.rank ? CeilDiv(size - o.rank, w) : 0;
      return CeilDiv(own, o.batch_size);
    }
  }
  return 0;
}

}  // namespace

std::vector<int64_t> RankSchedule(int64_t size, const BatchLoaderOptions& options, int64_t epoch,
                                  int64_t* num_valid) {
  CheckOptions(options);
  const std::vector<int64_t> order = EpochOrder(size, options.seed, epoch, options.shuffle);
  std::vector<int64_t> own;
  own.reserve(static_cast<size_t>(CeilDiv(size, options.world_size)));
  for (int64_t p = options.rank; p < size; p += options.world_size) own.push_back(order[p]);
  const int64_t batches = NumBatches(size, options);
  const int64_t b = options.batch_size;
  switch (options.last_batch) {
    case LastBatchPolicy::kKeepPartial:
      *num_valid = static_cast<int64_t>(own.size());
      return own;
    case LastBatchPolicy::kDrop:
      own.resize(static_cast<size_t>(batches * b));
      *num_valid = batches * b;
      return own;
    case LastBatchPolicy::kPad: {
      *num_valid = static_cast<int64_t>(own.size());
      const int64_t total = batches * b;
      const size_t n_own = own.size();
      for (int64_t j = static_cast<int64_t>(n_own); j < total; ++j) {
        own.push_back(n_own > 0 ? own[static_cast<size_t>(j) % n_own]
                                : order[static_cast<size_t>(j % size)]);
      }
      return own;
    }
  }
  return own;
}

BatchLoader::BatchLoader(std::shared_ptr<const Dataset> dataset, BatchLoaderOptions options)
    : dataset_(std::move(dataset)), options_(options) {
  TB_CHECK(dataset_ != nullptr, "BatchLoader: null dataset");
  CheckOptions(options_);
  num_batches_ = NumBatches(dataset_->size(), options_);
  prefetch_ = options_.prefetch_batches > 0 ? options_.prefetch_batches
                                            : std::max(1, 2 * options_.num_workers);
  workers_.reserve(static_cast<size_t>(options_.num_workers));
  for (int i = 0; i < options_.num_workers; ++i) workers_.emplace_back([this] { WorkerLoop(); });
}

BatchLoader::~BatchLoader() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
    generation_.fetch_add(1);
  }
  work_cv_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void BatchLoader::CancelLocked() {
  generation_.fetch_add(1);
  ready_.clear();
  epoch_active_ = false;
}

void BatchLoader::StartEpoch(int64_t epoch) {
  auto plan = std::make_shared<EpochPlan>();
  plan->epoch = epoch;
  plan->schedule = RankSchedule(dataset_->size(), options_, epoch, &plan->num_valid);
  {
    std::lock_guard<std::mutex> lock(mu_);
    CancelLocked();
    plan_ = std::move(plan);
    next_claim_ = 0;
    next_return_ = 0;
    epoch_active_ = true;
  }
  work_cv_.notify_all();
}

std::optional<Batch> BatchLoader::BuildBatch(const EpochPlan& plan, int64_t b,
                                             uint64_t generation) const {
  const int64_t bs = options_.batch_size;
  const int64_t begin = b * bs;
  const int64_t end = std::min<int64_t>(begin + bs, static_cast<int64_t>(plan.schedule.size()));
  Batch batch;
  batch.epoch = plan.epoch;
  batch.index = b;
  batch.size = end - begin;
  batch.num_valid = std::clamp<int64_t>(plan.num_valid - begin, 0, batch.size);
  batch.shape = dataset_->shape();
  const int64_t numel = batch.shape.numel();
  batch.data.resize(static_cast<size_t>(batch.size * numel));
  batch.labels.resize(static_cast<size_t>(batch.size));
  batch.extra_floats = dataset_->extra_floats();
  batch.extra.resize(static_cast<size_t>(batch.size * batch.extra_floats));
  batch.sample_indices.assign(plan.schedule.begin() + begin, plan.schedule.begin() + end);
  for (int64_t r = 0; r < batch.size; ++r) {
    if (generation_.load(std::memory_order_relaxed) != generation) return std::nullopt;
    const int64_t index = batch.sample_indices[static_cast<size_t>(r)];
    Rng rng = SampleRng(options_.seed, plan.epoch, index);
    batch.labels[static_cast<size_t>(r)] =
        batch.extra_floats == 0
            ? dataset_->GetInto(index, rng, batch.data.data() + r * numel)
            : dataset_->GetIntoWithExtra(index, rng, batch.data.data() + r * numel,
                                         batch.extra.data() + r * batch.extra_floats);
  }
  return batch;
}

void BatchLoader::WorkerLoop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    work_cv_.wait(lock, [this] {
      return stop_ || (epoch_active_ && next_claim_ < num_batches_ &&
                       next_claim_ < next_return_ + prefetch_);
    });
    if (stop_) return;
    const int64_t b = next_claim_++;
    const std::shared_ptr<const EpochPlan> plan = plan_;
    const uint64_t generation = generation_.load();
    lock.unlock();
    Slot slot;
    try {
      slot.batch = BuildBatch(*plan, b, generation);
    } catch (...) {
      slot.error = std::current_exception();
    }
    const bool cancelled = !slot.batch && !slot.error;
    lock.lock();
    if (!cancelled && generation == generation_.load()) {
      ready_.emplace(b, std::move(slot));
      ready_cv_.notify_all();
    }
  }
}

std::optional<Batch> BatchLoader::Next() {
  std::unique_lock<std::mutex> lock(mu_);
  if (!epoch_active_) return std::nullopt;
  if (next_return_ >= num_batches_) {
    epoch_active_ = false;
    return std::nullopt;
  }
  const int64_t b = next_return_;
  if (workers_.empty()) {  // synchronous mode
    ++next_return_;
    const std::shared_ptr<const EpochPlan> plan = plan_;
    const uint64_t generation = generation_.load();
    lock.unlock();
    try {
      return BuildBatch(*plan, b, generation);
    } catch (...) {
      lock.lock();
      CancelLocked();
      throw;
    }
  }
  ready_cv_.wait(lock, [this, b] { return ready_.count(b) > 0; });
  auto node = ready_.extract(b);
  ++next_return_;
  if (node.mapped().error) {
    CancelLocked();
    lock.unlock();
    work_cv_.notify_all();
    std::rethrow_exception(node.mapped().error);
  }
  lock.unlock();
  work_cv_.notify_all();
  return std::move(node.mapped().batch);
}

}  // namespace trainbench::data

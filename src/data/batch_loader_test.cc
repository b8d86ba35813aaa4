#include "data/batch_loader.h"

#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <set>
#include <thread>

#include "core/error.h"
#include "data/fashion_mnist_dataset.h"

namespace trainbench::data {
namespace {

// Example i = [i, u, u, u] (u: the first Uniform() of its rng), label 10 * i. Optionally
// throws core::Error at one index and sleeps per example.
class FakeDataset : public Dataset {
 public:
  explicit FakeDataset(int64_t n, int64_t throw_at = -1, int sleep_us = 0)
      : n_(n), throw_at_(throw_at), sleep_us_(sleep_us) {}
  int64_t size() const override { return n_; }
  ExampleShape shape() const override { return {1, 2, 2}; }
  int64_t GetInto(int64_t index, Rng& rng, float* out) const override {
    if (sleep_us_ > 0) std::this_thread::sleep_for(std::chrono::microseconds(sleep_us_));
    if (index == throw_at_) throw core::FileError("sample_" + std::to_string(index), 0, "broken");
    const auto u = static_cast<float>(rng.Uniform());
    out[0] = static_cast<float>(index);
    out[1] = out[2] = out[3] = u;
    return 10 * index;
  }

 private:
  int64_t n_, throw_at_;
  int sleep_us_;
};

std::vector<Batch> Epoch(BatchLoader& loader, int64_t epoch) {
  loader.StartEpoch(epoch);
  std::vector<Batch> out;
  while (std::optional<Batch> b = loader.Next()) out.push_back(std::move(*b));
  return out;
}

BatchLoaderOptions Opts(int64_t batch, int rank, int world, LastBatchPolicy policy,
                        int workers = 0) {
  BatchLoaderOptions o;
  o.batch_size = batch;
  o.seed = 1234;
  o.rank = rank;
  o.world_size = world;
  o.last_batch = policy;
  o.num_workers = workers;
  return o;
}

TEST(EpochOrderTest, PermutationPerEpoch) {
  const std::vector<int64_t> e0 = EpochOrder(100, 5, 0, true);
  std::vector<int64_t> sorted = e0;
  std::sort(sorted.begin(), sorted.end());
  for (int64_t i = 0; i < 100; ++i) ASSERT_EQ(sorted[i], i);
  EXPECT_EQ(e0, EpochOrder(100, 5, 0, true));
  EXPECT_NE(e0, EpochOrder(100, 5, 1, true));
  EXPECT_NE(e0, EpochOrder(100, 6, 0, true));
  EXPECT_EQ(EpochOrder(4, 5, 0, false), (std::vector<int64_t>{0, 1, 2, 3}));
}

TEST(BatchLoaderTest, KeepPolicyCoversEverySampleOnceAcrossRanks) {
  auto ds = std::make_shared<FakeDataset>(103);
  std::multiset<int64_t> seen;
  for (int rank = 0; rank < 3; ++rank) {
    BatchLoader loader(ds, Opts(8, rank, 3, LastBatchPolicy::kKeepPartial, rank));
    const std::vector<Batch> batches = Epoch(loader, 2);
    const int64_t own = rank == 0 ? 35 : 34;
    EXPECT_EQ(loader.num_batches(), 5);
    ASSERT_EQ(static_cast<int64_t>(batches.size()), 5);
    EXPECT_EQ(batches.back().size, own - 32);
    for (const Batch& b : batches) {
      EXPECT_EQ(b.epoch, 2);
      EXPECT_EQ(b.num_valid, b.size);
      ASSERT_EQ(b.data.size(), static_cast<size_t>(b.size * 4));
      for (int64_t r = 0; r < b.size; ++r) {
        const int64_t idx = b.sample_indices[r];
        EXPECT_EQ(b.labels[r], 10 * idx);
        EXPECT_EQ(b.data[r * 4], static_cast<float>(idx));
        seen.insert(idx);
      }
    }
  }
  ASSERT_EQ(seen.size(), 103u);
  for (int64_t i = 0; i < 103; ++i) EXPECT_EQ(seen.count(i), 1u) << i;
}

TEST(BatchLoaderTest, DropPolicyGivesEqualFullBatches) {
  auto ds = std::make_shared<FakeDataset>(103);
  std::set<int64_t> seen;
  for (int rank = 0; rank < 3; ++rank) {
    BatchLoader loader(ds, Opts(8, rank, 3, LastBatchPolicy::kDrop, 2));
    EXPECT_EQ(loader.num_batches(), 4);  // floor(floor(103 / 3) / 8)
    const std::vector<Batch> batches = Epoch(loader, 0);
    ASSERT_EQ(batches.size(), 4u);
    for (const Batch& b : batches) {
      EXPECT_EQ(b.size, 8);
      for (int64_t idx : b.sample_indices) EXPECT_TRUE(seen.insert(idx).second) << idx;
    }
  }
  EXPECT_EQ(seen.size(), 96u);
  BatchLoader small(ds, Opts(200, 0, 1, LastBatchPolicy::kDrop));
  EXPECT_EQ(small.num_batches(), 0);
  EXPECT_TRUE(Epoch(small, 0).empty());
}

TEST(BatchLoaderTest, PadPolicyPadsWithRepeatsAndCountsValidRows) {
  auto ds = std::make_shared<FakeDataset>(103);
  std::multiset<int64_t> valid;
  for (int rank = 0; rank < 3; ++rank) {
    BatchLoader loader(ds, Opts(8, rank, 3, LastBatchPolicy::kPad, 1));
    EXPECT_EQ(loader.num_batches(), 5);  // ceil(ceil(103 / 3) / 8)
    const std::vector<Batch> batches = Epoch(loader, 0);
    ASSERT_EQ(batches.size(), 5u);
    std::set<int64_t> own;
    for (const Batch& b : batches) {
      EXPECT_EQ(b.size, 8);
      for (int64_t r = 0; r < b.size; ++r) {
        if (r < b.num_valid) {
          valid.insert(b.sample_indices[r]);
          own.insert(b.sample_indices[r]);
        } else {
          EXPECT_EQ(own.count(b.sample_indices[r]), 1u) << "padding repeats the rank's samples";
        }
      }
    }
    EXPECT_EQ(batches.back().num_valid, rank == 0 ? 3 : 2);
  }
  EXPECT_EQ(valid.size(), 103u);
  for (int64_t i = 0; i < 103; ++i) EXPECT_EQ(valid.count(i), 1u) << i;
}

TEST(BatchLoaderTest, PadPolicyWithMoreRanksThanSamples) {
  auto ds = std::make_shared<FakeDataset>(2);
  for (int rank = 0; rank < 3; ++rank) {
    BatchLoader loader(ds, Opts(4, rank, 3, LastBatchPolicy::kPad));
    const std::vector<Batch> batches = Epoch(loader, 0);
    ASSERT_EQ(batches.size(), 1u);  // every rank steps the same number of times
    EXPECT_EQ(batches[0].size, 4);
    EXPECT_EQ(batches[0].num_valid, rank < 2 ? 1 : 0);
  }
  BatchLoader empty(std::make_shared<FakeDataset>(0), Opts(4, 0, 1, LastBatchPolicy::kPad, 1));
  EXPECT_EQ(empty.num_batches(), 0);
  EXPECT_TRUE(Epoch(empty, 0).empty());
}

TEST(BatchLoaderTest, SameBatchesWhateverTheWorkerCount) {
  auto split = std::make_shared<MnistSplit>();
  split->num_examples = 300;
  split->rows = split->cols = 28;
  Rng rng(1);
  split->images.resize(size_t{300} * 784);
  for (uint8_t& b : split->images) b = static_cast<uint8_t>(rng.NextU32());
  split->labels.resize(300);
  for (uint8_t& l : split->labels) l = static_cast<uint8_t>(rng.UniformInt(0, 9));
  auto ds = std::make_shared<FashionMnistDataset>(split, FashionMnistTrainOptions());

  std::map<int, std::vector<std::vector<Batch>>> runs;
  for (int workers : {0, 1, 3}) {
    BatchLoader loader(ds, Opts(32, 0, 1, LastBatchPolicy::kKeepPartial, workers));
    runs[workers].push_back(Epoch(loader, 0));
    runs[workers].push_back(Epoch(loader, 1));
  }
  for (int workers : {1, 3}) {
    for (int e = 0; e < 2; ++e) {
      const auto& a = runs[0][e];
      const auto& b = runs[workers][e];
      ASSERT_EQ(a.size(), 10u);
      ASSERT_EQ(a.size(), b.size());
      for (size_t i = 0; i < a.size(); ++i) {
        EXPECT_EQ(a[i].index, static_cast<int64_t>(i));
        EXPECT_EQ(a[i].sample_indices, b[i].sample_indices);
        EXPECT_EQ(a[i].labels, b[i].labels);
        EXPECT_EQ(a[i].data, b[i].data)
            << "workers " << workers << " epoch " << e << " batch " << i;
      }
    }
  }
  EXPECT_NE(runs[0][0][0].sample_indices, runs[0][1][0].sample_indices);  // reshuffled
}

// Side data: example i writes [i, u] as its extra floats, with the same rng draw as its image.
class FakeDatasetWithExtra : public FakeDataset {
 public:
  using FakeDataset::FakeDataset;
  int64_t extra_floats() const override { return 2; }
  int64_t GetIntoWithExtra(int64_t index, Rng& rng, float* out, float* extra) const override {
    const int64_t label = GetInto(index, rng, out);
    extra[0] = static_cast<float>(index) + 0.5f;
    extra[1] = out[1];
    return label;
  }
};

TEST(BatchLoaderTest, SideDataTravelsWithItsRow) {
  auto ds = std::make_shared<FakeDatasetWithExtra>(23);
  for (int workers : {0, 2}) {
    BatchLoader loader(ds, Opts(5, 0, 1, LastBatchPolicy::kKeepPartial, workers));
    int64_t rows = 0;
    for (const Batch& b : Epoch(loader, 3)) {
      ASSERT_EQ(b.extra_floats, 2);
      ASSERT_EQ(b.extra.size(), static_cast<size_t>(2 * b.size));
      for (int64_t r = 0; r < b.size; ++r) {
        EXPECT_EQ(b.extra[2 * r], static_cast<float>(b.sample_indices[r]) + 0.5f);
        EXPECT_EQ(b.extra[2 * r + 1], b.data[4 * r + 1]);  // the same augmentation draw
        ++rows;
      }
    }
    EXPECT_EQ(rows, 23);
  }
  // A dataset without side data has none.
  BatchLoader plain(std::make_shared<FakeDataset>(4), Opts(2, 0, 1, LastBatchPolicy::kKeepPartial));
  for (const Batch& b : Epoch(plain, 0)) {
    EXPECT_EQ(b.extra_floats, 0);
    EXPECT_TRUE(b.extra.empty());
  }
}

TEST(BatchLoaderTest, AugmentationOfASampleDoesNotDependOnSharding) {
  auto ds = std::make_shared<FakeDataset>(50);
  std::map<int64_t, float> single;
  BatchLoader one(ds, Opts(7, 0, 1, LastBatchPolicy::kKeepPartial));
  for (const Batch& b : Epoch(one, 3)) {
    for (int64_t r = 0; r < b.size; ++r) single[b.sample_indices[r]] = b.data[r * 4 + 1];
  }
  for (int rank = 0; rank < 2; ++rank) {
    BatchLoader part(ds, Opts(5, rank, 2, LastBatchPolicy::kKeepPartial, 2));
    for (const Batch& b : Epoch(part, 3)) {
      for (int64_t r = 0; r < b.size; ++r) {
        EXPECT_EQ(single.at(b.sample_indices[r]), b.data[r * 4 + 1]);
      }
    }
  }
}

TEST(BatchLoaderTest, WorkerErrorReachesNextAtItsBatch) {
  const int64_t bad = 37;
  for (int workers : {0, 3}) {
    auto ds = std::make_shared<FakeDataset>(100, bad);
    BatchLoaderOptions o = Opts(8, 0, 1, LastBatchPolicy::kKeepPartial, workers);
    int64_t valid = 0;
    const std::vector<int64_t> schedule = RankSchedule(100, o, 0, &valid);
    const int64_t bad_batch =
        (std::find(schedule.begin(), schedule.end(), bad) - schedule.begin()) / 8;
    BatchLoader loader(ds, o);
    for (int attempt = 0; attempt < 2; ++attempt) {  // a restarted epoch fails the same way
      loader.StartEpoch(0);
      for (int64_t b = 0; b < bad_batch; ++b) ASSERT_TRUE(loader.Next().has_value());
      try {
        loader.Next();
        FAIL() << "no error";
      } catch (const core::Error& e) {
        EXPECT_STREQ(e.what(), "sample_37: broken");
      }
      EXPECT_FALSE(loader.Next().has_value());  // the epoch ended
    }
  }
}

TEST(BatchLoaderTest, EarlyStopAndRestartAreCleanAndPrompt) {
  // 200 us per sample, 2,000,000 samples: a full epoch is 400 s of sample time (over 2 minutes
  // on 3 workers), so the 10 s bound below separates "stops promptly" from "finishes the epoch"
  // even on a machine busy with other work.
  auto ds = std::make_shared<FakeDataset>(2000000, -1, 200);
  const auto start = std::chrono::steady_clock::now();
  {
    BatchLoaderOptions o = Opts(64, 0, 1, LastBatchPolicy::kKeepPartial, 3);
    o.prefetch_batches = 6;
    BatchLoader loader(ds, o);
    loader.StartEpoch(0);
    ASSERT_TRUE(loader.Next().has_value());
    loader.StartEpoch(1);  // abandon epoch 0 midway
    std::optional<Batch> b = loader.Next();
    ASSERT_TRUE(b.has_value());
    EXPECT_EQ(b->epoch, 1);
    EXPECT_EQ(b->index, 0);
    int64_t valid = 0;
    const std::vector<int64_t> schedule = RankSchedule(2000000, o, 1, &valid);
    EXPECT_EQ(b->sample_indices, std::vector<int64_t>(schedule.begin(), schedule.begin() + 64));
  }  // destroyed with workers mid-batch and batches queued
  {
    BatchLoader never_started(ds, Opts(64, 0, 1, LastBatchPolicy::kKeepPartial, 2));
    EXPECT_FALSE(never_started.Next().has_value());
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 10.0);  // a full epoch would take 400 s of sample time
}

TEST(BatchLoaderTest, NextAfterEpochEndStaysEmpty) {
  auto ds = std::make_shared<FakeDataset>(10);
  BatchLoader loader(ds, Opts(4, 0, 1, LastBatchPolicy::kKeepPartial, 2));
  EXPECT_EQ(Epoch(loader, 0).size(), 3u);
  EXPECT_FALSE(loader.Next().has_value());
  EXPECT_FALSE(loader.Next().has_value());
  EXPECT_EQ(Epoch(loader, 1).size(), 3u);
}

}  // namespace
}  // namespace trainbench::data

namespace trainbench::data {
namespace {

TEST(LoaderOptions, TrainingShufflesAndDropsEvaluationKeepsOrderAndPads) {
  const BatchLoaderOptions t = TrainLoaderOptions(32, 99, 1, 4, 2);
  EXPECT_EQ(t.batch_size, 32);
  EXPECT_TRUE(t.shuffle);
  EXPECT_EQ(t.seed, 99u);
  EXPECT_EQ(t.rank, 1);
  EXPECT_EQ(t.world_size, 4);
  EXPECT_EQ(t.last_batch, LastBatchPolicy::kDrop);
  EXPECT_EQ(t.num_workers, 2);
  const BatchLoaderOptions e = EvalLoaderOptions(t, 100);
  EXPECT_EQ(e.batch_size, 100);
  EXPECT_FALSE(e.shuffle);
  EXPECT_EQ(e.last_batch, LastBatchPolicy::kPad);
  EXPECT_EQ(e.rank, 1);
  EXPECT_EQ(e.world_size, 4);
  EXPECT_EQ(e.seed, 99u);
  EXPECT_EQ(e.num_workers, 2);
}

}  // namespace
}  // namespace trainbench::data

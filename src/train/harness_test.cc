#include "train/harness.h"

#include <gtest/gtest.h>

#include <chrono>
#include <stdexcept>
#include <vector>

#include "core/error.h"
#include "core/log_reader.h"

namespace trainbench::train {
namespace {

using core::Json;

// A fake workload: each epoch takes `steps` steps of `batch` samples; Evaluate returns the
// next value of `evals` (the last one repeats).
class FakeWorkload : public Workload {
 public:
  std::vector<double> evals = {0.5, 0.7, 0.95};
  int steps = 4;
  int batch = 8;
  int throw_in_epoch = -1;
  std::vector<double> segm;  // non-empty: each evaluation also reports extra.segm_map
  bool log_dict = false;  // the logged value is {"BBOX": value, "SEGM": segm_map}, as Mask R-CNN's
  std::vector<std::string> calls;

  void Init(const RunContext& ctx) override {
    calls.push_back("init");
    seed_ = ctx.seed;
    world_size = ctx.world_size;
  }
  int world_size = 0;  // as Init saw it
  LoggedEvents LoggedHyperparameters() const override {
    return {{"opt_name", "sgd"},
            {"sgd_opt_momentum", 0.9},
            {"max_sequence_length", 64, {{"method", "discard"}}}};
  }
  LoggedEvents LoggedEpochFacts(int epoch) const override { return {{"games", 10 * epoch}}; }
  int64_t GlobalBatchSize() const override { return batch; }
  Json RuntimeProvenance() const override { return {{"framework", "fake"}}; }
  void LoadData() override { calls.push_back("load"); }
  int64_t TrainSamples() const override { return steps * batch; }
  int64_t EvalSamples() const override { return 100; }
  void TrainEpoch(int epoch, TrainControl& control) override {
    calls.push_back("train" + std::to_string(epoch));
    if (epoch == throw_in_epoch) throw std::runtime_error("boom in epoch " + std::to_string(epoch));
    for (int s = 0; s < steps; ++s) {
      if (!control.OnStep(batch, 1.0 / (s + 1))) return;
    }
  }
  EvalResult Evaluate(int epoch) override {
    calls.push_back("eval" + std::to_string(epoch));
    EvalResult r;
    if (!segm.empty()) r.extra["segm_map"] = segm[std::min<size_t>(evals_done_, segm.size() - 1)];
    r.value = evals[std::min<size_t>(evals_done_++, evals.size() - 1)];
    r.samples = 100;
    if (log_dict) r.logged = {{"BBOX", r.value}, {"SEGM", r.extra["segm_map"]}};
    return r;
  }

 private:
  uint64_t seed_ = 0;
  size_t evals_done_ = 0;
};

struct Fixture {
  core::BenchmarkDef def;
  core::ScaleDef scale;
  RunSettings settings;
  RunContext ctx;
  std::vector<std::string> lines;
  int64_t now = 1700000000000;
  core::Logger log{[this](const std::string& l) { lines.push_back(l); },
                   [this] { return now += 1000; }};

  Fixture() {
    def.name = "fake";
    def.log_name = "resnet";
    scale.scale = "mini";
    scale.metric = "top1";
    scale.quality_target = 0.9;
    scale.max_epochs = 5;
    scale.eval_every_epochs = 1;
    settings.benchmark = &def;
    settings.scale = &scale;
    settings.platform = "test";
    ctx.seed = 77;
    ctx.scale = &scale;
  }

  core::ParsedLog Parsed() const {
    std::string all;
    for (const auto& l : lines) all += l + "\n";
    std::istringstream in(all);
    return core::ParseLog(in, "mem");
  }
};

std::vector<std::string> Keys(const core::ParsedLog& log) {
  std::vector<std::string> k;
  for (const auto& r : log.records) k.push_back(r.key);
  return k;
}

TEST(Harness, StopsAtTheQualityTargetWithSuccess) {
  Fixture f;
  FakeWorkload w;
  RunOutcome o = RunBenchmark(w, f.ctx, f.settings, f.log, nullptr);
  EXPECT_TRUE(o.success);
  EXPECT_EQ(o.status, "success");
  EXPECT_EQ(o.epochs, 3);
  EXPECT_DOUBLE_EQ(o.last_eval, 0.95);
  auto log = f.Parsed();
  ASSERT_TRUE(log.errors.empty());
  auto keys = Keys(log);
  EXPECT_EQ(keys.front(), "cache_clear");
  EXPECT_EQ(keys.back(), "run_stop");
  EXPECT_EQ(log.records.back().metadata["status"], "success");
  // Order: submission_division < init_stop < run_start < first block_start.
  auto pos = [&](const std::string& k) {
    return std::find(keys.begin(), keys.end(), k) - keys.begin();
  };
  EXPECT_LT(pos("submission_division"), pos("init_stop"));
  EXPECT_LT(pos("init_stop"), pos("run_start"));
  EXPECT_LT(pos("run_start"), pos("train_samples"));
  EXPECT_LT(pos("train_samples"), pos("block_start"));
  EXPECT_EQ(log.FindAll("eval_accuracy").size(), 3u);
  EXPECT_EQ(log.FindAll("eval_accuracy")[2]->metadata["epoch_num"], 3);
  EXPECT_EQ(log.Find("seed")->value, 77);
  EXPECT_EQ(log.Find("opt_name")->value, "sgd");
  EXPECT_EQ(log.Find("global_batch_size")->value, 8);
  EXPECT_EQ(log.FindAll("epoch_stop")[0]->metadata["samples_count"], 32);
  EXPECT_EQ(log.Find("trainbench_provenance")->value["framework"], "fake");
  EXPECT_EQ(w.calls, (std::vector<std::string>{"init", "load", "train1", "eval1", "train2", "eval2",
                                               "train3", "eval3"}));
}

TEST(Harness, SuccessNeedsTheSecondaryTargetsInTheSameEvaluation) {
  Fixture f;
  f.scale.secondary_targets = {{"segm_map", 0.3}};
  FakeWorkload w;
  w.evals = {0.95, 0.95, 0.5, 0.95};  // the box metric is reached at once...
  w.segm = {0.1, 0.2, 0.4, 0.35};     // ...the mask metric in eval 3, when the box one is not
  RunOutcome o = RunBenchmark(w, f.ctx, f.settings, f.log, nullptr);
  EXPECT_TRUE(o.success);
  EXPECT_EQ(o.epochs, 4);
  auto log = f.Parsed();
  EXPECT_EQ(log.FindAll("eval_accuracy").size(), 4u);
  EXPECT_EQ(log.FindAll("eval_accuracy")[3]->metadata["segm_map"], 0.35);
  EXPECT_EQ(log.Find("trainbench_quality_target")->metadata["secondary_targets"]["segm_map"], 0.3);

  Fixture g;
  g.scale.secondary_targets = {{"segm_map", 0.3}};
  FakeWorkload missing;  // reports no segm_map: the run is aborted, not silently judged by box AP
  RunOutcome m = RunBenchmark(missing, g.ctx, g.settings, g.log, nullptr);
  EXPECT_FALSE(m.success);
  EXPECT_EQ(m.status, "aborted");
  EXPECT_NE(g.Parsed().records.back().metadata.dump().find("segm_map"), std::string::npos);
}

TEST(Harness, LogsTheWorkloadsValueShapeButJudgesItsMetrics) {
  Fixture f;
  f.scale.secondary_targets = {{"segm_map", 0.3}};
  FakeWorkload w;
  w.log_dict = true;
  w.evals = {0.95, 0.95};
  w.segm = {0.1, 0.4};
  RunOutcome o = RunBenchmark(w, f.ctx, f.settings, f.log, nullptr);
  EXPECT_TRUE(o.success);
  EXPECT_EQ(o.epochs, 2);
  EXPECT_DOUBLE_EQ(o.last_eval, 0.95);
  auto log = f.Parsed();
  ASSERT_TRUE(log.errors.empty());
  auto evals = log.FindAll("eval_accuracy");
  ASSERT_EQ(evals.size(), 2u);
  EXPECT_EQ(evals[0]->value, Json({{"BBOX", 0.95}, {"SEGM", 0.1}}));
  EXPECT_EQ(evals[1]->value, Json({{"BBOX", 0.95}, {"SEGM", 0.4}}));
  EXPECT_EQ(evals[1]->metadata["epoch_num"], 2);
  // Hyperparameters keep their metadata; epoch facts follow their epoch_stop, with epoch_num.
  EXPECT_EQ(log.Find("max_sequence_length")->metadata["method"], "discard");
  auto games = log.FindAll("games");
  ASSERT_EQ(games.size(), 2u);
  EXPECT_EQ(games[1]->value, 20);
  EXPECT_EQ(games[1]->metadata["epoch_num"], 2);
  auto keys = Keys(log);
  auto after = std::find(keys.begin(), keys.end(), "epoch_stop");
  ASSERT_NE(after, keys.end());
  EXPECT_EQ(std::find(after, keys.end(), "games") - after, 2);  // epoch_stop, tracked_stats, games
}

// A workload whose epochs keep a core busy for ~50 ms, so the CPU clock ticks (10 ms) advance.
class BusyWorkload : public FakeWorkload {
 public:
  void TrainEpoch(int epoch, TrainControl& control) override {
    auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(50);
    volatile double x = 0;
    while (std::chrono::steady_clock::now() < end) x = x + 1.0;
    FakeWorkload::TrainEpoch(epoch, control);
  }
};

TEST(Harness, LogsTheCpuSharesOfTheTimedRegionBeforeRunStop) {
  Fixture f;
  BusyWorkload w;
  RunOutcome o = RunBenchmark(w, f.ctx, f.settings, f.log, nullptr);
  auto log = f.Parsed();
  ASSERT_GE(log.records.size(), 2u);
  const auto& share = log.records[log.records.size() - 2];
  ASSERT_EQ(share.key, "trainbench_cpu_share");
  for (const char* k : {"own", "other"}) {
    ASSERT_TRUE(share.value[k].is_number()) << k;
    EXPECT_GE(share.value[k].get<double>(), 0.0) << k;
    EXPECT_LE(share.value[k].get<double>(), 1.0) << k;
  }
  EXPECT_DOUBLE_EQ(o.other_cpu_share, share.value["other"].get<double>());
}

TEST(Harness, EpochLimitEndsAborted) {
  Fixture f;
  FakeWorkload w;
  w.evals = {0.1};
  RunOutcome o = RunBenchmark(w, f.ctx, f.settings, f.log, nullptr);
  EXPECT_FALSE(o.success);
  EXPECT_EQ(o.reason, "epoch limit reached");
  EXPECT_EQ(o.epochs, 5);
  auto log = f.Parsed();
  EXPECT_EQ(log.records.back().key, "run_stop");
  EXPECT_EQ(log.records.back().metadata["status"], "aborted");
}

TEST(Harness, EvalCadenceGroupsEpochsIntoBlocks) {
  Fixture f;
  f.scale.eval_every_epochs = 2;
  FakeWorkload w;
  w.evals = {0.5, 0.95};
  RunOutcome o = RunBenchmark(w, f.ctx, f.settings, f.log, nullptr);
  EXPECT_TRUE(o.success);
  EXPECT_EQ(o.epochs, 4);
  auto log = f.Parsed();
  auto blocks = log.FindAll("block_start");
  ASSERT_EQ(blocks.size(), 2u);
  EXPECT_EQ(blocks[1]->metadata["first_epoch_num"], 3);
  EXPECT_EQ(blocks[1]->metadata["epoch_count"], 2);
  EXPECT_EQ(log.FindAll("eval_accuracy")[0]->metadata["epoch_num"], 2);
}

TEST(Harness, StepBudgetEndsTheRunAfterAnEvaluation) {
  Fixture f;
  f.settings.max_steps = 6;
  FakeWorkload w;
  w.evals = {0.1};
  RunOutcome o = RunBenchmark(w, f.ctx, f.settings, f.log, nullptr);
  EXPECT_FALSE(o.success);
  EXPECT_EQ(o.reason, "step budget spent");
  EXPECT_EQ(o.epochs, 2);
  auto log = f.Parsed();
  // Epoch 1 runs whole (4 steps), epoch 2 stops after 2 more; both are evaluated.
  ASSERT_EQ(log.FindAll("eval_accuracy").size(), 2u);
  EXPECT_EQ(log.FindAll("eval_accuracy")[1]->metadata["epoch_num"], 2);
  EXPECT_EQ(log.FindAll("epoch_stop")[1]->metadata["samples_count"], 16);
}

TEST(Harness, ExceptionInTrainingIsRecordedAsAborted) {
  Fixture f;
  FakeWorkload w;
  w.evals = {0.1};
  w.throw_in_epoch = 2;
  RunOutcome o = RunBenchmark(w, f.ctx, f.settings, f.log, nullptr);
  EXPECT_FALSE(o.success);
  EXPECT_EQ(o.reason, "error");
  auto log = f.Parsed();
  const auto& last = log.records.back();
  EXPECT_EQ(last.key, "run_stop");
  EXPECT_EQ(last.metadata["status"], "aborted");
  EXPECT_EQ(last.metadata["error"], "boom in epoch 2");
}

TEST(Harness, InterruptStopsWithoutEvaluating) {
  Fixture f;
  FakeWorkload w;
  std::atomic<bool> interrupt{true};
  RunOutcome o = RunBenchmark(w, f.ctx, f.settings, f.log, &interrupt);
  EXPECT_TRUE(o.interrupted);
  EXPECT_EQ(o.status, "aborted");
  auto log = f.Parsed();
  EXPECT_TRUE(log.FindAll("eval_accuracy").empty());
  EXPECT_EQ(log.records.back().metadata["status"], "aborted");
}

// The setup hook runs before Init and may complete the context (the launcher connects the
// data-parallel group there); a world size > 1 is logged with the per-rank batch.
TEST(Harness, SetupCompletesTheContextAndTheWorldSizeIsLogged) {
  Fixture f;
  FakeWorkload w;
  f.settings.setup = [](RunContext& c) {
    c.world_size = 2;
    c.dist_info = Json{{"backend", "fake"}};
  };
  RunOutcome o = RunBenchmark(w, f.ctx, f.settings, f.log, nullptr);
  EXPECT_TRUE(o.success);
  EXPECT_EQ(w.world_size, 2);
  auto log = f.Parsed();
  const auto* d = log.Find("trainbench_dist");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->value["world_size"], 2);
  EXPECT_EQ(d->value["backend"], "fake");
  EXPECT_EQ(d->value["global_batch_size"], 8);
  EXPECT_EQ(d->value["per_rank_batch_size"], 4);
  EXPECT_EQ(log.Find("trainbench_config_effective")->value["world_size"], 2);
}

TEST(Harness, OneProcessLogsNoDistEvent) {
  Fixture f;
  FakeWorkload w;
  RunBenchmark(w, f.ctx, f.settings, f.log, nullptr);
  EXPECT_EQ(f.Parsed().Find("trainbench_dist"), nullptr);
}

// A failing setup (the other ranks never connected) is an init failure, logged with its reason.
TEST(Harness, SetupFailureEndsTheRunAsAbortedBeforeInit) {
  Fixture f;
  FakeWorkload w;
  f.settings.setup = [](RunContext&) { throw core::Error("rank 0 of 2 could not connect"); };
  RunOutcome o = RunBenchmark(w, f.ctx, f.settings, f.log, nullptr);
  EXPECT_EQ(o.reason, "init failed");
  EXPECT_EQ(o.error, "rank 0 of 2 could not connect");
  EXPECT_TRUE(w.calls.empty());
  auto log = f.Parsed();
  EXPECT_EQ(log.records.back().metadata["status"], "aborted");
  EXPECT_EQ(log.records.back().metadata["error"], "rank 0 of 2 could not connect");
}

}  // namespace
}  // namespace trainbench::train

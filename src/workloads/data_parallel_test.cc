// Data parallelism in the real workloads: evaluation sharded over 2 ranks gives the same
// result as on 1 (every sample evaluated exactly once, the sums reduced) from the same initial
// weights (exactly); for NCF also after a few data-parallel training steps, where the 2-rank
// and 1-process weights agree to float tolerance (a tie flip may move one user).
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "core/benchmark_def.h"
#include "core/paths.h"
#include "data/idx_reader.h"
#include "data/ratings_csv.h"
#include "data/synthetic_ratings.h"
#include "dist/test_util.h"
#include "workloads/registry.h"

namespace trainbench::workloads {
namespace {

using dist::testing::ExpectAllOk;
using dist::testing::ForkRanks;
using dist::testing::TempPath;

// Stops the epoch after `steps` steps.
class StepBudget : public train::TrainControl {
 public:
  explicit StepBudget(int steps) : left_(steps) {}
  bool OnStep(int64_t, double) override { return --left_ > 0; }

 private:
  int left_;
};

struct EvalPair {
  double at_init = 0, after_training = 0;
  int64_t samples = 0;
};

// Runs Init, LoadData, Evaluate, `steps` training steps, Evaluate on every rank; rank 0 writes
// the results to `out`.
int EvaluateOnRanks(std::shared_ptr<dist::ProcessGroup> g, const std::string& benchmark,
                    const std::string& data_dir,
                    const std::map<std::string, std::string>& overrides, int steps,
                    const std::string& out) {
  core::BenchmarkDef def = core::FindBenchmark(core::BenchmarksDir(), benchmark);
  train::RunContext ctx;
  ctx.benchmark = benchmark;
  ctx.scale = &def.Scale("mini");
  ctx.config = core::ResolveConfig(*ctx.scale, overrides, core::Division::kClosed).effective;
  ctx.data_dir = data_dir;
  ctx.seed = 11;
  ctx.threads = 1;
  ctx.loader_threads = 0;
  ctx.rank = g->rank();
  ctx.world_size = g->size();
  if (g->size() > 1) ctx.group = g;
  auto w = CreateWorkload(benchmark, *ctx.scale);
  w->Init(ctx);
  w->LoadData();
  train::EvalResult a = w->Evaluate(0);
  StepBudget budget(steps);
  w->TrainEpoch(1, budget);
  train::EvalResult b = w->Evaluate(1);
  if (g->rank() == 0) {
    std::ofstream f(out);
    f.precision(17);
    f << a.value << " " << b.value << " " << a.samples << "\n";
  }
  return a.samples == b.samples ? 0 : 1;
}

EvalPair Read(const std::string& path) {
  EvalPair p;
  std::ifstream f(path);
  f >> p.at_init >> p.after_training >> p.samples;
  return p;
}

void CompareOneAndTwoRanks(const std::string& benchmark, const std::string& data_dir,
                           const std::map<std::string, std::string>& overrides, int steps,
                           int64_t samples, double tolerance) {
  const std::string one = TempPath(benchmark + "_1"), two = TempPath(benchmark + "_2");
  auto run = [&](const std::string& out) {
    return [&, out](std::shared_ptr<dist::ProcessGroup> g) {
      return EvaluateOnRanks(g, benchmark, data_dir, overrides, steps, out);
    };
  };
  ExpectAllOk(ForkRanks(1, run(one), 60, 300));
  ExpectAllOk(ForkRanks(2, run(two), 60, 300));
  EvalPair a = Read(one), b = Read(two);
  EXPECT_EQ(a.samples, samples);
  EXPECT_EQ(b.samples, samples) << "every evaluation sample exactly once over the ranks";
  EXPECT_EQ(a.at_init, b.at_init);
  // tolerance < 0: the training is not equivalent by design (per-rank BatchNorm statistics).
  if (tolerance >= 0) EXPECT_NEAR(a.after_training, b.after_training, tolerance);
  EXPECT_NE(a.at_init, a.after_training) << "training changed the model";
}

TEST(DataParallelEvaluation, RecommendationTwoRanksEqualOne) {
  const std::string dir = TempPath("ratings");
  std::filesystem::create_directories(dir);
  data::SyntheticRatingsOptions o;
  o.num_users = 301;  // odd: the ranks' user shares differ by one
  o.num_items = 1500;
  o.max_ratings_per_user = 200;
  data::WriteRatingsCsv(data::RatingsCsvPath(dir), data::GenerateSyntheticRatings(o));
  // Batch 1000: the ranks' shares of the last, short batch differ too.
  CompareOneAndTwoRanks("recommendation", dir, {{"batch_size", "1000"}}, 8, 301, 1.0 / 301 + 1e-12);
}

TEST(DataParallelEvaluation, ImageClassificationTwoRanksEqualOne) {
  core::BenchmarkDef def = core::FindBenchmark(core::BenchmarksDir(), "image_classification");
  const std::string real = def.Scale("mini").data_dir;
  if (!std::filesystem::exists(real))
    GTEST_SKIP() << real << " missing (Debian dataset-fashion-mnist)";
  // The real images, a shorter split each (the evaluation of all 10,000 test images four times
  // took a minute on one thread): 2,048 training and 1,001 test images, an odd count so that
  // the ranks' shares differ.
  const std::string dir = TempPath("fashion_short");
  std::filesystem::create_directories(dir);
  for (const auto& [split, n] : {std::pair<const char*, int64_t>{"train", 2048}, {"t10k", 1001}}) {
    const data::MnistSplit full = data::LoadMnistSplit(real, split);
    const int64_t pixels = int64_t{full.rows} * full.cols;
    data::WriteIdxFile(dir + "/" + split + "-images-idx3-ubyte", {n, full.rows, full.cols},
                       {full.images.begin(), full.images.begin() + n * pixels}, false);
    data::WriteIdxFile(dir + "/" + split + "-labels-idx1-ubyte", {n},
                       {full.labels.begin(), full.labels.begin() + n}, false);
  }
  // BatchNorm normalises with per-rank batch statistics (MLPerf's model_bn_span), so 2 ranks
  // train a slightly different model than 1 process: only the evaluation at the same weights
  // must agree (exactly).
  CompareOneAndTwoRanks("image_classification", dir, {}, 2, 1001, -1);
}

}  // namespace
}  // namespace trainbench::workloads

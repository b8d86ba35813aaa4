// The data-parallel equivalence: with a fixed seed, 2 ranks with batch B each reach the same
// parameters after k steps as 1 process with batch 2B (to float tolerance), for dense
// gradients (an MLP with SGD+momentum; buckets overlapped or not, one bucket or many) and for
// sparse ones (NeuMF's embeddings with LazyAdam).
#include "dist/gradient_reducer.h"

#include <gtest/gtest.h>

#include "dist/test_util.h"
#include "models/neumf.h"
#include "training/lazy_adam.h"

namespace trainbench::dist {
namespace {

using testing::ExpectAllOk;
using testing::ForkRanks;
using testing::TempPath;

constexpr int kSteps = 6;
constexpr int64_t kBatch = 16;  // per rank; the single process takes 2 * kBatch

// Rows of this rank's share of a global batch of `global` rows.
std::pair<int64_t, int64_t> Share(int64_t global, int rank, int world) {
  return {global * rank / world, global * (rank + 1) / world};
}

struct Mlp : torch::nn::Module {
  Mlp() {
    a = register_module("a", torch::nn::Linear(8, 32));
    b = register_module("b", torch::nn::Linear(32, 32));
    c = register_module("c", torch::nn::Linear(32, 3));
  }
  torch::Tensor forward(torch::Tensor x) { return c(torch::tanh(b(torch::relu(a(x))))); }
  torch::nn::Linear a{nullptr}, b{nullptr}, c{nullptr};
};

// Trains the MLP for kSteps on a fixed data stream; each rank uses its share of every global
// batch. Saves the parameters to `out` (rank 0 only).
int TrainMlp(std::shared_ptr<ProcessGroup> g, const std::string& out, GradientReducerOptions ro) {
  torch::manual_seed(g->rank() == 0 ? 1 : 99);  // different inits: the broadcast must fix that
  Mlp model;
  BroadcastModuleState(*g, model, 0);
  std::unique_ptr<GradientReducer> reducer;
  if (g->size() > 1)
    reducer =
        std::make_unique<GradientReducer>(g, model.parameters(), std::vector<torch::Tensor>{}, ro);
  torch::optim::SGD opt(model.parameters(),
                        torch::optim::SGDOptions(0.1).momentum(0.9).weight_decay(1e-4));
  torch::Generator gen = at::detail::createCPUGenerator(1234);
  for (int step = 0; step < kSteps; ++step) {
    torch::Tensor x = torch::randn({2 * kBatch, 8}, gen);
    torch::Tensor y = torch::randint(0, 3, {2 * kBatch}, gen);
    auto [lo, hi] = Share(2 * kBatch, g->rank(), g->size());
    torch::Tensor loss =
        torch::nn::functional::cross_entropy(model.forward(x.slice(0, lo, hi)), y.slice(0, lo, hi));
    opt.zero_grad();
    if (reducer) reducer->Prepare();
    loss.backward();
    if (reducer) reducer->Finish();
    opt.step();
  }
  CheckReplicasIdentical(*g, model.parameters(), "mlp");
  if (reducer && reducer->stats().steps != kSteps) return 2;
  if (g->rank() == 0) torch::save(model.parameters(), out);
  return 0;
}

std::vector<torch::Tensor> Load(const std::string& path) {
  std::vector<torch::Tensor> v;
  torch::load(v, path);
  return v;
}

void ExpectClose(const std::vector<torch::Tensor>& a, const std::vector<torch::Tensor>& b,
                 double tol) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t k = 0; k < a.size(); ++k) {
    double diff = (a[k] - b[k]).abs().max().item<double>();
    EXPECT_LT(diff, tol) << "parameter " << k;
  }
}

class MlpEquivalence : public ::testing::TestWithParam<std::pair<int64_t, bool>> {};

TEST_P(MlpEquivalence, TwoRanksMatchOneProcessWithTheDoubleBatch) {
  GradientReducerOptions ro;
  ro.bucket_bytes = GetParam().first;
  ro.overlap = GetParam().second;
  const std::string one = TempPath("mlp1.pt"), two = TempPath("mlp2.pt");
  ExpectAllOk(ForkRanks(1, [&](std::shared_ptr<ProcessGroup> g) { return TrainMlp(g, one, ro); }));
  ExpectAllOk(ForkRanks(2, [&](std::shared_ptr<ProcessGroup> g) { return TrainMlp(g, two, ro); }));
  auto a = Load(one), b = Load(two);
  ExpectClose(a, b, 1e-5);
  // Training moved the weights (the comparison is not between two untouched inits).
  torch::manual_seed(1);
  Mlp fresh;
  EXPECT_GT((fresh.parameters()[0] - a[0]).abs().max().item<double>(), 1e-3);
}

INSTANTIATE_TEST_SUITE_P(
    Buckets, MlpEquivalence,
    ::testing::Values(std::make_pair<int64_t, bool>(4 << 20, true),  // one bucket
                      std::make_pair<int64_t, bool>(512, true),      // one per tensor
                      std::make_pair<int64_t, bool>(2048, false)));  // not overlapped

TEST(GradientReducer, BucketsFollowReverseParameterOrder) {
  Mlp model;
  GradientReducerOptions ro;
  ro.bucket_bytes = 33 * 32 * 4;  // b.weight + b.bias fit together; a does not fit with them
  GradientReducer r(MakeLocalGroup(), model.parameters(), {}, ro);
  // Parameters: a.w(0) a.b(1) b.w(2) b.b(3) c.w(4) c.b(5).
  ASSERT_GE(r.bucket_params().size(), 2u);
  EXPECT_EQ(r.bucket_params()[0].front(), 5u);
  EXPECT_EQ(r.bucket_params().back().back(), 0u);
}

// A parameter one rank does not use in a step gets that rank's zero contribution.
TEST(GradientReducer, UnusedParameterContributesZeros) {
  ExpectAllOk(ForkRanks(2, [](std::shared_ptr<ProcessGroup> g) {
    torch::Tensor p = torch::ones({4}, torch::requires_grad());
    torch::Tensor q = torch::ones({4}, torch::requires_grad());
    GradientReducer r(g, {p, q});
    r.Prepare();
    torch::Tensor loss = g->rank() == 0 ? (p * 2).sum() + (q * 3).sum() : (p * 4).sum();
    loss.backward();
    r.Finish();
    if (!torch::allclose(p.grad(), torch::full({4}, 3.0f))) return 1;  // (2 + 4) / 2
    if (!torch::allclose(q.grad(), torch::full({4}, 1.5f))) return 2;  // (3 + 0) / 2
    return 0;
  }));
}

// NeuMF with sparse embedding gradients and LazyAdam, or dense ones and Adam.
int TrainNeuMF(std::shared_ptr<ProcessGroup> g, const std::string& out, bool sparse) {
  torch::manual_seed(7);
  models::NeuMF model(
      models::NeuMFOptions(60, 40).mf_dim(4).mlp_layer_sizes({16, 8}).sparse_embeddings(sparse));
  std::vector<torch::Tensor> sparse_params;
  if (sparse) {
    sparse_params = {model->mf_user_embed->weight, model->mf_item_embed->weight,
                     model->mlp_user_embed->weight, model->mlp_item_embed->weight};
  }
  BroadcastModuleState(*g, *model, 0);
  std::unique_ptr<GradientReducer> reducer;
  if (g->size() > 1)
    reducer = std::make_unique<GradientReducer>(g, model->parameters(), sparse_params);
  training::LazyAdam opt(model->parameters(), training::LazyAdamOptions{1e-2, 0.9, 0.999, 1e-8});
  torch::Generator gen = at::detail::createCPUGenerator(55);
  for (int step = 0; step < kSteps; ++step) {
    torch::Tensor u = torch::randint(0, 60, {2 * kBatch}, gen);
    torch::Tensor i = torch::randint(0, 40, {2 * kBatch}, gen);
    torch::Tensor y = torch::randint(0, 2, {2 * kBatch}, gen).to(torch::kFloat32);
    auto [lo, hi] = Share(2 * kBatch, g->rank(), g->size());
    torch::Tensor loss = torch::binary_cross_entropy_with_logits(
        model->forward(u.slice(0, lo, hi), i.slice(0, lo, hi)), y.slice(0, lo, hi));
    opt.ZeroGrad();
    if (reducer) reducer->Prepare();
    loss.backward();
    if (reducer) reducer->Finish();
    if (sparse && !model->mf_user_embed->weight.grad().is_sparse()) return 3;
    opt.Step();
  }
  CheckReplicasIdentical(*g, model->parameters(), "neumf");
  if (g->rank() == 0) torch::save(model->parameters(), out);
  return 0;
}

class NeuMFEquivalence : public ::testing::TestWithParam<bool> {};

TEST_P(NeuMFEquivalence, TwoRanksMatchOneProcessWithTheDoubleBatch) {
  const bool sparse = GetParam();
  const std::string one = TempPath("ncf1.pt"), two = TempPath("ncf2.pt");
  ExpectAllOk(
      ForkRanks(1, [&](std::shared_ptr<ProcessGroup> g) { return TrainNeuMF(g, one, sparse); }));
  ExpectAllOk(
      ForkRanks(2, [&](std::shared_ptr<ProcessGroup> g) { return TrainNeuMF(g, two, sparse); }));
  ExpectClose(Load(one), Load(two), 1e-5);
}

INSTANTIATE_TEST_SUITE_P(SparseOrDense, NeuMFEquivalence, ::testing::Bool());

}  // namespace
}  // namespace trainbench::dist

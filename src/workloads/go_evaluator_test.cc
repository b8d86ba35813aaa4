#include "workloads/go_evaluator.h"

#include <gtest/gtest.h>

#include <cmath>

#include "training/memory_format.h"
#include "training/precision.h"

namespace trainbench::workloads {
namespace {

TEST(GoNetEvaluator, PriorsAndValuesForABatch) {
  torch::manual_seed(3);
  models::GoNet net(models::GoNetOptions().board_size(5).filters(8).blocks(1).value_fc(8));
  GoNetEvaluator e(net, torch::kCPU);
  go::Game g(5, 7.5);
  go::Position a = go::Position::Of(g);
  g.Play(go::Board::Index(2, 2));
  go::Position b = go::Position::Of(g);
  std::vector<go::Evaluation> out;
  e.Evaluate({&a, &b}, &out);
  ASSERT_EQ(out.size(), 2u);
  for (const auto& ev : out) {
    ASSERT_EQ(ev.priors.size(), 26u);
    double sum = 0;
    for (float x : ev.priors) sum += x;
    EXPECT_NEAR(sum, 1.0, 1e-5);
    EXPECT_LE(std::fabs(ev.value), 1.0f);
  }
  // Different positions, different outputs; the same position twice, the same output.
  EXPECT_NE(out[0].priors, out[1].priors);
  std::vector<go::Evaluation> again;
  e.Evaluate({&b}, &again);
  EXPECT_EQ(again[0].priors, out[1].priors);
  EXPECT_EQ(e.positions_evaluated(), 3);
}

TEST(GoNetEvaluator, DrivesASearch) {
  torch::manual_seed(4);
  models::GoNet net(models::GoNetOptions().board_size(5).filters(8).blocks(1).value_fc(8));
  GoNetEvaluator e(net, torch::kCPU);
  go::MctsOptions o;
  o.readouts = 32;
  o.batch = 8;
  go::Mcts m(e, o);
  go::SearchResult r = m.Search(go::Position::Of(go::Game(5, 7.5)));
  EXPECT_EQ(r.readouts, 32);
  EXPECT_EQ(r.evaluator_calls, 1 + 32 / 8);
  EXPECT_EQ(e.positions_evaluated(), 33);
}

// The search's options: NHWC planes for a network converted to channels-last give the NCHW
// network's output; under bf16 autocast the priors and values come back as fp32, close to the
// fp32 ones (bf16 keeps 8 bits of mantissa).
TEST(GoNetEvaluator, ChannelsLastAndBf16AutocastKeepTheOutputs) {
  torch::manual_seed(5);
  models::GoNet net(models::GoNetOptions().board_size(5).filters(8).blocks(1).value_fc(8));
  torch::manual_seed(5);
  models::GoNet nhwc(models::GoNetOptions().board_size(5).filters(8).blocks(1).value_fc(8));
  training::ToChannelsLast(*nhwc);
  go::Game g(5, 7.5);
  g.Play(go::Board::Index(1, 2));
  g.Play(go::Board::Index(3, 3));
  go::Position a = go::Position::Of(g), b = go::Position::Of(go::Game(5, 7.5));
  std::vector<go::Evaluation> ref, cl, bf;
  GoNetEvaluator(net, torch::kCPU).Evaluate({&a, &b}, &ref);
  GoNetEvaluator(nhwc, torch::kCPU, go::Position::kHistory, true).Evaluate({&a, &b}, &cl);
  {
    training::AutocastScope bf16(torch::kCPU, torch::kBFloat16);
    GoNetEvaluator(nhwc, torch::kCPU, go::Position::kHistory, true).Evaluate({&a, &b}, &bf);
  }
  ASSERT_EQ(cl.size(), 2u);
  ASSERT_EQ(bf.size(), 2u);
  double bf_diff = 0;
  for (size_t k = 0; k < 2; ++k) {
    ASSERT_EQ(cl[k].priors.size(), 26u);
    ASSERT_EQ(bf[k].priors.size(), 26u);
    EXPECT_NEAR(cl[k].value, ref[k].value, 1e-5);
    EXPECT_NEAR(bf[k].value, ref[k].value, 0.05);
    double sum = 0;
    for (size_t m = 0; m < 26; ++m) {
      EXPECT_NEAR(cl[k].priors[m], ref[k].priors[m], 1e-5);
      EXPECT_NEAR(bf[k].priors[m], ref[k].priors[m], 0.02);
      bf_diff += std::fabs(bf[k].priors[m] - ref[k].priors[m]);
      sum += bf[k].priors[m];
    }
    EXPECT_NEAR(sum, 1.0, 1e-5);
  }
  EXPECT_GT(bf_diff, 0.0) << "bf16 autocast should round somewhere (was it on?)";
}

}  // namespace
}  // namespace trainbench::workloads

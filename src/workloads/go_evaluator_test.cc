#include "workloads/go_evaluator.h"

#include <gtest/gtest.h>

#include <cmath>

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

}  // namespace
}  // namespace trainbench::workloads

#include "go/mcts.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <set>

#include "go/features.h"

namespace trainbench::go {
namespace {

// A fake network: uniform priors; value = tanh(area margin / 5) for the player to move.
class ScoreEvaluator : public Evaluator {
 public:
  void Evaluate(const std::vector<const Position*>& ps, std::vector<Evaluation>* out) override {
    out->clear();
    batches.push_back({});
    for (const Position* p : ps) {
      const int n = p->board.size();
      Evaluation e;
      e.priors.assign(n * n + 1, 1.0f);
      double s = p->board.Score(p->komi);
      e.value = static_cast<float>(std::tanh((p->to_play == kBlack ? s : -s) / 5.0));
      out->push_back(e);
      batches.back().push_back(p->board.hash() ^ static_cast<uint64_t>(p->to_play));
    }
  }
  std::vector<std::vector<uint64_t>> batches;
};

Position From(const std::string& text, Color to_play, int passes = 0, double komi = 7.5) {
  Position p;
  p.board = Board::FromText(text);
  p.to_play = to_play;
  p.passes = passes;
  p.komi = komi;
  return p;
}

const char* kAtari =
    "OOOO.\n"
    "XXXXX\n"
    ".....\n"
    ".....\n"
    ".....\n";

TEST(Mcts, UniformPriorFindsTheCaptureThatWins) {
  for (uint64_t seed : {1, 2, 3}) {
    ScoreEvaluator net;
    MctsOptions o;
    o.readouts = 200;
    o.seed = seed;
    Mcts m(net, o);
    SearchResult r = m.Search(From(kAtari, kBlack));
    EXPECT_EQ(r.move, Board::Index(0, 4)) << "seed " << seed;
    EXPECT_EQ(r.readouts, 200);
    EXPECT_GT(r.visits[Position::MoveIndex(Board::Index(0, 4), 5)], 0.2f);
  }
}

TEST(Mcts, FinishedGamesAreScoredExactly) {
  // The opponent has passed: passing ends the game. Black, winning, passes to take the win...
  ScoreEvaluator net;
  MctsOptions o;
  o.readouts = 100;
  Mcts m(net, o);
  SearchResult win = m.Search(From(kAtari, kBlack, /*passes=*/1));
  EXPECT_EQ(win.move, kPass);
  EXPECT_GT(win.visits.back(), 0.5f);  // the exact +1 of the finished game dominates
  // ...while white, losing, must not pass (that would end the game lost).
  ScoreEvaluator net2;
  Mcts m2(net2, o);
  SearchResult lose = m2.Search(From(kAtari, kWhite, /*passes=*/1, /*komi=*/7.5));
  EXPECT_NE(lose.move, kPass);
  EXPECT_LT(lose.visits.back(), 0.05f);
}

TEST(Mcts, NoPassBeforeTheAllowedMove) {
  // The same won position as above: black passes to win at once, unless passing is not yet
  // allowed at this move number; then the pass gets no visit at all.
  ScoreEvaluator net;
  MctsOptions o;
  o.readouts = 100;
  o.pass_allowed_from_move = 10;
  Position p = From(kAtari, kBlack, /*passes=*/1);
  p.move_number = 9;
  SearchResult early = Mcts(net, o).Search(p);
  EXPECT_NE(early.move, kPass);
  EXPECT_EQ(early.visits.back(), 0.0f);
  p.move_number = 10;
  SearchResult later = Mcts(net, o).Search(p);
  EXPECT_EQ(later.move, kPass);
  // With no legal point left, the pass stays allowed: black has filled the board but its
  // own eyes (both single-point eyes: filling either is legal, but here they are suicide).
  Position full = From("X.XXX\nXXXXX\nXXXXX\nXXXXX\nXXX.X\n", kWhite);
  full.move_number = 0;
  SearchResult only = Mcts(net, o).Search(full);
  EXPECT_EQ(only.move, kPass);
  EXPECT_GT(only.readouts, 0);
}

TEST(Mcts, VirtualLossSpreadsEachBatchOverDistinctLeaves) {
  ScoreEvaluator net;
  MctsOptions o;
  o.readouts = 64;
  o.batch = 8;
  Mcts m(net, o);
  SearchResult r = m.Search(From(".....\n.....\n.....\n.....\n.....\n", kBlack, 0, 0.5));
  ASSERT_GE(net.batches.size(), 2u);
  EXPECT_EQ(net.batches[1].size(), 8u);
  std::set<uint64_t> distinct(net.batches[1].begin(), net.batches[1].end());
  EXPECT_EQ(distinct.size(), 8u);
  EXPECT_EQ(r.evaluator_calls, 1 + 64 / 8);
  float sum = 0;
  for (float v : r.visits) sum += v;
  EXPECT_NEAR(sum, 1.0f, 1e-5);
}

TEST(Mcts, NoiseAndTemperatureAreSeeded) {
  auto run = [](bool noise, int temperature, uint64_t seed) {
    ScoreEvaluator net;
    MctsOptions o;
    o.readouts = 48;
    o.root_noise = noise;
    o.temperature_moves = temperature;
    o.seed = seed;
    Mcts m(net, o);
    return m.Search(From(".....\n.....\n.....\n.....\n.....\n", kBlack, 0, 0.5));
  };
  // Same seed, same search; noise changes the visit distribution.
  EXPECT_EQ(run(true, 0, 5).visits, run(true, 0, 5).visits);
  EXPECT_NE(run(true, 0, 5).visits, run(false, 0, 5).visits);
  // Without temperature the most visited move is played, whatever the seed.
  EXPECT_EQ(run(false, 0, 1).move, run(false, 0, 2).move);
  // With temperature the move is sampled: several seeds give several moves.
  std::set<int> moves;
  for (uint64_t s = 1; s <= 12; ++s) moves.insert(run(false, 30, s).move);
  EXPECT_GT(moves.size(), 2u);
}

// Two searches driven step by step, their steps interleaved as in lockstep self-play, give the
// results of Search; a wrong number of evaluations or an early Finish is an error.
TEST(Mcts, StepByStepSearchesInterleavedGiveTheResultsOfSearch) {
  MctsOptions o;
  o.readouts = 40;
  o.batch = 4;
  o.root_noise = true;
  o.temperature_moves = 30;
  const Position a = From(".....\n.....\n..X..\n.....\n.....\n", kWhite, 0, 0.5);
  const Position b = From(kAtari, kBlack);
  ScoreEvaluator whole;
  MctsOptions oa = o, ob = o;
  oa.seed = 3;
  ob.seed = 4;
  const SearchResult ra = Mcts(whole, oa).Search(a), rb = Mcts(whole, ob).Search(b);
  Mcts ma(oa), mb(ob);
  ma.Begin(a);
  mb.Begin(b);
  ScoreEvaluator steps;
  std::vector<Evaluation> ea, eb;
  while (!ma.Pending().empty() || !mb.Pending().empty()) {
    if (!ma.Pending().empty()) {
      steps.Evaluate(ma.Pending(), &ea);
      ma.Provide(ea.data(), ea.size());
    }
    if (!mb.Pending().empty()) {
      steps.Evaluate(mb.Pending(), &eb);
      mb.Provide(eb.data(), eb.size());
    }
  }
  const SearchResult sa = ma.Finish(), sb = mb.Finish();
  EXPECT_EQ(sa.visits, ra.visits);
  EXPECT_EQ(sa.move, ra.move);
  EXPECT_EQ(sa.root_value, ra.root_value);
  EXPECT_EQ(sa.evaluator_calls, ra.evaluator_calls);
  EXPECT_EQ(sb.visits, rb.visits);
  EXPECT_EQ(sb.move, rb.move);
  // Misuse is a broken invariant (TB_CHECK: the process stops with the reason): a Finish with
  // evaluations pending, an evaluation short, a Search without an Evaluator.
  Mcts m(o);
  m.Begin(a);
  EXPECT_DEATH(m.Finish(), "Finish before the search is done");
  EXPECT_DEATH(m.Provide(ea.data(), 0), "wrong number of evaluations");
  EXPECT_DEATH(Mcts(o).Search(a), "without an Evaluator");
}

// AssignPlayed into a position that held another game is a copy followed by Play: the same
// board, player, passes, move number and input planes (all 8 moves of history).
TEST(Position, AssignPlayedIsCopyThenPlay) {
  std::mt19937 rng(3);
  for (int n : {5, 9}) {
    Position p;
    p.board = Board(n);
    Position reused;
    reused.board = Board(n);
    for (int k = 0; k < 30 && !reused.over(); ++k) {  // another game's position, with its history
      std::vector<int> legal = reused.board.LegalMoves(reused.to_play);
      reused.Play(legal.empty() ? kPass : legal[rng() % legal.size()]);
    }
    std::vector<float> want(static_cast<size_t>(FeaturePlanes(8)) * n * n), got(want.size());
    for (int move = 0; move < n * n && !p.over(); ++move) {
      std::vector<int> legal = p.board.LegalMoves(p.to_play);
      const int point = legal.empty() || rng() % 10 == 0 ? kPass : legal[rng() % legal.size()];
      Position played = p;
      played.Play(point);
      reused.AssignPlayed(p, point);
      ASSERT_TRUE(reused.board == played.board) << n << "x" << n << " move " << move;
      ASSERT_EQ(reused.board.hash(), played.board.hash());
      ASSERT_EQ(reused.board.ko_point(), played.board.ko_point());
      ASSERT_EQ(reused.to_play, played.to_play);
      ASSERT_EQ(reused.passes, played.passes);
      ASSERT_EQ(reused.move_number, played.move_number);
      ASSERT_EQ(reused.past_count, played.past_count);
      WriteFeatures(played, 8, want.data());
      WriteFeatures(reused, 8, got.data());
      ASSERT_EQ(got, want) << n << "x" << n << " move " << move;
      p = played;
    }
  }
}

// node_pool: one Mcts reusing its nodes over a game's searches (and over boards of two sizes)
// finds what fresh nodes find, search by search.
TEST(Mcts, NodePoolGivesTheSameSearches) {
  MctsOptions o;
  o.readouts = 48;
  o.batch = 4;
  o.root_noise = true;
  o.temperature_moves = 4;
  MctsOptions pooled = o;
  pooled.node_pool = true;
  ScoreEvaluator net_a, net_b;
  Mcts fresh(net_a, o), reused(net_b, pooled);
  int searches = 0;
  for (int n : {5, 9, 5}) {
    Position p;
    p.board = Board(n);
    for (int move = 0; move < 12 && !p.over(); ++move) {
      const SearchResult a = fresh.Search(p), b = reused.Search(p);
      ASSERT_EQ(b.visits, a.visits) << n << "x" << n << " move " << move;
      ASSERT_EQ(b.move, a.move);
      ASSERT_EQ(b.root_value, a.root_value);
      ASSERT_EQ(b.evaluator_calls, a.evaluator_calls);
      p.Play(a.move);
      ++searches;
    }
  }
  EXPECT_EQ(searches, 36);
}

}  // namespace
}  // namespace trainbench::go

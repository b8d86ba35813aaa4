#include "go/rollout.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace trainbench::go {
namespace {

Position From(const std::string& text, Color to_play, double komi) {
  Position p;
  p.board = Board::FromText(text);
  p.to_play = to_play;
  p.komi = komi;
  return p;
}

// A network stand-in: uniform priors and a constant value.
class Constant : public Evaluator {
 public:
  explicit Constant(float v) : v_(v) {}
  void Evaluate(const std::vector<const Position*>& ps, std::vector<Evaluation>* out) override {
    out->assign(ps.size(), Evaluation{std::vector<float>(26, 1.0f), v_});
  }

 private:
  float v_;
};

TEST(Playout, SettledBoardsScoreForThePlayerToMove) {
  // Black owns the board but two eyes: no playout can change that, whatever the seed.
  const char* black_alive = "X.XXX\nXXXXX\nXXXXX\nXXXXX\nXXX.X\n";
  std::mt19937_64 rng(3);
  for (int k = 0; k < 20; ++k) {
    EXPECT_EQ(PlayoutValue(From(black_alive, kBlack, 7.5), rng, 50), 1.0f);
    EXPECT_EQ(PlayoutValue(From(black_alive, kWhite, 7.5), rng, 50), -1.0f);
  }
  // An empty board with a huge komi: white wins every playout.
  const char* empty = ".....\n.....\n.....\n.....\n.....\n";
  for (int k = 0; k < 20; ++k) EXPECT_EQ(PlayoutValue(From(empty, kBlack, 30.5), rng, 50), -1.0f);
}

TEST(Playout, MixesTheNetworkValueWithThePlayout) {
  const char* black_alive = "X.XXX\nXXXXX\nXXXXX\nXXXXX\nXXX.X\n";
  Position p = From(black_alive, kWhite, 7.5);
  std::vector<const Position*> ps{&p};
  std::vector<Evaluation> out;
  Constant net(0.5f);
  PlayoutMixEvaluator none(net, 0.0f, 1, 50);
  none.Evaluate(ps, &out);
  EXPECT_FLOAT_EQ(out[0].value, 0.5f);
  PlayoutMixEvaluator half(net, 0.5f, 1, 50);
  half.Evaluate(ps, &out);
  EXPECT_FLOAT_EQ(out[0].value, 0.5f * 0.5f + 0.5f * -1.0f);  // white to move has lost
  EXPECT_EQ(out[0].priors.size(), 26u);
}

TEST(Playout, SameSeedSamePlayouts) {
  const char* open = "..X..\n.XO..\n..O..\n.....\n.....\n";
  auto values = [&](uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<float> v;
    for (int k = 0; k < 30; ++k) v.push_back(PlayoutValue(From(open, kBlack, 0.5), rng, 60));
    return v;
  };
  EXPECT_EQ(values(9), values(9));
  // An open position is not decided: over 30 playouts both sides win some.
  std::vector<float> v = values(9);
  EXPECT_GT(std::count(v.begin(), v.end(), 1.0f), 0);
  EXPECT_GT(std::count(v.begin(), v.end(), -1.0f), 0);
}

// The incremental list of empty points plays the scan's moves: from positions along random
// games on 5x5 and 9x9 (captures and ko included), the same final boards and values and the
// same random numbers used, seed by seed.
TEST(Playout, IncrementalEmptyListPlaysTheScansMoves) {
  int playouts = 0, captures = 0;
  for (int size : {5, 9}) {
    std::mt19937_64 game_rng(static_cast<uint64_t>(size));
    Position p;
    p.board = Board(size);
    for (int move = 0; move < 3 * size * size && !p.over(); ++move) {
      for (uint64_t seed = 1; seed <= 3; ++seed) {
        std::mt19937_64 a(seed * 1000 + static_cast<uint64_t>(move)), b = a;
        const Board scanned = PlayoutBoard(p, a, 2 * size * size, false);
        const Board listed = PlayoutBoard(p, b, 2 * size * size, true);
        ASSERT_TRUE(scanned == listed)
            << size << "x" << size << " move " << move << " seed " << seed << "\n"
            << scanned.ToText() << "\nvs\n"
            << listed.ToText();
        ASSERT_EQ(a(), b()) << "the two used different numbers of random draws";
        // PlayoutValue's board of this thread's earlier playouts (of the other size too).
        std::mt19937_64 va(seed), vb(seed);
        ASSERT_EQ(PlayoutValue(p, va, 2 * size * size, false),
                  PlayoutValue(p, vb, 2 * size * size, true));
        ASSERT_EQ(va(), vb());
        captures += scanned.captured_by(kBlack) + scanned.captured_by(kWhite) >
                    p.board.captured_by(kBlack) + p.board.captured_by(kWhite);
        ++playouts;
      }
      // The game goes on with one more random playout move.
      std::mt19937_64 step(static_cast<uint64_t>(move));
      const Board next = PlayoutBoard(p, step, 1, true);
      int played = kPass;
      for (int q = 0; q < kPoints; ++q) {
        if (p.board.OnBoard(q) && p.board.at(q) == kEmpty && next.at(q) != kEmpty) played = q;
      }
      p.Play(played);
    }
  }
  EXPECT_GT(playouts, 100);
  EXPECT_GT(captures, 10) << "the positions should include playouts with captures";
  // The value agrees too.
  std::mt19937_64 a(5), b(5);
  const char* open = "..X..\n.XO..\n..O..\n.....\n.....\n";
  for (int k = 0; k < 20; ++k)
    EXPECT_EQ(PlayoutValue(From(open, kBlack, 0.5), a, 60, false),
              PlayoutValue(From(open, kBlack, 0.5), b, 60, true));
}

}  // namespace
}  // namespace trainbench::go

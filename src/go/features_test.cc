#include "go/features.h"

#include <gtest/gtest.h>

#include <set>

namespace trainbench::go {
namespace {

TEST(Features, PlanesFollowTheMiniGoLayout) {
  Game g(5, 7.5);
  g.Play(Board::Index(2, 2));  // B C3
  g.Play(Board::Index(0, 0));  // W A5
  Position p = Position::Of(g);
  ASSERT_EQ(p.to_play, kBlack);
  EXPECT_EQ(p.past_count, 2);
  const int planes = FeaturePlanes(8);
  EXPECT_EQ(planes, 17);
  std::vector<float> f(planes * 25);
  WriteFeatures(p, 8, f.data());
  auto at = [&](int plane, int r, int c) { return f[plane * 25 + r * 5 + c]; };
  // t = 0: black (to move) at C3, white at A5.
  EXPECT_EQ(at(0, 2, 2), 1.0f);
  EXPECT_EQ(at(1, 0, 0), 1.0f);
  EXPECT_EQ(at(0, 0, 0), 0.0f);
  // t = 1 (before W A5): only the black stone; t = 2 (empty board): nothing.
  EXPECT_EQ(at(2, 2, 2), 1.0f);
  EXPECT_EQ(at(3, 0, 0), 0.0f);
  for (int k = 4; k < 16; ++k) {
    for (int i = 0; i < 25; ++i) EXPECT_EQ(f[k * 25 + i], 0.0f);
  }
  EXPECT_EQ(at(16, 3, 1), 1.0f);  // black to move
  // White to move: the planes swap roles and the colour plane is 0.
  g.Play(Board::Index(4, 4));
  Position q = Position::Of(g);
  WriteFeatures(q, 8, f.data());
  EXPECT_EQ(at(0, 0, 0), 1.0f);  // white's own stone
  EXPECT_EQ(at(1, 2, 2), 1.0f);
  EXPECT_EQ(at(16, 0, 0), 0.0f);
}

TEST(Features, HistoryMatchesReplay) {
  // MCTS positions (Play) and replayed ones (Of) carry the same history.
  Game g(5, 7.5);
  Position p = Position::Of(g);
  for (int pt : {Board::Index(1, 1), Board::Index(3, 3), kPass, Board::Index(2, 1)}) {
    g.Play(pt);
    p.Play(pt);
  }
  Position q = Position::Of(g);
  std::vector<float> a(17 * 25), b(17 * 25);
  WriteFeatures(p, 8, a.data());
  WriteFeatures(q, 8, b.data());
  EXPECT_EQ(a, b);
}

TEST(Features, EightDistinctSymmetries) {
  std::set<std::vector<int>> maps;
  for (int s = 0; s < 8; ++s) {
    std::vector<int> m;
    for (int i = 0; i < 26; ++i) m.push_back(SymmetricMoveIndex(i, 5, s));
    EXPECT_EQ(m[25], 25);  // pass
    maps.insert(m);
    // The plane transform and the move transform agree.
    std::vector<float> in(25, 0.0f), out(25, 0.0f);
    in[7] = 1.0f;
    ApplySymmetry(in.data(), 1, 5, s, out.data());
    EXPECT_EQ(out[SymmetricMoveIndex(7, 5, s)], 1.0f);
  }
  EXPECT_EQ(maps.size(), 8u);
}

}  // namespace
}  // namespace trainbench::go

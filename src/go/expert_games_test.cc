#include "go/expert_games.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "core/error.h"

namespace trainbench::go {
namespace {

TEST(GnuGoSelfPlay, IsDeterministicPerSeedAndLegal) {
  GnuGoOptions o;
  if (::access(o.binary.c_str(), X_OK) != 0)
    GTEST_SKIP() << o.binary << " missing (Debian package gnugo)";
  Game a = GnuGoSelfPlay(o, 3), b = GnuGoSelfPlay(o, 3), c = GnuGoSelfPlay(o, 4);
  EXPECT_GT(a.moves().size(), 20u);
  EXPECT_EQ(a.moves(), b.moves());
  EXPECT_NE(a.moves(), c.moves());
  EXPECT_TRUE(a.over());
}

TEST(PositionsOf, EveryMoveIsALabelledPosition) {
  const std::string path = ::testing::TempDir() + "/tb_go_positions.sgf";
  std::ofstream(path) << "(;SZ[5]KM[0.5];B[cc];W[bb];B[])\n(;SZ[5]AB[aa];W[ee])";
  auto ps = PositionsOf({path});
  ASSERT_EQ(ps.size(), 4u);
  EXPECT_EQ(ps[0].next, (Move{kBlack, Board::Index(2, 2)}));
  EXPECT_EQ(ps[0].game.moves().size(), 0u);
  EXPECT_EQ(ps[2].next.point, kPass);
  EXPECT_EQ(ps[2].game.board().at(1, 1), kWhite);
  EXPECT_EQ(ps[3].game.board().at(0, 0), kBlack);
  EXPECT_EQ(ps[3].game.to_play(), kBlack);  // no PL: black first, even with setup stones
  EXPECT_EQ(ps[3].source, path + ":2");
  std::ofstream(path) << "(;SZ[5];B[cc];W[cc])";
  try {
    PositionsOf({path});
    FAIL() << "no error";
  } catch (const core::Error& e) {
    EXPECT_NE(std::string(e.what()).find(path + ":1: move 2 (W[cc]): illegal: point occupied"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace trainbench::go

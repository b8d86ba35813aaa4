#include "go/sgf.h"

#include <gtest/gtest.h>

#include "core/error.h"

namespace trainbench::go {
namespace {

std::string ErrorOf(const std::string& text) {
  try {
    for (const auto& r : ParseSgf(text, "g.sgf")) Replay(r, "g.sgf");
  } catch (const core::Error& e) {
    return e.what();
  }
  return "";
}

TEST(Coordinates, GtpAndSgf) {
  EXPECT_EQ(ParseGtpVertex("A1", 9), Board::Index(8, 0));
  EXPECT_EQ(ParseGtpVertex("j9", 9), Board::Index(0, 8));  // no I: J is the 9th column
  EXPECT_EQ(ParseGtpVertex("pass", 9), kPass);
  EXPECT_FALSE(ParseGtpVertex("I5", 9).has_value());
  EXPECT_FALSE(ParseGtpVertex("A10", 9).has_value());
  EXPECT_FALSE(ParseGtpVertex("K1", 9).has_value());
  EXPECT_EQ(GtpVertex(Board::Index(0, 8), 9), "J9");
  EXPECT_EQ(ParseSgfPoint("ca", 9), Board::Index(0, 2));
  EXPECT_EQ(ParseSgfPoint("", 9), kPass);
  EXPECT_EQ(ParseSgfPoint("tt", 9), kPass);
  EXPECT_FALSE(ParseSgfPoint("jj", 9).has_value());
  EXPECT_EQ(SgfPoint(Board::Index(2, 3)), "dc");
}

TEST(Sgf, ReadsAGameWithSetupAndPasses) {
  const std::string text =
      "(;GM[1]FF[4]SZ[9]KM[7.5]RU[Chinese]PB[gnugo]PW[trainbench \\] x]RE[W+2.5]\n"
      "AB[aa][bb]AW[cc]PL[W]\n"
      ";W[ee];B[dd]\n"
      ";W[];B[tt])";
  auto games = ParseSgf(text, "g.sgf");
  ASSERT_EQ(games.size(), 1u);
  const SgfRecord& r = games[0];
  EXPECT_EQ(r.size, 9);
  EXPECT_DOUBLE_EQ(r.komi, 7.5);
  EXPECT_EQ(r.white, "trainbench ] x");
  EXPECT_EQ(r.result, "W+2.5");
  EXPECT_EQ(r.first, kWhite);
  EXPECT_EQ(r.setup.size(), 3u);
  ASSERT_EQ(r.moves.size(), 4u);
  EXPECT_EQ(r.moves[0].move, (Move{kWhite, Board::Index(4, 4)}));
  EXPECT_EQ(r.moves[2].move.point, kPass);
  EXPECT_EQ(r.moves[3].move.point, kPass);
  EXPECT_EQ(r.moves[3].line, 4);
  Game g = Replay(r, "g.sgf");
  EXPECT_TRUE(g.over());
  EXPECT_EQ(g.board().at(0, 0), kBlack);
  EXPECT_EQ(g.board().at(2, 2), kWhite);
}

TEST(Sgf, RoundTrip) {
  Game g(9, 7.5);
  for (const char* v : {"E5", "C3", "G7", "C7", "G3", "pass", "D4", "pass", "pass"}) {
    ASSERT_TRUE(g.Play(*ParseGtpVertex(v, 9))) << v;
  }
  ASSERT_TRUE(g.over());
  std::string sgf = WriteSgf(g, "B player", "W[x]", "", "Chinese");
  auto r = ParseSgf(sgf, "mem");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].black, "B player");
  EXPECT_EQ(r[0].white, "W[x]");
  EXPECT_EQ(r[0].result, g.Result());
  Game back = Replay(r[0], "mem");
  EXPECT_EQ(back.moves(), g.moves());
  EXPECT_TRUE(back.board() == g.board());
  EXPECT_EQ(WriteSgf(back, "B player", "W[x]", "", "Chinese"), sgf);
}

TEST(Sgf, MainLineOfVariationsAndCollections) {
  auto games = ParseSgf("(;SZ[5];B[aa](;W[bb];B[cc])(;W[dd]))\n(;SZ[7];B[gg])", "c.sgf");
  ASSERT_EQ(games.size(), 2u);
  ASSERT_EQ(games[0].moves.size(), 3u);
  EXPECT_EQ(games[0].moves[1].move.point, Board::Index(1, 1));
  EXPECT_EQ(games[1].size, 7);
}

TEST(Sgf, ErrorsNameTheFileLineAndMove) {
  EXPECT_NE(
      ErrorOf("(;SZ[9]\n;B[ee]\n;W[ee])").find("g.sgf:3: move 2 (W[ee]): illegal: point occupied"),
      std::string::npos);
  EXPECT_NE(ErrorOf("(;SZ[5];B[zz])").find("g.sgf:1: move 1 (B[zz]): not a point on a 5x5 board"),
            std::string::npos);
  EXPECT_NE(ErrorOf("(;SZ[9];B[aa]").find("not closed"), std::string::npos);
  EXPECT_NE(ErrorOf("(;SZ[9];B[aa").find("inside the value of B"), std::string::npos);
  EXPECT_NE(ErrorOf("(;GM[2])").find("not a game of Go"), std::string::npos);
  EXPECT_NE(ErrorOf("(;SZ[25])").find("size outside 1..19"), std::string::npos);
  EXPECT_NE(ErrorOf("(;SZ[9:7])").find("rectangular"), std::string::npos);
  EXPECT_NE(ErrorOf("(;SZ[9];B[aa];AW[bb])").find("setup stones after the first move"),
            std::string::npos);
  EXPECT_NE(ErrorOf("hello").find("expected '('"), std::string::npos);
  // Suicide and ko, with their reasons.
  EXPECT_NE(ErrorOf("(;SZ[5]AW[ba][ab];B[aa])").find("move 1 (B[aa]): illegal: suicide"),
            std::string::npos);
  EXPECT_NE(ErrorOf("(;SZ[5]AB[ba][ab][bc]AW[ca][bb][db][cc];B[cb];W[bb])").find("illegal: ko"),
            std::string::npos);
}

}  // namespace
}  // namespace trainbench::go

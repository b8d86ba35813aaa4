#include "go/board.h"

#include <gtest/gtest.h>

#include <random>

#include "core/error.h"

namespace trainbench::go {
namespace {

TEST(Board, TextRoundTrip) {
  const std::string t = "X.O\n.X.\nOO.\n";
  Board b = Board::FromText(t);
  EXPECT_EQ(b.size(), 3);
  EXPECT_EQ(b.ToText(), t);
  EXPECT_EQ(b.at(0, 0), kBlack);
  EXPECT_EQ(b.at(2, 1), kWhite);
}

TEST(Board, BadTextNamesThePlace) {
  auto err = [](const std::string& t) {
    try {
      Board::FromText(t);
    } catch (const core::Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(err("X.\n.Q\n").find("row 2 column 2: unexpected character 'Q'"), std::string::npos);
  EXPECT_NE(err("X..\n..\n...\n").find("row 2 has 2 points, expected 3"), std::string::npos);
  EXPECT_NE(err("XO\nO.\n").find("row 1 column 1 has no liberties"), std::string::npos);
  EXPECT_NE(err("").find("0 rows"), std::string::npos);
}

TEST(Board, SingleStoneCaptureInTheCorner) {
  Board b = Board::FromText(
      "XO...\n"
      ".....\n"
      ".....\n"
      ".....\n"
      ".....\n");
  ASSERT_TRUE(b.Play(kWhite, Board::Index(1, 0)));
  EXPECT_EQ(b.at(0, 0), kEmpty);
  EXPECT_EQ(b.captured_by(kWhite), 1);
  EXPECT_EQ(b.stones(kBlack), 0);
}

TEST(Board, MultiStoneCapture) {
  Board c = Board::FromText(
      ".OOO.\n"
      "OXXX.\n"
      ".OXO.\n"
      "..O..\n"
      ".....\n");
  EXPECT_EQ(c.Liberties(Board::Index(1, 1)), 1);
  ASSERT_TRUE(c.Play(kWhite, Board::Index(1, 4)));
  EXPECT_EQ(c.stones(kBlack), 0);
  EXPECT_EQ(c.captured_by(kWhite), 4);
  EXPECT_EQ(c.ToText(),
            ".OOO.\n"
            "O...O\n"
            ".O.O.\n"
            "..O..\n"
            ".....\n");
}

TEST(Board, SuicideIsIllegalUnlessItCaptures) {
  Board b = Board::FromText(
      ".O...\n"
      "O....\n"
      ".....\n"
      ".....\n"
      ".....\n");
  EXPECT_FALSE(b.IsLegal(kBlack, Board::Index(0, 0)));
  EXPECT_FALSE(b.Play(kBlack, Board::Index(0, 0)));
  EXPECT_EQ(b.at(0, 0), kEmpty);
  EXPECT_TRUE(b.IsLegal(kWhite, Board::Index(0, 0)));  // filling one's own eye is legal
  // Multi-stone suicide: black's two stones would have no liberty.
  Board c = Board::FromText(
      ".O...\n"
      "XOO..\n"
      "OO...\n"
      ".....\n"
      ".....\n");
  EXPECT_FALSE(c.IsLegal(kBlack, Board::Index(0, 0)));
  EXPECT_TRUE(c.IsLegal(kWhite, Board::Index(0, 0)));  // white captures the black stone
  // A play with no liberties of its own that captures is legal.
  Board d = Board::FromText(
      ".XO..\n"
      "XO...\n"
      "O....\n"
      ".....\n"
      ".....\n");
  EXPECT_TRUE(d.IsLegal(kWhite, Board::Index(0, 0)));
  ASSERT_TRUE(d.Play(kWhite, Board::Index(0, 0)));
  EXPECT_EQ(d.at(0, 1), kEmpty);
  EXPECT_EQ(d.at(1, 0), kEmpty);
  EXPECT_EQ(d.captured_by(kWhite), 2);
  EXPECT_EQ(d.ko_point(), kPass);  // two stones captured: no ko
}

TEST(Board, SimpleKoForbidsTheImmediateRecapture) {
  Board b = Board::FromText(
      ".XO..\n"
      "XO.O.\n"
      ".XO..\n"
      ".....\n"
      ".....\n");
  // Black captures the white stone at (1,1) by playing (1,2).
  ASSERT_TRUE(b.Play(kBlack, Board::Index(1, 2)));
  EXPECT_EQ(b.at(1, 1), kEmpty);
  EXPECT_EQ(b.ko_point(), Board::Index(1, 1));
  // White may not retake at once...
  EXPECT_FALSE(b.IsLegal(kWhite, Board::Index(1, 1)));
  EXPECT_FALSE(b.Play(kWhite, Board::Index(1, 1)));
  // ...but may after a move elsewhere (a ko threat and its answer).
  ASSERT_TRUE(b.Play(kWhite, Board::Index(4, 4)));
  ASSERT_TRUE(b.Play(kBlack, Board::Index(4, 0)));
  EXPECT_TRUE(b.Play(kWhite, Board::Index(1, 1)));
  EXPECT_EQ(b.at(1, 2), kEmpty);
  EXPECT_EQ(b.ko_point(), Board::Index(1, 2));
  // A pass clears the ko.
  ASSERT_TRUE(b.Play(kBlack, kPass));
  EXPECT_EQ(b.ko_point(), kPass);
}

TEST(Board, TrompTaylorScore) {
  Board empty(9);
  EXPECT_DOUBLE_EQ(empty.Score(7.5), -7.5);  // no stones: nobody's area
  Board b = Board::FromText(
      "..X.O\n"
      "..X.O\n"
      "..X.O\n"
      "..X.O\n"
      "..X.O\n");
  // Black: 5 stones + 10 empty points reaching only black = 15. White: 5 stones; the column
  // between touches both colours and is neutral. 15 - 5 - 0.5 = 9.5.
  EXPECT_DOUBLE_EQ(b.Score(0.5), 9.5);
  auto t = b.Territory();
  EXPECT_EQ(t[0], kBlack);
  EXPECT_EQ(t[3], kEmpty);
  EXPECT_EQ(t[4], kWhite);
}

TEST(Board, HashDependsOnStonesOnly) {
  Board a = Board::FromText(
      ".XO..\n"
      "XO.O.\n"
      ".XO..\n"
      ".....\n"
      ".....\n");
  a.Play(kBlack, Board::Index(1, 2));  // captures (1,1)
  Board b = Board::FromText(
      ".XO..\n"
      "X.XO.\n"
      ".XO..\n"
      ".....\n"
      ".....\n");
  EXPECT_TRUE(a == b);
  EXPECT_EQ(a.hash(), b.hash());
  Board c = b;
  c.Play(kWhite, Board::Index(4, 4));
  EXPECT_NE(c.hash(), b.hash());
}

// Random games: the O(1) atari test and the incremental chains agree with brute force, and
// the board never holds a chain without liberties.
TEST(Board, RandomGamesKeepChainsConsistent) {
  std::mt19937 rng(5);
  for (int game = 0; game < 40; ++game) {
    const int n = game % 2 ? 9 : 5;
    Board b(n);
    Color c = kBlack;
    for (int move = 0; move < 3 * n * n; ++move) {
      std::vector<int> legal = b.LegalMoves(c);
      int p = legal.empty() ? kPass : legal[rng() % legal.size()];
      ASSERT_TRUE(b.Play(c, p));
      for (int r = 0; r < n; ++r) {
        for (int col = 0; col < n; ++col) {
          int q = Board::Index(r, col);
          if (b.at(q) == kEmpty) continue;
          ASSERT_GE(b.Liberties(q), 1) << b.ToText();
        }
      }
      // Legality matches brute force: play on a copy and see if the stone survives.
      for (int r = 0; r < n; ++r) {
        for (int col = 0; col < n; ++col) {
          int q = Board::Index(r, col);
          if (b.at(q) != kEmpty || q == b.ko_point()) continue;
          const Color me = Opponent(c);  // the player to move
          bool legal_now = b.IsLegal(me, q);
          // Brute force (distinct liberties counted by flood): the stone has an empty
          // neighbour, joins an own chain with another liberty, or takes an opponent chain's
          // last liberty.
          bool captures = false, has_liberty = false;
          for (int d : {-kStride, kStride, -1, 1}) {
            int m = q + d;
            if (b.at(m) == kEmpty) has_liberty = true;
            if (b.at(m) == me && b.Liberties(m) > 1) has_liberty = true;
            if (b.at(m) == c && b.Liberties(m) == 1) captures = true;
          }
          ASSERT_EQ(legal_now, captures || has_liberty) << b.ToText() << " at " << r << "," << col;
        }
      }
      c = Opponent(c);
    }
  }
}

// AssignUsed into a board of the same size that held another game is assignment: the same
// stones, ko, captures and hash, and the same continuation afterwards (legal moves, chains and
// their liberties, captures); into a board of another size it is a full copy.
TEST(Board, AssignUsedIsAssignment) {
  std::mt19937 rng(11);
  auto random_move = [](const Board& b, Color c, std::mt19937& r) {
    std::vector<int> legal = b.LegalMoves(c);
    return legal.empty() ? kPass : legal[r() % legal.size()];
  };
  int captures = 0;
  for (int n : {5, 9, 19}) {
    Board b(n), other(n);
    Color c = kBlack;
    for (int k = 0; k < n * n; ++k, c = Opponent(c)) other.Play(c, random_move(other, c, rng));
    c = kBlack;
    for (int move = 0; move < 2 * n * n; ++move) {
      Board used = other;
      used.AssignUsed(b);
      Board full = b;
      std::mt19937 cont(static_cast<uint32_t>(move));
      Color cc = c;
      for (int k = 0; k < 8; ++k, cc = Opponent(cc)) {
        ASSERT_TRUE(used == full) << n << "x" << n << " move " << move << "+" << k;
        ASSERT_EQ(used.hash(), full.hash());
        ASSERT_EQ(used.ko_point(), full.ko_point());
        ASSERT_EQ(used.captured_by(kBlack), full.captured_by(kBlack));
        ASSERT_EQ(used.captured_by(kWhite), full.captured_by(kWhite));
        ASSERT_EQ(used.LegalMoves(cc), full.LegalMoves(cc));
        for (int q = 0; q < kPoints; ++q) {
          if (full.at(q) == kBlack || full.at(q) == kWhite)
            ASSERT_EQ(used.Liberties(q), full.Liberties(q));
        }
        const int p = random_move(full, cc, cont);
        const int before = full.captured_by(cc);
        ASSERT_TRUE(used.Play(cc, p));
        ASSERT_TRUE(full.Play(cc, p));
        captures += full.captured_by(cc) > before;
      }
      b.Play(c, random_move(b, c, rng));
      c = Opponent(c);
    }
  }
  EXPECT_GT(captures, 20) << "the continuations should capture";
  Board small(5);
  small.Play(kBlack, Board::Index(2, 2));
  Board big(9);
  big.AssignUsed(small);
  EXPECT_EQ(big.size(), 5);
  EXPECT_TRUE(big == small);
  EXPECT_EQ(big.ToText(), small.ToText());
}

}  // namespace
}  // namespace trainbench::go

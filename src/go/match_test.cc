// Games against the real GNU Go (Debian gnugo, /usr/games/gnugo) over GTP: every move GNU Go
// makes must be legal under trainbench's rules, the game must end, and the record must survive
// an SGF round trip. Also the random player's eye rule.
#include "go/match.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cctype>
#include <sstream>

#include "core/error.h"
#include "go/sgf.h"

namespace trainbench::go {
namespace {

const char* kGnuGo = "/usr/games/gnugo";

TEST(RandomPlayer, NeverFillsItsOwnEye) {
  Board b = Board::FromText(
      ".X...\n"
      "X....\n"
      ".....\n"
      ".....\n"
      ".....\n");
  EXPECT_TRUE(IsOwnEye(b, kBlack, Board::Index(0, 0)));
  EXPECT_FALSE(IsOwnEye(b, kWhite, Board::Index(0, 0)));
  EXPECT_FALSE(IsOwnEye(b, kBlack, Board::Index(2, 2)));
  // A false eye: in the corner region one opponent diagonal is enough to spoil an edge eye.
  Board f = Board::FromText(
      ".X...\n"
      "XO...\n"
      ".....\n"
      ".....\n"
      ".....\n");
  EXPECT_FALSE(IsOwnEye(f, kBlack, Board::Index(0, 0)));
}

TEST(Match, GamesAgainstGnuGoFollowTheSameRules) {
  if (::access(kGnuGo, X_OK) != 0) GTEST_SKIP() << kGnuGo << " missing (Debian package gnugo)";
  for (int seed = 1; seed <= 2; ++seed) {
    GtpClient gnugo({kGnuGo, "--mode", "gtp", "--level", "1", "--chinese-rules", "--seed",
                     std::to_string(seed)},
                    60);
    RandomPlayer random(seed);
    MatchOptions o;
    Game g = PlayMatch(gnugo, std::ref(random), seed == 1 ? kBlack : kWhite, o);
    EXPECT_GT(g.moves().size(), 10u);
    EXPECT_TRUE(g.over() || static_cast<int>(g.moves().size()) == 3 * 81);
    // GNU Go's board after the game is ours, point for point (captures included).
    std::string shown = gnugo.Send("showboard"), theirs;
    std::istringstream lines(shown);
    std::string line;
    while (std::getline(lines, line)) {
      std::istringstream words(line);
      std::string first, w, row;
      if (!(words >> first) || !std::isdigit(static_cast<unsigned char>(first[0]))) continue;
      while (words >> w && !std::isdigit(static_cast<unsigned char>(w[0])))
        row += w == "+" ? "." : w;
      theirs += row + "\n";
    }
    EXPECT_EQ(theirs, g.board().ToText()) << shown;
    Game back = Replay(ParseSgf(WriteSgf(g, "a", "b"), "mem")[0], "mem");
    EXPECT_TRUE(back.board() == g.board());
  }
}

TEST(Match, OpponentErrorsNameTheCommand) {
  // Answers the set-up, then plays an occupied point.
  GtpClient liar({"sh", "-c",
                  "while read c a; do case $c in genmove) printf '= E5\\n\\n';; *) printf "
                  "'=\\n\\n';; esac; done"},
                 5);
  MatchOptions o;
  auto ours = [](const Game&, Color) { return Board::Index(4, 4); };  // E5
  try {
    PlayMatch(liar, ours, kBlack, o);
    FAIL() << "no error";
  } catch (const core::Error& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "command \"genmove w\": answered an illegal move \"e5\" (point occupied)"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace trainbench::go

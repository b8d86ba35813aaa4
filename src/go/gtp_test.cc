#include "go/gtp.h"

#include <gtest/gtest.h>

#include <chrono>
#include <sstream>

#include "core/error.h"

namespace trainbench::go {
namespace {

// A deterministic player: the first legal point in reading order, else pass.
int FirstLegal(const Game& g, Color c) {
  auto legal = g.board().LegalMoves(c);
  return legal.empty() ? kPass : legal.front();
}

TEST(GtpEngine, AdministrativeCommands) {
  GtpEngine e("trainbench", "0.1", FirstLegal);
  EXPECT_EQ(e.Handle("protocol_version"), "= 2\n\n");
  EXPECT_EQ(e.Handle("1 name"), "=1 trainbench\n\n");
  EXPECT_EQ(e.Handle("version # a comment"), "= 0.1\n\n");
  EXPECT_EQ(e.Handle("known_command genmove"), "= true\n\n");
  EXPECT_EQ(e.Handle("known_command fly"), "= false\n\n");
  EXPECT_NE(e.Handle("list_commands").find("\nfinal_score\n"), std::string::npos);
  EXPECT_EQ(e.Handle("7 fly"), "?7 unknown command\n\n");
  EXPECT_EQ(e.Handle("   "), "");
  EXPECT_EQ(e.Handle("boardsize 25"), "? unacceptable size\n\n");
  EXPECT_EQ(e.Handle("boardsize x"), "? syntax error\n\n");
  EXPECT_EQ(e.Handle("quit"), "=\n\n");
  EXPECT_TRUE(e.quit());
}

TEST(GtpEngine, AFixedSizeEngineRefusesOtherBoardSizes) {
  GtpEngine e("t", "1", FirstLegal, 9);
  e.set_fixed_size(9);
  EXPECT_EQ(e.Handle("boardsize 13"), "? unacceptable size\n\n");
  EXPECT_EQ(e.game().board().size(), 9);
  EXPECT_EQ(e.Handle("boardsize 9"), "=\n\n");
}

TEST(GtpEngine, PlayGenmoveScoreAndShowboard) {
  GtpEngine e("t", "1", FirstLegal);
  EXPECT_EQ(e.Handle("boardsize 5"), "=\n\n");
  EXPECT_EQ(e.Handle("komi 0.5"), "=\n\n");
  for (const char* bad : {"komi nan", "komi inf", "komi -inf", "komi 0x10", "komi 7.5x",
                          "komi 1e400", "komi 2000", "komi", "komi 1 2"}) {
    EXPECT_EQ(e.Handle(bad), "? syntax error\n\n") << bad;
  }
  EXPECT_EQ(e.Handle("clear_board"), "=\n\n");
  EXPECT_EQ(e.Handle("play b C3"), "=\n\n");
  EXPECT_EQ(e.Handle("play w C3"), "? illegal move\n\n");
  EXPECT_EQ(e.Handle("play w Z9"), "? syntax error\n\n");
  EXPECT_EQ(e.Handle("genmove w"), "= A5\n\n");  // first legal point from the top-left
  EXPECT_EQ(e.game().board().at(0, 0), kWhite);
  EXPECT_EQ(e.Handle("undo"), "=\n\n");
  EXPECT_EQ(e.game().board().at(0, 0), kEmpty);
  EXPECT_EQ(e.Handle("play w pass"), "=\n\n");
  EXPECT_EQ(e.Handle("play b pass"), "=\n\n");
  // Black's one stone owns the whole empty board: 25 - 0.5.
  EXPECT_EQ(e.Handle("final_score"), "= B+24.5\n\n");
  EXPECT_EQ(e.Handle("showboard"),
            "= \n"
            "    A B C D E\n"
            " 5  . . . . .  5 \n"
            " 4  . . . . .  4 \n"
            " 3  . . X . .  3 \n"
            " 2  . . . . .  2 \n"
            " 1  . . . . .  1 \n"
            "    A B C D E\n\n");
}

TEST(GtpEngine, ServeReadsUntilQuit) {
  GtpEngine e("t", "1", FirstLegal, 9);
  std::istringstream in("boardsize 9\nplay black E5\n2 genmove white\nquit\nname\n");
  std::ostringstream out;
  e.Serve(in, out);
  EXPECT_EQ(out.str(), "=\n\n=\n\n=2 A9\n\n=\n\n");
  EXPECT_EQ(e.game().moves().size(), 2u);
}

TEST(GtpClient, TalksToAChildEngine) {
  // A tiny GTP engine in the shell: answers name, fails on anything else.
  GtpClient c({"sh", "-c",
               "while read cmd arg; do case $cmd in name) printf '= fake\\n\\n';; quit) printf "
               "'=\\n\\n'; exit 0;; "
               "*) printf '? unknown command\\n\\n';; esac; done"},
              5);
  EXPECT_EQ(c.Send("name"), "fake");
  try {
    c.Send("genmove b");
    FAIL() << "no error";
  } catch (const core::Error& e) {
    EXPECT_NE(std::string(e.what()).find("command \"genmove b\" failed: ? unknown command"),
              std::string::npos)
        << e.what();
  }
}

TEST(GtpClient, CrashNamesTheCommandAndTheExit) {
  GtpClient c({"sh", "-c", "read x; exit 3"}, 5);
  try {
    c.Send("genmove b");
    FAIL() << "no error";
  } catch (const core::Error& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "command \"genmove b\": the engine exited with code 3 before answering"),
              std::string::npos)
        << e.what();
  }
}

TEST(GtpClient, HangTimesOut) {
  GtpClient c({"sh", "-c", "sleep 30"}, 0.5);
  auto t0 = std::chrono::steady_clock::now();
  try {
    c.Send("name");
    FAIL() << "no error";
  } catch (const core::Error& e) {
    EXPECT_NE(std::string(e.what()).find("no answer within 0.5 s"), std::string::npos) << e.what();
  }
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 5.0);
}

TEST(GtpClient, MissingBinary) { EXPECT_THROW(GtpClient({"/nonexistent/engine"}, 1), core::Error); }

}  // namespace
}  // namespace trainbench::go

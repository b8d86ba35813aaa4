#include "text/apertium.h"

#include <gtest/gtest.h>

#include "core/error.h"

namespace trainbench::text {
namespace {

TEST(RunCommand, PipesAndExitCodes) {
  CommandResult r = RunCommand({"sh", "-c", "tr a-z A-Z; echo err >&2; exit 3"}, "hello\n", 10);
  EXPECT_EQ(r.out, "HELLO\n");
  EXPECT_EQ(r.err, "err\n");
  EXPECT_EQ(r.exit_code, 3);
  // More than a pipe buffer each way, both at once.
  std::string big(1 << 20, 'x');
  r = RunCommand({"cat"}, big, 10);
  EXPECT_EQ(r.out.size(), big.size());
}

TEST(RunCommand, MissingProgramAndTimeout) {
  try {
    RunCommand({"/nonexistent/apertium", "-u"}, "", 10,
               "install the Debian packages apertium and apertium-eng-spa");
    FAIL();
  } catch (const core::Error& e) {
    EXPECT_STREQ(e.what(),
                 "/nonexistent/apertium: command not found (install the Debian packages apertium "
                 "and apertium-eng-spa)");
  }
  try {
    RunCommand({"sh", "-c", "sleep 30 | cat"}, "", 0.3);
    FAIL();
  } catch (const core::Error& e) {
    EXPECT_STREQ(e.what(), "sh -c sleep 30 | cat: timed out after 0.3 s (killed)");
  }
}

TEST(Apertium, TranslatesLineByLine) {
  const std::vector<std::string> en = {"I have a dog.", "The cat is on the table.",
                                       "Where is the library?"};
  TranslationStats st;
  ApertiumOptions o;
  o.chunk_lines = 2;
  const std::vector<std::string> es = TranslateLines(en, o, &st);
  EXPECT_EQ(es, (std::vector<std::string>{"Tengo un perro.", "El gato es en la mesa.",
                                          "D\xC3\xB3nde es la biblioteca?"}));
  EXPECT_EQ(st.calls, 2);
  EXPECT_EQ(st.misaligned, 0);
}

TEST(Apertium, MisalignedOutputIsBisected) {
  // A fake translator that splits every line holding "SPLIT" in two: the chunk comes back
  // with too many lines, is halved until the bad line is alone, and its parts are joined.
  ApertiumOptions o;
  o.command = TRAINBENCH_TEST_SRCDIR "/src/text/testdata/fake_apertium.sh";
  const std::vector<std::string> en = {"one", "two SPLIT here", "three", "four", "five"};
  TranslationStats st;
  const std::vector<std::string> es = TranslateLines(en, o, &st);
  EXPECT_EQ(es, (std::vector<std::string>{"ONE", "TWO SPLIT HERE", "THREE", "FOUR", "FIVE"}));
  EXPECT_GT(st.misaligned, 0);
  EXPECT_EQ(st.split_lines, 1);
}

TEST(Apertium, FailuresNameTheCommand) {
  ApertiumOptions o;
  o.pair = "eng-xxx";
  try {
    TranslateLines({"Hello there my friend."}, o);
    FAIL();
  } catch (const core::Error& e) {
    EXPECT_NE(std::string(e.what()).find("apertium -u eng-xxx: exit code"), std::string::npos)
        << e.what();
    EXPECT_NE(
        std::string(e.what()).find("install the Debian packages apertium and apertium-eng-xxx"),
        std::string::npos)
        << e.what();
  }
  o.command = "no-such-apertium";
  EXPECT_THROW(TranslateLines({"Hello."}, o), core::Error);
}

}  // namespace
}  // namespace trainbench::text

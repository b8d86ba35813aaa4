#include "text/mini_corpus.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "core/error.h"

namespace trainbench::text {
namespace {

using Strings = std::vector<std::string>;

// A fortune file as the package writes them: "%" lines between fortunes, wrapped lines,
// attributions, overstriking, ASCII art.
constexpr const char* kFortunes = R"(A bug in the code is worth two in the documentation.
%
You swing at the Sun.  You miss.  The Sun swings.  He hits you with a
big old disk!  You read the disk.  It is written in an alien
tongue and cannot be read.
		-- /etc/motd, cbosgd
%
%
		 (  /\__________/\  )
		  \(^ @___..___@ ^)/
%
Mr. Smith met Dr. Jones at St. Paul's on Sunday.  They talked about J. R. R. Tolkien, e.g. his books.

"Is it raining?" she asked.  "No," he said.
%
A bug in the code is worth two in the documentation.
%
This is )"
                                  "_\bb_\bo_\bl_\bd"
                                  R"(, really.
%)";

TEST(MiniCorpus, SplitsFortunesAndDropsEmptyOnes) {
  const Strings f = SplitFortunes(kFortunes);
  ASSERT_EQ(f.size(), 6u);
  EXPECT_EQ(f[0], "A bug in the code is worth two in the documentation.");
  EXPECT_EQ(f[2].substr(0, 6), "\t\t (  ");
}

TEST(MiniCorpus, StripsOverstriking) {
  EXPECT_EQ(StripOverstrike("_\bb_\bo_\bl_\bd and b\bbo\bol\bld\bd"), "bold and bold");
  EXPECT_EQ(StripOverstrike("\bx"), "x");
}

TEST(MiniCorpus, ParagraphsJoinWrappedLinesAndDropAttributions) {
  const Strings f = SplitFortunes(kFortunes);
  EXPECT_EQ(FortuneParagraphs(f[1]),
            Strings{"You swing at the Sun. You miss. The Sun swings. He hits you with a big old "
                    "disk! You read "
                    "the disk. It is written in an alien tongue and cannot be read."});
  EXPECT_EQ(FortuneParagraphs(f[3]).size(), 2u);  // a blank line separates paragraphs
  EXPECT_EQ(FortuneParagraphs("Line one\n  \u2014 Someone Famous\n"), Strings{"Line one"});
  EXPECT_EQ(CollapseWhitespace(" \t a \n\n b  "), "a b");
}

TEST(MiniCorpus, SplitsSentencesButNotAfterAbbreviationsOrInitials) {
  EXPECT_EQ(SplitSentences(
                "You swing at the Sun. You miss. The Sun swings! Why? 42 is \"the answer.\" Fine."),
            (Strings{"You swing at the Sun.", "You miss.", "The Sun swings!", "Why?",
                     "42 is \"the answer.\"", "Fine."}));
  EXPECT_EQ(SplitSentences("Mr. Smith met Dr. Jones at St. Paul's on Sunday. They talked about J. "
                           "R. R. Tolkien, e.g. his books."),
            (Strings{"Mr. Smith met Dr. Jones at St. Paul's on Sunday.",
                     "They talked about J. R. R. Tolkien, e.g. his books."}));
  EXPECT_EQ(SplitSentences("Everything goes dark... The end"),
            (Strings{"Everything goes dark...", "The end"}));
  EXPECT_EQ(SplitSentences("it costs 3.5 dollars. ok"),
            Strings{"it costs 3.5 dollars. ok"});  // lowercase after the period
}

TEST(MiniCorpus, FiltersSentences) {
  EXPECT_EQ(FilterSentence("A bug in the code.", 4, 25), SentenceFilter::kKeep);
  EXPECT_EQ(FilterSentence("You miss.", 4, 25), SentenceFilter::kLength);
  std::string long_one;
  for (int i = 0; i < 26; ++i) long_one += "word ";
  EXPECT_EQ(FilterSentence(long_one, 4, 25), SentenceFilter::kLength);
  EXPECT_EQ(FilterSentence("Ring the bell \x07 now please", 4, 25), SentenceFilter::kControl);
  EXPECT_EQ(FilterSentence(
                "\xCE\x93\xCE\xB5\xCE\xB9\xCE\xB1 \xCF\x83\xCE\xBF\xCF\x85 world and more", 4, 25),
            SentenceFilter::kNonAscii);
  EXPECT_EQ(FilterSentence("Una ma\xC3\xB1"
                           "ana de caf\xC3\xA9 con leche",
                           4, 25),
            SentenceFilter::kKeep);
  EXPECT_EQ(FilterSentence("if (x == 1) { return y; }", 4, 25), SentenceFilter::kMarkup);
  EXPECT_EQ(FilterSentence("(1) 2.3 4.5 (6) 7/8 9", 4, 25), SentenceFilter::kFewLetters);
  EXPECT_EQ(FilterSentence("THIS IS A HEADLINE", 4, 25), SentenceFilter::kNoLowercase);
}

TEST(MiniCorpus, DedupeKeepsFirstOccurrences) {
  EXPECT_EQ(Dedupe({"b", "a", "b", "c", "a"}), (Strings{"b", "a", "c"}));
  EXPECT_EQ(Dedupe({"A b", "a b"}), (Strings{"A b", "a b"}));  // exact, not case-folded
}

TEST(MiniCorpus, SplitIsDeterministicAndAPartition) {
  const SplitIndices a = SplitTrainTest(1000, 100, 7);
  const SplitIndices b = SplitTrainTest(1000, 100, 7);
  EXPECT_EQ(a.train, b.train);
  EXPECT_EQ(a.test, b.test);
  ASSERT_EQ(a.test.size(), 100u);
  ASSERT_EQ(a.train.size(), 900u);
  std::set<size_t> all(a.train.begin(), a.train.end());
  all.insert(a.test.begin(), a.test.end());
  EXPECT_EQ(all.size(), 1000u);
  EXPECT_TRUE(std::is_sorted(a.test.begin(), a.test.end()));
  EXPECT_NE(SplitTrainTest(1000, 100, 8).test, a.test);
  // Pinned: the split must not change across platforms or refactorings.
  const SplitIndices small = SplitTrainTest(10, 3, 1);
  EXPECT_EQ(small.test, (std::vector<size_t>{1, 5, 6}));
}

TEST(MiniCorpus, ExtractsFromAFolderInSortedOrder) {
  const auto dir = std::filesystem::path(TRAINBENCH_TEST_BINDIR) / "mini_corpus_test" / "fortunes";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "b_second") << kFortunes;
  std::ofstream(dir / "a_first")
      << "The first file comes first here.\n%\nNot UTF-8 here: \xC0\xAF at all.\n%\n";
  std::ofstream(dir / "a_first.dat") << "index bytes, not read";
  std::filesystem::create_symlink("a_first", dir / "a_first.u8");
  MiniCorpusOptions o;
  o.fortunes_dir = dir.string();
  const EnglishSentences e = ExtractEnglishSentences(o);
  EXPECT_EQ(e.sentences,
            (Strings{"The first file comes first here.",
                     "A bug in the code is worth two in the documentation.",
                     "You swing at the Sun.", "He hits you with a big old disk!",
                     "You read the disk.", "It is written in an alien tongue and cannot be read.",
                     "Mr. Smith met Dr. Jones at St. Paul's on Sunday.",
                     "They talked about J. R. R. Tolkien, e.g. his books.",
                     "\"Is it raining?\" she asked.", "This is bold, really."}));
  EXPECT_EQ(e.counts["fortune_files"], 2);
  EXPECT_EQ(e.counts["fortunes_invalid_utf8"], 1);
  EXPECT_EQ(e.counts["duplicates"], 1);
  EXPECT_EQ(e.sources[0]["file"], "a_first");
  o.max_sentences = 2;
  EXPECT_EQ(ExtractEnglishSentences(o).sentences.size(), 2u);
  o.fortunes_dir = (dir / "none").string();
  EXPECT_THROW(ExtractEnglishSentences(o), core::Error);
}

}  // namespace
}  // namespace trainbench::text

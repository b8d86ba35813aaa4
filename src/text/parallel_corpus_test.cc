#include "text/parallel_corpus.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/error.h"

namespace trainbench::text {
namespace {

class ParallelCorpusTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::path(TRAINBENCH_TEST_BINDIR) / "parallel_corpus_test" /
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  std::string Write(const std::string& name, const std::string& bytes) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }
  // The error message of reading (src, tgt); "" when it reads.
  static std::string ErrorOf(const std::string& src, const std::string& tgt) {
    try {
      ReadParallelCorpus(src, tgt);
    } catch (const core::Error& e) {
      return e.what();
    }
    return "";
  }
  std::filesystem::path dir_;
};

TEST_F(ParallelCorpusTest, ReadsAlignedFiles) {
  const std::string en =
      Write("a.en", "The cat sleeps.\nI have a dog.\r\nLast line without newline");
  const std::string es = Write("a.es", "El gato duerme.\nTengo un perro.\nLa \xC3\xBAltima\n");
  const ParallelCorpus c = ReadParallelCorpus(en, es);
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c.source[1], "I have a dog.");  // CRLF: the "\r" is dropped
  EXPECT_EQ(c.source[2], "Last line without newline");
  EXPECT_EQ(c.target[2], "La \xC3\xBAltima");
  EXPECT_EQ(ForEachParallelLine(en, es, nullptr), 3);
}

TEST_F(ParallelCorpusTest, DifferentLineCountsNameBothFilesAndCounts) {
  const std::string en = Write("a.en", "one\ntwo\nthree\n");
  const std::string es = Write("a.es", "uno\ndos\n");
  EXPECT_EQ(ErrorOf(en, es), es + ":3: ends here: " + es + " has 2 lines but " + en +
                                 " has 3 (the files must be line-aligned)");
  EXPECT_EQ(ErrorOf(es, en), es + ":3: ends here: " + es + " has 2 lines but " + en +
                                 " has 3 (the files must be line-aligned)");
}

TEST_F(ParallelCorpusTest, EmptyAndBlankLinesNameFileAndLine) {
  const std::string en = Write("a.en", "one\ntwo\nthree\n");
  EXPECT_EQ(ErrorOf(en, Write("b.es", "uno\n\ntres\n")),
            (dir_ / "b.es").string() + ":2: empty line (every line must hold a sentence)");
  EXPECT_EQ(ErrorOf(Write("c.en", "one\ntwo\n \t \n"), Write("c.es", "uno\ndos\ntres\n")),
            (dir_ / "c.en").string() +
                ":3: line holds only whitespace (every line must hold a sentence)");
}

TEST_F(ParallelCorpusTest, InvalidUtf8NamesFileLineAndOffset) {
  const std::string en = Write("a.en", "one\ntwo\n");
  EXPECT_EQ(ErrorOf(en, Write("b.es", "uno\nd\xC3\xB3s \xC0\xAF\n")),
            (dir_ / "b.es").string() +
                ":2: invalid UTF-8 at byte 5: overlong encoding (lead byte 0xC0) of the line");
  EXPECT_EQ(ErrorOf(en, Write("c.es", "uno\xED\xA0\x80\ndos\n")),
            (dir_ / "c.es").string() + ":1: invalid UTF-8 at byte 3: surrogate U+D800 of the line");
}

TEST_F(ParallelCorpusTest, MissingAndEmptyFiles) {
  const std::string en = Write("a.en", "one\n");
  const std::string missing = (dir_ / "missing.es").string();
  EXPECT_EQ(ErrorOf(en, missing), missing + ": cannot open: No such file or directory");
  const std::string e1 = Write("e.en", ""), e2 = Write("e.es", "");
  EXPECT_EQ(ErrorOf(e1, e2), e1 + ": empty corpus (no lines; so is " + e2 + ")");
}

TEST_F(ParallelCorpusTest, WriterRoundTripsAndRefusesBadLines) {
  ParallelCorpus c;
  c.source = {"Hello there.", "Good night."};
  c.target = {"Hola.", "Buenas noches."};
  const std::string en = (dir_ / "w.en").string(), es = (dir_ / "w.es").string();
  WriteParallelCorpus(c, en, es);
  const ParallelCorpus back = ReadParallelCorpus(en, es);
  EXPECT_EQ(back.source, c.source);
  EXPECT_EQ(back.target, c.target);
  c.target[1] = "";
  EXPECT_THROW(WriteParallelCorpus(c, en, es), core::Error);
  c.target[1] = "two\nlines";
  EXPECT_THROW(WriteParallelCorpus(c, en, es), core::Error);
  c.target.pop_back();
  EXPECT_THROW(WriteParallelCorpus(c, en, es), core::Error);
  // The failed writes left the first corpus as it was.
  EXPECT_EQ(ReadParallelCorpus(en, es).target[1], "Buenas noches.");
}

}  // namespace
}  // namespace trainbench::text

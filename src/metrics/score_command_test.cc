// `score bleu` on small files: line splitting, the output line and JSON, and the bad inputs
// (missing file, different line counts, invalid UTF-8) named with file and line.
#include "metrics/score_command.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "core/error.h"

namespace trainbench::metrics {
namespace {

namespace fs = std::filesystem;

class ScoreBleuCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("trainbench_score_bleu_" +
            std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Write(const std::string& name, const std::string& bytes) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }
  std::string ErrorOf(const ScoreBleuOptions& o) {
    std::ostringstream out;
    try {
      RunScoreBleuCommand(o, out);
    } catch (const core::Error& e) {
      return e.what();
    }
    return "no error; printed: " + out.str();
  }
  fs::path dir_;
};

TEST_F(ScoreBleuCommandTest, ReadsLinesLikeSacreBleu) {
  EXPECT_EQ(ReadUtf8Lines(Write("a", "x\r\ny\n")), (std::vector<std::u32string>{U"x", U"y"}));
  EXPECT_EQ(ReadUtf8Lines(Write("b", "x\n\ny")), (std::vector<std::u32string>{U"x", U"", U"y"}));
  EXPECT_EQ(ReadUtf8Lines(Write("c", "")), std::vector<std::u32string>{});
  EXPECT_EQ(ReadUtf8Lines(Write("d", "\n")), (std::vector<std::u32string>{U""}));
  EXPECT_EQ(ReadUtf8Lines(Write("e", "é")), (std::vector<std::u32string>{U"é"}));
}

TEST_F(ScoreBleuCommandTest, PrintsTheSacreBleuLine) {
  ScoreBleuOptions o;
  o.ref_file = Write("ref", "The cat sat on the mat.\nIt is 3.14!\n");
  o.hyp_file = Write("hyp", "The cat sat on the mat.\nIt is 3.14!\n");
  std::ostringstream out;
  EXPECT_EQ(RunScoreBleuCommand(o, out), 0);
  EXPECT_EQ(out.str(),
            "BLEU = 100.00 100.0/100.0/100.0/100.0 (BP = 1.000 ratio = 1.000 hyp_len = 11 "
            "ref_len = 11)\n");
}

TEST_F(ScoreBleuCommandTest, Json) {
  ScoreBleuOptions o;
  o.ref_file = Write("ref", "the cat sat on the mat\n");
  o.hyp_file = Write("hyp", "the cat sat on\n");
  o.tokenize = "intl";
  o.lowercase = true;
  o.json = true;
  std::ostringstream out;
  RunScoreBleuCommand(o, out);
  const core::Json j = core::Json::parse(out.str());
  EXPECT_EQ(j["schema_version"], kScoreBleuSchemaVersion);
  EXPECT_NEAR(j["score"].get<double>(), 60.653066, 1e-5);
  EXPECT_NEAR(j["bp"].get<double>(), 0.60653066, 1e-8);
  EXPECT_EQ(j["hyp_len"], 4);
  EXPECT_EQ(j["ref_len"], 6);
  EXPECT_EQ(j["counts"], (std::vector<int>{4, 3, 2, 1}));
  EXPECT_EQ(j["totals"], (std::vector<int>{4, 3, 2, 1}));
  EXPECT_EQ(j["segments"], 1);
  EXPECT_EQ(j["tokenize"], "intl");
  EXPECT_EQ(j["lowercase"], true);
  EXPECT_EQ(j["signature"], "nrefs:1|case:lc|eff:no|tok:intl|smooth:exp");
}

TEST_F(ScoreBleuCommandTest, MissingFileIsNamed) {
  ScoreBleuOptions o;
  o.ref_file = (dir_ / "nope.txt").string();
  o.hyp_file = Write("hyp", "a\n");
  const std::string e = ErrorOf(o);
  EXPECT_NE(e.find("nope.txt"), std::string::npos) << e;
  EXPECT_NE(e.find("cannot open"), std::string::npos) << e;
}

TEST_F(ScoreBleuCommandTest, DifferentLineCountsNameBothFiles) {
  ScoreBleuOptions o;
  o.ref_file = Write("ref.txt", "a\nb\nc\n");
  o.hyp_file = Write("hyp.txt", "a\nb\n");
  const std::string e = ErrorOf(o);
  EXPECT_NE(e.find(o.ref_file + " has 3 lines"), std::string::npos) << e;
  EXPECT_NE(e.find(o.hyp_file + " has 2"), std::string::npos) << e;
}

TEST_F(ScoreBleuCommandTest, InvalidUtf8NamesFileAndLine) {
  ScoreBleuOptions o;
  o.ref_file = Write("ref.txt", "a\nb\nc\n");
  o.hyp_file = Write("hyp.txt", "a\nb\xC3\x28x\nc\n");
  const std::string e = ErrorOf(o);
  EXPECT_NE(e.find(o.hyp_file + ":2: invalid UTF-8 at byte 2 of the line (0xC3)"),
            std::string::npos)
      << e;
}

// Regular files and pipes are read, devices and folders are not: /dev/zero made ReadUtf8Lines
// read one endless line until std::bad_alloc (uncaught).
TEST_F(ScoreBleuCommandTest, RefusesWhatIsNotAFileOrAPipe) {
  const auto error_of = [](const std::string& path) -> std::string {
    try {
      ReadUtf8Lines(path);
    } catch (const core::Error& e) {
      return e.what();
    }
    return "(no error)";
  };
  EXPECT_EQ(error_of("/dev/zero"), "/dev/zero: is a character device, not a regular file");
  EXPECT_EQ(error_of(dir_.string()), dir_.string() + ": is a directory, not a file");
  // A pipe (what `score bleu REF <(decoder ...)` reads) is read to its end.
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const std::string text = "una casa\nel gato\n";
  ASSERT_EQ(::write(fds[1], text.data(), text.size()), static_cast<ssize_t>(text.size()));
  ::close(fds[1]);
  const auto lines = ReadUtf8Lines("/dev/fd/" + std::to_string(fds[0]));
  ::close(fds[0]);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[1], U"el gato");
}

// A line longer than the bound is an error naming the file and the line, before it is held.
TEST_F(ScoreBleuCommandTest, BoundsTheLineLength) {
  const std::string path = Write("long", "12345678\nabc\n123456789\n");
  EXPECT_EQ(ReadUtf8Lines(path, 9).size(), 3u);
  try {
    ReadUtf8Lines(path, 8);
    ADD_FAILURE() << "no error";
  } catch (const core::Error& e) {
    EXPECT_EQ(std::string(e.what()), path +
                                         ":3: line longer than 8 bytes (a line is one segment: is "
                                         "this a line-aligned text file?)");
  }
  // The default bound, 1 MiB, is checked by tests/cli/score_bleu_test.sh.
}

TEST_F(ScoreBleuCommandTest, UnknownTokenizer) {
  ScoreBleuOptions o;
  o.ref_file = Write("ref.txt", "a\n");
  o.hyp_file = Write("hyp.txt", "a\n");
  o.tokenize = "moses";
  EXPECT_NE(ErrorOf(o).find("unknown BLEU tokenizer \"moses\""), std::string::npos);
}

}  // namespace
}  // namespace trainbench::metrics

#include "go/go_dataset.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>

#include "core/atomic_file.h"
#include "core/error.h"

namespace trainbench::go {
namespace {

namespace fs = std::filesystem;

std::string Fresh(const std::string& name) {
  const std::string d = ::testing::TempDir() + "/" + name + "_" + std::to_string(::getpid());
  fs::remove_all(d);
  return d;
}

std::string ErrorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const core::Error& e) {
    return e.what();
  }
  return "";
}

TEST(GoDataset, RecordsThenVerifiesThenRefusesOtherOptions) {
  GoMiniOptions o;
  if (::access(o.gnugo.c_str(), X_OK) != 0)
    GTEST_SKIP() << o.gnugo << " missing (Debian package gnugo)";
  o.size = 7;
  o.level = 0;
  o.games = 3;
  const std::string d = Fresh("tb_go_mini");
  GoDatasetSummary a = PrepareGoMini(d, o, nullptr);
  EXPECT_TRUE(a.generated);
  EXPECT_EQ(a.games, 3);
  EXPECT_GT(a.positions, 3 * 10);
  EXPECT_TRUE(fs::exists(d + "/test/game_0003.sgf"));
  EXPECT_EQ(a.dataset["board_size"], 7);
  EXPECT_FALSE(a.dataset["gnugo_version"].get<std::string>().empty());
  // The same options again: verified, not recorded; the same positions.
  GoDatasetSummary b = PrepareGoMini(d, o, nullptr);
  EXPECT_FALSE(b.generated);
  EXPECT_EQ(b.positions, a.positions);
  // Other options: refused, naming dataset.json and the key; nothing is removed.
  GoMiniOptions other = o;
  other.seed = 2;
  const std::string err = ErrorOf([&] { PrepareGoMini(d, other, nullptr); });
  EXPECT_NE(err.find(d + "/dataset.json"), std::string::npos) << err;
  EXPECT_NE(err.find("seed"), std::string::npos) << err;
  EXPECT_TRUE(fs::exists(d + "/test/game_0001.sgf"));
  // A damaged game is named with its line.
  {
    std::ofstream f(d + "/test/game_0002.sgf", std::ios::app);
    f << "\n(;SZ[7];B[dd];W[dd])\n";
  }
  const std::string bad = ErrorOf([&] { PrepareGoMini(d, o, nullptr); });
  EXPECT_NE(bad.find(d + "/test/game_0002.sgf:"), std::string::npos) << bad;
  EXPECT_NE(bad.find("occupied"), std::string::npos) << bad;
  fs::remove_all(d);
}

TEST(GoDataset, ExpertCollectionIsReadRecursivelyAndSizeChecked) {
  const std::string d = Fresh("tb_go_full");
  core::MakeDirs(d + "/a/b");
  std::ofstream(d + "/a/one.sgf") << "(;GM[1]FF[4]SZ[9]KM[7.5];B[ee];W[cc];B[])";
  std::ofstream(d + "/a/b/two.sgf") << "(;SZ[9];B[aa];W[ii])";
  std::ofstream(d + "/a/notes.txt") << "not a game";
  GoDatasetSummary s = CheckExpertCollection(d, 9);
  EXPECT_EQ(s.games, 2);
  EXPECT_EQ(s.positions, 5);
  std::ofstream(d + "/a/b/three.sgf") << "(;SZ[13];B[aa])";
  const std::string err = ErrorOf([&] { CheckExpertCollection(d, 9); });
  EXPECT_NE(err.find(d + "/a/b/three.sgf"), std::string::npos) << err;
  EXPECT_NE(err.find("13x13"), std::string::npos) << err;
  const std::string none = ErrorOf([&] { CheckExpertCollection(d + "/a/missing", 9); });
  EXPECT_NE(none.find(d + "/a/missing"), std::string::npos) << none;
  fs::remove_all(d);
}

}  // namespace
}  // namespace trainbench::go

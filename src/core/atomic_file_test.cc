#include "core/atomic_file.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "core/error.h"

namespace trainbench::core {
namespace {

TEST(AtomicFile, WritesReplacesAndLeavesNoTemporary) {
  std::string dir = testing::TempDir() + "/atomic";
  MakeDirs(dir + "/a/b");
  std::string p = dir + "/a/b/out.txt";
  WriteFileAtomically(p, "one");
  EXPECT_EQ(ReadFile(p), "one");
  WriteFileAtomically(p, "two\n");
  EXPECT_EQ(ReadFile(p), "two\n");
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir + "/a/b")) {
    (void)e;
    ++files;
  }
  EXPECT_EQ(files, 1);
}

TEST(AtomicFile, FailureNamesThePathAndKeepsTheOldFile) {
  std::string dir = testing::TempDir() + "/atomic2";
  MakeDirs(dir);
  try {
    WriteFileAtomically(dir + "/missing_dir/out.txt", "x");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(dir + "/missing_dir/out.txt"), std::string::npos);
  }
  try {
    ReadFile(dir + "/nope");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("nope"), std::string::npos);
  }
}

}  // namespace
}  // namespace trainbench::core

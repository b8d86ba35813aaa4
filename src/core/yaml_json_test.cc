// The configuration YAML loader (yaml_json.h): what it refuses before the readers walk the
// document (alias bombs, alias cycles, non-string keys, deep nesting, files that are not
// regular files), each as a core::Error naming the file, line and column; and what it keeps.
#include "core/yaml_json.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/error.h"

namespace trainbench::core {
namespace {

std::string ErrorOf(const std::string& text) {
  try {
    LoadYamlText(text, "c.yaml");
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

// Nine lists of nine aliases of the list before: 9^9 (387 million) scalars once expanded.
std::string AliasBomb() {
  std::string text = "x0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n";
  for (int i = 1; i <= 8; ++i) {
    const std::string prev = "*a" + std::to_string(i - 1);
    text += "x" + std::to_string(i) + ": &a" + std::to_string(i) + " [" + prev;
    for (int k = 1; k < 9; ++k) text += ", " + prev;
    text += "]\n";
  }
  return text;
}

TEST(ConfigYaml, AnAliasBombIsRefusedWithoutBeingExpanded) {
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(ErrorOf(AliasBomb()),
            "c.yaml:6:10: invalid YAML: more than 100000 nodes with the aliases expanded (an alias "
            "counts as the whole node it refers to)");
  // Refused after the events of the file, not after 387 million nodes.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
}

TEST(ConfigYaml, AliasesWithinTheBoundAreKept) {
  const Json j =
      YamlToJson(LoadYamlText("a: &s {x: 1, y: [2, 3]}\nb: *s\nk: &k name\n*k : 4\n", "c.yaml"));
  EXPECT_EQ(j, Json::parse(R"({"a": {"x": 1, "y": [2, 3]}, "b": {"x": 1, "y": [2, 3]},
                               "k": "name", "name": 4})"));
}

TEST(ConfigYaml, KeysMustBeStrings) {
  // An alias of a map as a key made yaml-cpp's as<std::string>() throw outside every handler.
  EXPECT_EQ(ErrorOf("x: &m {k: v}\nbenchmarks:\n  *m : {mini: {a: 1}}\n"),
            "c.yaml:3:3: invalid YAML: a map key must be a string, not a map");
  EXPECT_EQ(ErrorOf("[a, b]: 1\n"),
            "c.yaml:1:1: invalid YAML: a map key must be a string, not a sequence");
  EXPECT_EQ(ErrorOf("a: 1\n~: 2\n"),
            "c.yaml:2:1: invalid YAML: a map key must be a string, not null");
  EXPECT_EQ(ErrorOf("a: &n\nb: {*n : 1}\n"),
            "c.yaml:2:5: invalid YAML: a map key must be a string, not null");
}

TEST(ConfigYaml, AnAliasInsideItsOwnNodeIsACycle) {
  EXPECT_EQ(ErrorOf("a: &a [1, *a]\n"),
            "c.yaml:1:11: invalid YAML: an alias inside the node it refers to (a cycle)");
  // An anchor name that was never defined (`*a:` is the anchor "a:").
  EXPECT_EQ(ErrorOf("a: &a x\n*a: 1\n"),
            "c.yaml:2:1: invalid YAML: the referenced anchor is not defined");
}

TEST(ConfigYaml, NestingIsBounded) {
  const auto nested = [](int n) {
    return "a: " + std::string(n, '[') + std::string(n, ']') + "\n";
  };
  EXPECT_EQ(ErrorOf(nested(1000)), "c.yaml:1:" + std::to_string(3 + kMaxYamlDepth) +
                                       ": invalid YAML: nested deeper than " +
                                       std::to_string(kMaxYamlDepth) + " levels");
  EXPECT_EQ(ErrorOf(nested(kMaxYamlDepth - 1)), "(no error)");  // the map is the first level
}

TEST(ConfigYaml, SyntaxErrorsNameLineAndColumn) {
  EXPECT_EQ(ErrorOf("a: 1\nb: [1, 2\n"),
            "c.yaml:3:1: invalid YAML: end of sequence flow not found");
}

TEST(ConfigYaml, OnlyRegularFilesOfBoundedSizeAreRead) {
  const std::string dir = testing::TempDir() + "/config_yaml_dir";
  std::filesystem::create_directories(dir);
  const auto error_of_file = [](const std::string& path) -> std::string {
    try {
      LoadYamlFile(path);
    } catch (const Error& e) {
      return e.what();
    }
    return "(no error)";
  };
  EXPECT_EQ(error_of_file(dir), dir + ": is a directory, not a file");
  // Opening a FIFO for reading would wait for a writer; it is refused at once.
  const std::string fifo = dir + "/fifo.yaml";
  std::filesystem::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(error_of_file(fifo), fifo + ": is a FIFO (named pipe), not a regular file");
  EXPECT_EQ(error_of_file("/dev/zero"), "/dev/zero: is a character device, not a regular file");
  const std::string big = dir + "/big.yaml";
  std::ofstream(big) << "a: '" << std::string(kMaxYamlFileBytes, 'x') << "'\n";
  EXPECT_EQ(error_of_file(big), big + ": is " + std::to_string(kMaxYamlFileBytes + 6) +
                                    " bytes, more than the " + std::to_string(kMaxYamlFileBytes) +
                                    " such a file may have");
  std::string why;
  EXPECT_FALSE(LoadYamlFile(dir + "/absent.yaml", &why).IsMap());
  EXPECT_EQ(why, "No such file or directory");
  EXPECT_EQ(error_of_file(dir + "/absent.yaml"),
            dir + "/absent.yaml: cannot open: No such file or directory");
}

}  // namespace
}  // namespace trainbench::core

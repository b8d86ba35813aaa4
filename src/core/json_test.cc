#include "core/json.h"

#include <gtest/gtest.h>

namespace trainbench::core {
namespace {

TEST(PythonFloatRepr, MatchesPythonRepr) {
  EXPECT_EQ(PythonFloatRepr(0.0001), "0.0001");
  EXPECT_EQ(PythonFloatRepr(5e-05), "5e-05");
  EXPECT_EQ(PythonFloatRepr(2.0), "2.0");
  EXPECT_EQ(PythonFloatRepr(0.0), "0.0");
  EXPECT_EQ(PythonFloatRepr(10.5), "10.5");
  EXPECT_EQ(PythonFloatRepr(0.1), "0.1");
  EXPECT_EQ(PythonFloatRepr(0.7612), "0.7612");
  EXPECT_EQ(PythonFloatRepr(1e16), "1e+16");
  EXPECT_EQ(PythonFloatRepr(1234567890123456.0), "1234567890123456.0");
  EXPECT_EQ(PythonFloatRepr(-1.5e-07), "-1.5e-07");
  EXPECT_EQ(PythonFloatRepr(1.0 / 3.0), "0.3333333333333333");
  EXPECT_EQ(PythonFloatRepr(123.456), "123.456");
}

TEST(PythonJsonDumps, UsesPythonSeparatorsAndEscapes) {
  Json j = Json::object();
  j["a"] = 1;
  j["b"] = Json::array({1.5, "x", nullptr, true});
  j["c"] = "caf\xc3\xa9";
  EXPECT_EQ(PythonJsonDumps(j), R"({"a": 1, "b": [1.5, "x", null, true], "c": "caf\u00e9"})");
  EXPECT_EQ(PythonJsonDumps(Json::object()), "{}");
}

}  // namespace
}  // namespace trainbench::core

namespace trainbench::core {
namespace {

TEST(JsonFirstDifference, NamesTheFirstDifferingKeyPath) {
  const Json a = Json::parse(R"({"seed": 1, "corpus": {"min_words": 4, "max_words": 25}})");
  Json b = a;
  EXPECT_EQ(JsonFirstDifference(a, b), "");
  b["corpus"]["max_words"] = 30;
  EXPECT_EQ(JsonFirstDifference(a, b), "corpus.max_words");
  EXPECT_EQ(JsonValueAt(b, "corpus.max_words"), "30");
  EXPECT_EQ(JsonValueAt(a, "corpus.nope"), "(absent)");
  b = a;
  b["extra"] = true;  // a key on one side only
  EXPECT_EQ(JsonFirstDifference(a, b), "extra");
  EXPECT_EQ(JsonFirstDifference(Json(1), Json(2)), "(value)");
}

}  // namespace
}  // namespace trainbench::core

namespace trainbench::core {
namespace {

TEST(ParseJson, RefusesNestingDeeperThanTheLimitBeforeBuildingIt) {
  // 65,000 levels: nlohmann's recursive copy and dump would overflow the stack.
  std::string deep(65000, '[');
  try {
    ParseJson(deep);
    FAIL() << "accepted 65000 levels";
  } catch (const JsonError& e) {
    EXPECT_STREQ(e.what(), "JSON nesting deeper than 512 levels at offset 512");
  }
  std::string ok = std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']');
  EXPECT_TRUE(ParseJson(ok).is_array());
  // Brackets inside strings (and escaped quotes) are not nesting.
  EXPECT_EQ(JsonNestingDepth(R"({"a": "[[[\"[[", "b": [1, {"c": 2}]})"), 3);
  EXPECT_EQ(JsonNestingDepth("3"), 0);
}

TEST(ParseJson, NumbersOutsideADoubleAreAnErrorNotALibraryException) {
  try {
    ParseJson(R"({"value": 1e400})");
    FAIL() << "accepted 1e400";
  } catch (const JsonError& e) {
    EXPECT_STREQ(e.what(), "number '1e400' is out of the range of a double");
  }
  EXPECT_THROW(ParseJson("[" + std::string(400, '9') + "]"), JsonError);
  try {
    ParseJson("{\"a\": }");
    FAIL() << "accepted a syntax error";
  } catch (const JsonError& e) {
    EXPECT_EQ(std::string(e.what()).find("[json.exception"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("syntax error"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace trainbench::core

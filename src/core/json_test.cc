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

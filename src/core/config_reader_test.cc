#include "core/config_reader.h"

#include <gtest/gtest.h>

#include <functional>

namespace trainbench::core {
namespace {

std::string ErrorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(ConfigReader, ReadsEachType) {
  const Json c = Json::parse(
      R"({"n": 3, "big": 5000000000, "x": 0.5, "one": 1, "b": true, "s": "sgd", "l": [1, 2]})");
  ConfigReader r(c);
  EXPECT_EQ(r.Int("n"), 3);
  EXPECT_EQ(r.Int("big"), 5000000000LL);
  EXPECT_EQ(r.Int32("n"), 3);
  EXPECT_DOUBLE_EQ(r.Float("x"), 0.5);
  EXPECT_DOUBLE_EQ(r.Float("one"), 1.0);  // an integer where a number is asked
  EXPECT_TRUE(r.Bool("b"));
  EXPECT_EQ(r.String("s"), "sgd");
  EXPECT_EQ(r.Raw("l").size(), 2u);
  EXPECT_TRUE(r.Has("n"));
  EXPECT_FALSE(r.Has("m"));
}

TEST(ConfigReader, ErrorsNameTheKeyAndTheValue) {
  const Json c =
      Json::parse(R"({"n": "3", "x": "half", "b": 1, "s": 2, "f": 1.5, "big": 5000000000})");
  ConfigReader r(c);
  EXPECT_EQ(ErrorOf([&] { r.Int("n"); }),
            "configuration key \"n\": expected an integer, got \"3\"");
  EXPECT_EQ(ErrorOf([&] { r.Int("f"); }), "configuration key \"f\": expected an integer, got 1.5");
  EXPECT_EQ(ErrorOf([&] { r.Int32("big"); }),
            "configuration key \"big\": expected an integer that fits 32 bits, got 5000000000");
  EXPECT_EQ(ErrorOf([&] { r.Float("x"); }),
            "configuration key \"x\": expected a number, got \"half\"");
  EXPECT_EQ(ErrorOf([&] { r.Bool("b"); }),
            "configuration key \"b\": expected true or false, got 1");
  EXPECT_EQ(ErrorOf([&] { r.String("s"); }), "configuration key \"s\": expected a string, got 2");
  EXPECT_EQ(ErrorOf([&] { r.Int("missing"); }),
            "configuration key \"missing\": missing from the configuration");
  const Json p = Json::parse(R"({"precision": "fp8", "ok": "bf16"})");
  EXPECT_EQ(ConfigReader(p).OneOf("ok", {"fp32", "bf16", "fp16"}), "bf16");
  EXPECT_EQ(ErrorOf([&] {
              ConfigReader(p).OneOf("precision", {"fp32", "bf16", "fp16"});
            }),
            "configuration key \"precision\": expected fp32, bf16 or fp16, got \"fp8\"");
}

}  // namespace
}  // namespace trainbench::core

#include "core/benchmark_def.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/error.h"
#include "core/paths.h"

namespace trainbench::core {
namespace {

std::string WriteTemp(const std::string& name, const std::string& text) {
  std::string dir = testing::TempDir() + "/benchdef";
  std::filesystem::create_directories(dir);
  std::string p = dir + "/" + name;
  std::ofstream(p) << text;
  return p;
}

const char* kGood = R"(name: toy
log_name: resnet
scales:
  mini:
    dataset: toy data
    metric: top1
    quality_target: 0.9
    runs_per_result: 5
    max_epochs: 10
    reference_time_minutes: 7.5
    hyperparameters:
      batch_size: {type: int, value: 128, min: 1, closed: {min: 16, max: 1024}}
      opt_name: {type: string, value: sgd, closed: {allowed: [sgd, lars]}}
      lr: {type: float, value: 0.1, min: 0, closed: free}
      width: {type: int, value: 16, closed: fixed}
      flag: {type: bool, value: false}
)";

std::string ErrorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(BenchmarkDef, LoadsAllFields) {
  BenchmarkDef d = LoadBenchmarkDef(WriteTemp("good.yaml", kGood));
  EXPECT_EQ(d.name, "toy");
  EXPECT_EQ(d.log_name, "resnet");
  const ScaleDef& s = d.Scale("mini");
  EXPECT_DOUBLE_EQ(s.quality_target, 0.9);
  EXPECT_EQ(s.runs_per_result, 5);
  EXPECT_EQ(s.eval_every_epochs, 1);
  EXPECT_EQ(s.max_epochs, 10);
  EXPECT_DOUBLE_EQ(s.reference_time_minutes, 7.5);
  ASSERT_EQ(s.hyperparameters.size(), 5u);
  EXPECT_EQ(s.Find("batch_size")->reference, 128);
  EXPECT_TRUE(s.Find("width")->closed_fixed);
  EXPECT_TRUE(s.Find("flag")->closed_fixed);  // no `closed`: fixed
  EXPECT_FALSE(s.Find("lr")->closed_fixed);
  EXPECT_NE(ErrorOf([&] { d.Scale("full"); }).find("has no scale \"full\""), std::string::npos);
}

TEST(BenchmarkDef, ErrorsNameTheFileLineAndKey) {
  std::string p = WriteTemp("bad.yaml",
                            "name: toy\nlog_name: resnet\nscales:\n  mini:\n    dataset: d\n"
                            "    metric: top1\n    quality_target: high\n");
  std::string e = ErrorOf([&] { LoadBenchmarkDef(p); });
  EXPECT_NE(e.find(p + ":7"), std::string::npos) << e;
  EXPECT_NE(e.find("scales.mini.quality_target"), std::string::npos) << e;
  p = WriteTemp("bad2.yaml", "name: [oops\n");
  e = ErrorOf([&] { LoadBenchmarkDef(p); });
  EXPECT_NE(e.find(p + ":"), std::string::npos) << e;
  EXPECT_NE(e.find("invalid YAML"), std::string::npos) << e;
}

// An alias bomb in a definition (nine lists of nine aliases of the list before, used as a
// hyperparameter's `allowed` list) is refused by line and column before YamlToJson expands it;
// it ran until memory ran out before (#41).
TEST(BenchmarkDef, RefusesAnAliasBombAndADirectory) {
  std::string bomb = "x0: &a0 [1, 1, 1, 1, 1, 1, 1, 1, 1]\n";
  for (int i = 1; i <= 8; ++i) {
    const std::string prev = "*a" + std::to_string(i - 1);
    bomb += "x" + std::to_string(i) + ": &a" + std::to_string(i) + " [" + prev;
    for (int k = 1; k < 9; ++k) bomb += ", " + prev;
    bomb += "]\n";
  }
  bomb += std::string(kGood).substr(0, std::string(kGood).find("      flag:")) +
          "      flag: {type: int, value: 1, allowed: *a8}\n";
  const std::string p = WriteTemp("bomb.yaml", bomb);
  EXPECT_EQ(
      ErrorOf([&] { LoadBenchmarkDef(p); }),
      p + ":6:10: invalid YAML: more than 100000 nodes with the aliases expanded (an alias counts "
          "as the whole node it refers to)");
  const std::string dir = testing::TempDir() + "/benchdef_dir.yaml";
  std::filesystem::create_directories(dir);
  EXPECT_EQ(ErrorOf([&] { LoadBenchmarkDef(dir); }), dir + ": is a directory, not a file");
}

TEST(BenchmarkDef, ReadsSecondaryTargetsInOrderAndRejectsBadOnes) {
  std::string head =
      "name: toy\nlog_name: maskrcnn\nscales:\n  mini:\n    dataset: d\n    metric: bbox_map\n"
      "    quality_target: 0.3\n    runs_per_result: 5\n    max_epochs: 3\n";
  BenchmarkDef d = LoadBenchmarkDef(
      WriteTemp("two.yaml", head + "    secondary_targets: {segm_map: 0.25, x: 1}\n"
                                   "    hyperparameters: {}\n"));
  const auto& t = d.Scale("mini").secondary_targets;
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[0].first, "segm_map");
  EXPECT_DOUBLE_EQ(t[0].second, 0.25);
  EXPECT_EQ(t[1].first, "x");
  EXPECT_TRUE(LoadBenchmarkDef(WriteTemp("one.yaml", head + "    hyperparameters: {}\n"))
                  .Scale("mini")
                  .secondary_targets.empty());
  std::string p = WriteTemp(
      "badt.yaml", head + "    secondary_targets: {segm_map: high}\n    hyperparameters: {}\n");
  std::string e = ErrorOf([&] { LoadBenchmarkDef(p); });
  EXPECT_NE(e.find("scales.mini.secondary_targets.segm_map"), std::string::npos) << e;
  EXPECT_NE(e.find(p + ":10"), std::string::npos) << e;
  p = WriteTemp("badt2.yaml", head + "    secondary_targets: [0.25]\n    hyperparameters: {}\n");
  EXPECT_NE(ErrorOf([&] { LoadBenchmarkDef(p); }).find("expected a map"), std::string::npos);
  p = WriteTemp("badt3.yaml",
                head + "    secondary_targets: {bbox_map: 0.2}\n    hyperparameters: {}\n");
  EXPECT_NE(ErrorOf([&] { LoadBenchmarkDef(p); }).find("other than `metric`"), std::string::npos);
}

TEST(BenchmarkDef, ReadsThePresetAndRefusesOneThatOverlapsOrNests) {
  const std::string head =
      "name: toy\nlog_name: resnet\nscales:\n  mini:\n    dataset: d\n    metric: top1\n"
      "    quality_target: 0.3\n    runs_per_result: 5\n    max_epochs: 3\n"
      "    hyperparameters:\n      width: {type: int, value: 16}\n";
  const BenchmarkDef d = LoadBenchmarkDef(WriteTemp(
      "preset.yaml", head + "    preset: {in_channels: 1, stem: cifar, blocks: [3, 4]}\n"));
  const Json& preset = d.Scale("mini").preset;
  EXPECT_EQ(preset, (Json{{"in_channels", 1}, {"stem", "cifar"}, {"blocks", {3, 4}}}));
  // The options structs read the two together; the effective configuration alone has no preset.
  EXPECT_EQ(WithPreset(Json{{"width", 16}}, preset),
            (Json{{"width", 16}, {"in_channels", 1}, {"stem", "cifar"}, {"blocks", {3, 4}}}));
  EXPECT_TRUE(LoadBenchmarkDef(WriteTemp("nopreset.yaml", head)).Scale("mini").preset.empty());
  std::string p = WriteTemp("preset_dup.yaml", head + "    preset: {width: 8}\n");
  EXPECT_EQ(ErrorOf([&] { LoadBenchmarkDef(p); }),
            p + ":12: key \"scales.mini.preset.width\": is also a hyperparameter: a key is "
                "fixed by the scale or set, not both");
  p = WriteTemp("preset_nested.yaml", head + "    preset: {model: {depth: 50}}\n");
  EXPECT_NE(ErrorOf([&] { LoadBenchmarkDef(p); })
                .find("scales.mini.preset.model\": expected a "
                      "scalar or a list of scalars"),
            std::string::npos);
  p = WriteTemp("preset_list.yaml", head + "    preset: [1, 2]\n");
  EXPECT_NE(ErrorOf([&] { LoadBenchmarkDef(p); }).find("expected a map"), std::string::npos);
}

TEST(ResolveConfig, AppliesAndValidatesOverrides) {
  BenchmarkDef d = LoadBenchmarkDef(WriteTemp("good.yaml", kGood));
  const ScaleDef& s = d.Scale("mini");
  ResolvedConfig r = ResolveConfig(s, {{"batch_size", "256"}, {"lr", "0.4"}}, Division::kClosed);
  EXPECT_EQ(r.effective["batch_size"], 256);
  EXPECT_DOUBLE_EQ(r.effective["lr"].get<double>(), 0.4);
  EXPECT_EQ(r.effective["width"], 16);
  EXPECT_EQ(r.requested["batch_size"], "256");
  EXPECT_FALSE(r.requested.contains("width"));

  auto err = [&](std::map<std::string, std::string> o, Division d) {
    return ErrorOf([&] { ResolveConfig(s, o, d); });
  };
  EXPECT_NE(err({{"nope", "1"}}, Division::kClosed).find("unknown configuration key \"nope\""),
            std::string::npos);
  EXPECT_NE(err({{"batch_size", "12x"}}, Division::kClosed).find("not a valid int"),
            std::string::npos);
  EXPECT_NE(err({{"batch_size", "0"}}, Division::kOpen).find("below the minimum"),
            std::string::npos);
  EXPECT_NE(err({{"batch_size", "8"}}, Division::kClosed).find("closed division: below 16"),
            std::string::npos);
  EXPECT_NE(err({{"width", "32"}}, Division::kClosed).find("fixed at the reference value 16"),
            std::string::npos);
  EXPECT_NE(err({{"opt_name", "adam"}}, Division::kClosed).find("not one of {sgd, lars}"),
            std::string::npos);
  EXPECT_NE(err({{"flag", "maybe"}}, Division::kOpen).find("not a valid bool"), std::string::npos);
  // The open division lifts the closed rules, not the hard bounds.
  EXPECT_EQ(
      ResolveConfig(s, {{"width", "32"}, {"batch_size", "8"}}, Division::kOpen).effective["width"],
      32);
  // Setting a fixed key to its reference value is allowed in the closed division.
  EXPECT_EQ(ResolveConfig(s, {{"width", "16"}}, Division::kClosed).effective["width"], 16);
}

// Found by benchmark_def_fuzz: a value that is not UTF-8 (from the file or from --set) reached
// the result log's JSON serializer, which throws nlohmann's type_error instead of a core::Error.
TEST(BenchmarkDef, TextThatIsNotUtf8IsAnErrorNamingTheLineOrKey) {
  std::string p = WriteTemp("latin1.yaml",
                            std::string(kGood) + "      extra: {type: string, value: caf\xe9}\n");
  std::string e = ErrorOf([&] { LoadBenchmarkDef(p); });
  EXPECT_NE(e.find(p + ":17: invalid UTF-8 at byte"), std::string::npos) << e;
  const ScaleDef s = LoadBenchmarkDef(WriteTemp("good.yaml", kGood)).Scale("mini");
  e = ErrorOf([&] { ResolveConfig(s, {{"opt_name", "caf\xe9"}}, Division::kOpen); });
  EXPECT_NE(e.find("configuration key \"opt_name\": value is not text: invalid UTF-8"),
            std::string::npos)
      << e;
}

TEST(BenchmarkDef, ShippedDefinitionsLoadAndTheirReferencesAreClosedCompliant) {
  for (const auto& d :
       LoadAllBenchmarks(std::string(TRAINBENCH_TEST_SRCDIR) + "/configs/benchmarks")) {
    for (const auto& [name, s] : d.scales) {
      EXPECT_NO_THROW(ResolveConfig(s, {}, Division::kClosed)) << d.name << " " << name;
      std::map<std::string, std::string> all;  // every reference value, given explicitly
      for (const auto& h : s.hyperparameters) {
        all[h.name] = h.reference.is_string() ? h.reference.get<std::string>() : h.reference.dump();
      }
      EXPECT_NO_THROW(ResolveConfig(s, all, Division::kClosed)) << d.name << " " << name;
    }
  }
}

}  // namespace
}  // namespace trainbench::core

#include "cli/set_options.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <set>

#include "core/benchmark_def.h"
#include "core/error.h"
#include "workloads/benchmark_table.h"

namespace trainbench::cli {
namespace {

struct Gen {
  uint64_t seed = 1;
  int64_t count = 10;
  int small = 3;
  double rate = 0.5;
  std::string name = "x";
  bool flag = true;
};

SetOptions Bound(Gen& g) {
  return SetOptions("unknown option of the test generator")
      .Int("seed", &g.seed)
      .Int("count", &g.count)
      .Int("small", &g.small)
      .Float("rate", &g.rate)
      .Text("name", &g.name)
      .Flag("flag", &g.flag);
}

std::string ErrorOf(const std::vector<std::string>& set) {
  Gen g;
  try {
    Bound(g).Apply(set);
  } catch (const core::Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(SetOptions, SetsEachBoundField) {
  Gen g;
  Bound(g).Apply(
      {"seed=18446744073709551", "count=-4", "small=7", "rate=2.5e-3", "name=a=b", "flag=false"});
  EXPECT_EQ(g.seed, 18446744073709551ULL);
  EXPECT_EQ(g.count, -4);
  EXPECT_EQ(g.small, 7);
  EXPECT_DOUBLE_EQ(g.rate, 2.5e-3);
  EXPECT_EQ(g.name, "a=b");  // the first '=' splits
  EXPECT_FALSE(g.flag);
  Bound(g).Apply({"flag=1"});
  EXPECT_TRUE(g.flag);
  Bound(g).Apply({});  // nothing to set: nothing changes
  EXPECT_EQ(g.small, 7);
}

TEST(SetOptions, ErrorsNameTheKeyAndTheValue) {
  EXPECT_EQ(ErrorOf({"nope=1"}), "--set nope: unknown option of the test generator");
  EXPECT_EQ(ErrorOf({"count=abc"}), "--set count: \"abc\" is not a number");
  EXPECT_EQ(ErrorOf({"count=12x"}), "--set count: \"12x\" is not a number");
  EXPECT_EQ(ErrorOf({"rate=0.5.5"}), "--set rate: \"0.5.5\" is not a number");
  EXPECT_EQ(ErrorOf({"small=3000000000"}),
            "--set small: \"3000000000\" is out of range");  // not truncated to int
  EXPECT_EQ(ErrorOf({"seed=-1"}), "--set seed: \"-1\" is out of range");
  EXPECT_EQ(ErrorOf({"count=99999999999999999999"}),
            "--set count: \"99999999999999999999\" is out of range");
  EXPECT_EQ(ErrorOf({"flag=yes"}), "--set flag: \"yes\" is not 0, 1, true or false");
  EXPECT_EQ(ErrorOf({"count"}), "--set \"count\": expected key=value");
}

// The benchmark table against the definitions: every row names a definition, every definition
// has a row, and no two rows share a name.
TEST(BenchmarkTable, OneRowPerDefinition) {
  std::set<std::string> rows;
  for (const workloads::BenchmarkRow& r : workloads::kBenchmarks) {
    EXPECT_TRUE(rows.insert(std::string(r.name)).second) << r.name;
    EXPECT_EQ(workloads::FindBenchmarkRow(r.name), &r);
    EXPECT_NE(workloads::FirstBenchmarkOn(r.dataset), nullptr);
  }
  std::set<std::string> defs;
  for (const core::BenchmarkDef& d :
       core::LoadAllBenchmarks(std::string(TRAINBENCH_TEST_SRCDIR) + "/configs/benchmarks")) {
    defs.insert(d.name);
  }
  EXPECT_EQ(rows, defs);
  EXPECT_EQ(workloads::FindBenchmarkRow("nope"), nullptr);
  EXPECT_EQ(workloads::FirstBenchmarkOn("detection")->name, "object_detection");
}

}  // namespace
}  // namespace trainbench::cli

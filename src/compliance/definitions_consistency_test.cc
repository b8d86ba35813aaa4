// The mini-scale quality targets live twice, on purpose: in the benchmark definitions (what
// `run` stops at) and in trainbench's rule files (what `check` demands). This test keeps them
// equal: for every definition with a mini scale, rules/trainbench-1.0/<log_name>_mini.yaml must
// demand eval_accuracy >= the definition's quality_target, for successful runs.
#include <gtest/gtest.h>

#include "compliance/rules.h"
#include "core/benchmark_def.h"

namespace trainbench::compliance {
namespace {

TEST(DefinitionsConsistency, MiniTargetsInRulesMatchTheBenchmarkDefinitions) {
  const std::string root = TRAINBENCH_TEST_SRCDIR;
  Ruleset rs = LoadRuleset(root + "/rules", "trainbench-1.0");
  int checked = 0;
  for (const auto& def : core::LoadAllBenchmarks(root + "/configs/benchmarks")) {
    auto it = def.scales.find("mini");
    if (it == def.scales.end()) continue;
    const auto* files = rs.Find(def.log_name + "_mini.yaml");
    ASSERT_NE(files, nullptr) << "no " << def.log_name << "_mini.yaml in trainbench-1.0";
    const Rule* rule = nullptr;
    for (const auto& f : *files) {
      if (const Rule* r = f.Find("eval_accuracy")) rule = r;
    }
    ASSERT_NE(rule, nullptr) << def.name;
    ASSERT_TRUE(rule->at_least_one.has_value()) << def.name;
    std::optional<double> ge;
    for (const auto& c : rule->at_least_one->checks) {
      if (c.kind == CheckKind::kRange && c.ge) ge = c.ge;
    }
    ASSERT_TRUE(ge.has_value()) << def.name;
    EXPECT_DOUBLE_EQ(*ge, it->second.quality_target) << def.name;
    ++checked;
  }
  EXPECT_GE(checked, 1);
}

}  // namespace
}  // namespace trainbench::compliance

// The mini-scale quality targets live twice, on purpose: in the benchmark definitions (what
// `run` stops at) and in trainbench's rule files (what `check` demands). This test keeps them
// equal: for every definition with a mini scale, rules/trainbench-1.0/<log_name>_mini.yaml must
// demand eval_accuracy >= the definition's quality_target, for successful runs.
#include <gtest/gtest.h>

#include <map>

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
    // The primary target is the first range on the value (or, for a value object such as Mask
    // R-CNN's {"BBOX": .., "SEGM": ..}, on one of its fields).
    std::optional<double> ge;
    std::string primary_field;
    auto on_value = [](const Check& c) {
      return c.field == "value" || c.field.rfind("value.", 0) == 0;
    };
    for (const auto& c : rule->at_least_one->checks) {
      if (c.kind == CheckKind::kRange && on_value(c) && c.ge && !ge) {
        ge = c.ge;
        primary_field = c.field;
      }
    }
    ASSERT_TRUE(ge.has_value()) << def.name;
    EXPECT_DOUBLE_EQ(*ge, it->second.quality_target) << def.name;
    // Each secondary target (Mask R-CNN's segm_map) is a range on metadata.<name>, or on another
    // field of the value object, in the same at_least_one, so both hold on one evaluation.
    for (const auto& [name, minimum] : it->second.secondary_targets) {
      std::optional<double> sge;
      for (const auto& c : rule->at_least_one->checks) {
        bool other_field = c.field == "metadata." + name ||
                           (primary_field != "value" && on_value(c) && c.field != primary_field);
        if (c.kind == CheckKind::kRange && other_field && c.ge) sge = c.ge;
      }
      ASSERT_TRUE(sge.has_value()) << def.name << ": no range for " << name;
      EXPECT_DOUBLE_EQ(*sge, minimum) << def.name << " " << name;
      ++checked;
    }
    ++checked;
  }
  EXPECT_GE(checked, 1);
}

// The closed NCF rules fix the model per scale (closed_ncf_<scale>.yaml): the sizes they allow
// must be the definition's fixed mf_dim and mlp_layer_sizes, or every reference run would fail.
TEST(DefinitionsConsistency, ClosedNcfModelSizesMatchTheRecommendationDefinition) {
  const std::string root = TRAINBENCH_TEST_SRCDIR;
  Ruleset rs = LoadRuleset(root + "/rules", "trainbench-1.0");
  core::BenchmarkDef def = core::FindBenchmark(root + "/configs/benchmarks", "recommendation");
  for (const auto& [scale, s] : def.scales) {
    const auto* files = rs.Find("closed_ncf_" + scale + ".yaml");
    ASSERT_NE(files, nullptr) << scale;
    auto allowed = [&](const char* key) {
      for (const auto& f : *files) {
        if (const Rule* r = f.Find(key)) {
          for (const auto& c : r->checks) {
            if (c.kind == CheckKind::kOneOf) return c.values;
          }
        }
      }
      return std::vector<Json>{};
    };
    const Json mf = s.Find("mf_dim")->reference;
    EXPECT_EQ(allowed("model_hp_mf_dim"), std::vector<Json>{mf}) << scale;
    Json layers = Json::array();
    std::string text = s.Find("mlp_layer_sizes")->reference.get<std::string>();
    for (size_t p = 0; p <= text.size();) {
      size_t q = text.find(',', p);
      if (q == std::string::npos) q = text.size();
      layers.push_back(std::stoll(text.substr(p, q - p)));
      p = q + 1;
    }
    EXPECT_EQ(allowed("model_hp_mlp_layer_sizes"), std::vector<Json>{layers}) << scale;
    EXPECT_TRUE(s.Find("mf_dim")->closed_fixed && s.Find("mlp_layer_sizes")->closed_fixed) << scale;
  }
}

}  // namespace
}  // namespace trainbench::compliance

namespace trainbench::compliance {
namespace {

// The closed translation and SSD rules fix the model per scale (closed_<log_name>_<scale>.yaml, keys
// model_hp_<hyperparameter> and max_sequence_length = max_train_length): each value they allow
// must be the definition's fixed reference value, or every reference run would fail `check`.
TEST(DefinitionsConsistency, ClosedTranslationModelsMatchTheDefinitions) {
  const std::string root = TRAINBENCH_TEST_SRCDIR;
  Ruleset rs = LoadRuleset(root + "/rules", "trainbench-1.0");
  int checked = 0;
  for (const char* name : {"translation", "rnn_translation", "object_detection", "instance_segmentation"}) {
    core::BenchmarkDef def = core::FindBenchmark(root + "/configs/benchmarks", name);
    for (const auto& [scale, s] : def.scales) {
      const auto* files = rs.Find("closed_" + def.log_name + "_" + scale + ".yaml");
      ASSERT_NE(files, nullptr) << name << " " << scale;
      for (const auto& f : *files) {
        for (const auto& r : f.rules) {
          std::string hp;
          if (r.key == "max_sequence_length") hp = "max_train_length";
          else if (r.key.rfind("model_hp_", 0) == 0) hp = r.key.substr(9);
          else continue;
          const auto* h = s.Find(hp);
          ASSERT_NE(h, nullptr) << name << " " << scale << ": no hyperparameter " << hp << " for " << r.key;
          EXPECT_TRUE(h->closed_fixed) << name << " " << scale << " " << hp;
          bool found = false;
          for (const auto& c : r.checks) {
            if (c.kind == CheckKind::kOneOf) {
              EXPECT_EQ(c.values, std::vector<Json>{h->reference}) << name << " " << scale << " " << r.key;
              found = true;
            }
          }
          EXPECT_TRUE(found) << r.key;
          ++checked;
        }
      }
    }
  }
  EXPECT_GE(checked, 20);
}

// The closed MiniGo rules fix the network, the search and the training per scale under the
// workload's log names; each value they allow must be the definition's fixed reference value.
TEST(DefinitionsConsistency, ClosedMiniGoSettingsMatchTheDefinition) {
  const std::string root = TRAINBENCH_TEST_SRCDIR;
  Ruleset rs = LoadRuleset(root + "/rules", "trainbench-1.0");
  const std::map<std::string, std::string> hp_of = {
      {"opt_base_learning_rate", "base_lr"}, {"model_filters", "filters"}, {"model_blocks", "blocks"},
      {"model_value_fc", "value_fc"}, {"selfplay_games_per_generation", "games_per_generation"},
      {"selfplay_readouts", "readouts"}, {"selfplay_temperature_moves", "temperature_moves"},
      {"selfplay_pass_allowed_from_move", "pass_allowed_from_move"}, {"selfplay_playout_weight", "playout_weight"},
      {"train_value_target_q_weight", "value_target_q_weight"},
      {"train_steps_per_generation", "train_steps"}, {"train_window_generations", "window_generations"},
      {"global_batch_size", "batch_size"}, {"gating_games", "gating_games"}, {"eval_readouts", "eval_readouts"},
      {"eval_gnugo_level", "gnugo_level"}};
  core::BenchmarkDef def = core::FindBenchmark(root + "/configs/benchmarks", "reinforcement_learning");
  int checked = 0;
  for (const auto& [scale, s] : def.scales) {
    const auto* files = rs.Find("closed_minigo_" + scale + ".yaml");
    ASSERT_NE(files, nullptr) << scale;
    for (const auto& f : *files) {
      for (const auto& r : f.rules) {
        if (r.key == "trainbench_scale") continue;
        auto it = hp_of.find(r.key);
        ASSERT_NE(it, hp_of.end()) << scale << ": no hyperparameter known for " << r.key;
        const auto* h = s.Find(it->second);
        ASSERT_NE(h, nullptr) << scale << ": no hyperparameter " << it->second;
        EXPECT_TRUE(h->closed_fixed) << scale << " " << it->second;
        ASSERT_EQ(r.checks.size(), 1u) << r.key;
        ASSERT_EQ(r.checks[0].kind, CheckKind::kOneOf) << r.key;
        ASSERT_EQ(r.checks[0].values.size(), 1u) << r.key;
        EXPECT_DOUBLE_EQ(r.checks[0].values[0].get<double>(), h->reference.get<double>()) << scale << " " << r.key;
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 2 * static_cast<int>(hp_of.size()));
}

}  // namespace
}  // namespace trainbench::compliance

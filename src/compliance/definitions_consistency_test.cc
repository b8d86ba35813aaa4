// The mini-scale quality targets live twice, on purpose: in the benchmark definitions (what
// `run` stops at) and in trainbench's rule files (what `check` demands). This test keeps them
// equal: for every definition with a mini scale, rules/trainbench-1.0/<log_name>_mini.yaml must
// demand eval_accuracy >= the definition's quality_target, for successful runs.
#include <gtest/gtest.h>

#include <algorithm>
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

// The closed rules of each scale (closed_<log_name>[_<variant>]_<scale>.yaml) fix values that
// the definitions fix too. Every such rule must name a hyperparameter by the MLLOG key its
// definition gives it (`mllog:`), that hyperparameter must be closed-fixed, and the rule must
// allow exactly its reference value; otherwise every reference run would fail `check`, or the
// rule would be stricter than the definition. Keys whose logged value is derived (not a
// configured value as it is) are listed in kDerived and checked by their own tests.
TEST(DefinitionsConsistency, ClosedRulesDemandTheDefinitionsFixedValues) {
  const std::string root = TRAINBENCH_TEST_SRCDIR;
  Ruleset rs = LoadRuleset(root + "/rules", "trainbench-1.0");
  // key -> why it has no `mllog:` hyperparameter.
  const std::map<std::string, std::string> kDerived = {
      {"trainbench_scale", "the scale itself"},
      {"model_hp_pretrained_trunk", "the trunk file's SHA-256, not its path"},
      {"model_hp_mlp_layer_sizes", "a list parsed from a string (ClosedNcfModelSizes... above)"},
      {"global_batch_size", "logged by the harness; checked below against batch_size"},
      {"train_value_target_q_weight", "logged as the float the search uses (minigo.cc)"},
  };
  int checked = 0;
  for (const auto& def : core::LoadAllBenchmarks(root + "/configs/benchmarks")) {
    for (const auto& [scale, s] : def.scales) {
      std::map<std::string, const core::HyperparameterDef*> by_mllog;
      for (const auto& h : s.hyperparameters) {
        if (!h.mllog.empty()) {
          EXPECT_TRUE(by_mllog.emplace(h.mllog, &h).second)
              << def.name << " " << scale << ": two hyperparameters log " << h.mllog;
        }
      }
      for (const auto& [file, rule_files] : rs.files) {
        const std::string prefix = "closed_" + def.log_name + "_", suffix = "_" + scale + ".yaml";
        if (file.rfind(prefix, 0) != 0 || file.size() < suffix.size() ||
            file.compare(file.size() - suffix.size(), suffix.size(), suffix) != 0) {
          continue;
        }
        for (const auto& f : rule_files) {
          for (const auto& r : f.rules) {
            for (const auto& c : r.checks) {
              if (c.kind != CheckKind::kOneOf) continue;
              const std::string where = def.name + " " + scale + " " + file + ": " + r.key;
              const core::HyperparameterDef* h = nullptr;
              if (auto it = by_mllog.find(r.key); it != by_mllog.end()) {
                h = it->second;
              } else if (r.key == "global_batch_size") {
                h = s.Find("batch_size");
              } else if (s.preset.contains(r.key)) {
                // Logged from the scale's preset as it is (SSD's and Mask R-CNN's backbone).
                EXPECT_EQ(c.values, std::vector<Json>{s.preset[r.key]}) << where;
                ++checked;
                continue;
              } else {
                EXPECT_TRUE(kDerived.count(r.key))
                    << where << ": no hyperparameter of the definition has mllog: " << r.key;
                continue;
              }
              ASSERT_NE(h, nullptr) << where;
              EXPECT_TRUE(h->closed_fixed) << where << ": " << h->name << " is not closed: fixed";
              ASSERT_EQ(c.values.size(), 1u) << where;
              if (h->type == "float") {
                EXPECT_DOUBLE_EQ(c.values[0].get<double>(), h->reference.get<double>()) << where;
              } else {
                EXPECT_EQ(c.values[0], h->reference) << where;
              }
              ++checked;
            }
          }
        }
      }
    }
  }
  // Today: 8 Transformer, 7 GNMT, 4 SSD, 11 Mask R-CNN, 1 NCF and 16 MiniGo keys at mini scale,
  // and those of the full-scale files.
  EXPECT_GE(checked, 47);
}

// The other direction: every value the definition fixes in the closed division and the run logs
// as configured (a closed: fixed hyperparameter with an `mllog:` key) is demanded by a closed
// rule that applies at its scale (closed_<log>[_<variant>].yaml, official 4.0.0 file first, or
// closed_<log>[_<variant>]_<scale>.yaml), and every such rule allows the definition's value; so
// `check` refuses a closed log that changed it, and no reference run can fail it. The rules are
// complete, not a hand-picked subset. A key the rules leave out must say why in kUnchecked.
TEST(DefinitionsConsistency, EveryClosedFixedLoggedValueHasAClosedRule) {
  const std::string root = TRAINBENCH_TEST_SRCDIR;
  Ruleset rs = LoadRuleset(root + "/rules", "trainbench-1.0");
  auto ends_with = [](const std::string& s, const std::string& tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
  };
  // "<benchmark> <scale> <mllog key>" -> why no closed rule demands it.
  const std::map<std::string, std::string> kUnchecked = {
      {"reinforcement_learning mini train_batch_size",
       "global_batch_size, which the harness logs, is demanded with the same value (and older "
       "logs of docs/calibration have no train_batch_size)"},
      {"reinforcement_learning full train_batch_size", "as at mini"},
  };
  int checked = 0;
  for (const auto& def : core::LoadAllBenchmarks(root + "/configs/benchmarks")) {
    for (const auto& [scale, s] : def.scales) {
      std::map<std::string, std::vector<std::vector<Json>>> demanded;  // key -> one_of sets
      for (const auto& [file, rule_files] : rs.files) {
        if (file.rfind("closed_" + def.log_name, 0) != 0) continue;
        const std::string rest = file.substr(("closed_" + def.log_name).size());
        if (rest != ".yaml" && rest[0] != '_') continue;  // closed_ssdlite.yaml is not ssd's
        bool other_scale = false;
        for (const auto& [name, unused] : def.scales) {
          other_scale = other_scale || (name != scale && ends_with(file, "_" + name + ".yaml"));
        }
        if (other_scale) continue;
        for (const auto& f : rule_files) {
          for (const auto& r : f.rules) {
            for (const auto& c : r.checks) {
              if (c.kind == CheckKind::kOneOf) demanded[r.key].push_back(c.values);
            }
          }
        }
      }
      for (const auto& h : s.hyperparameters) {
        if (!h.closed_fixed || h.mllog.empty()) continue;
        const std::string id = def.name + " " + scale + " " + h.mllog;
        if (kUnchecked.count(id)) continue;
        const auto& sets = demanded[h.mllog];
        EXPECT_FALSE(sets.empty()) << id << ": closed: fixed and logged, but no closed_"
                                   << def.log_name << " rule of scale " << scale << " demands it";
        for (const auto& values : sets) {
          bool allowed = false;
          for (const auto& v : values) {
            allowed = allowed || v == h.reference ||
                      (v.is_number() && h.reference.is_number() &&
                       v.get<double>() == h.reference.get<double>());
          }
          EXPECT_TRUE(allowed) << id << ": a closed rule allows " << Json(values).dump()
                               << ", the definition fixes " << h.reference.dump();
        }
        ++checked;
      }
    }
  }
  EXPECT_GE(checked, 47);
}

// Each division's submission_benchmark rule lists the benchmarks it knows and includes their
// closed_<log_name>.yaml / open_<log_name>.yaml: every definition's log name must be in both
// lists and have both files, or `check` would refuse a run of it.
TEST(DefinitionsConsistency, EveryBenchmarkHasItsDivisionRules) {
  const std::string root = TRAINBENCH_TEST_SRCDIR;
  Ruleset rs = LoadRuleset(root + "/rules", "trainbench-1.0");
  int checked = 0;
  for (const char* division : {"closed", "open"}) {
    const auto* common = rs.Find(std::string(division) + "_common.yaml");
    ASSERT_NE(common, nullptr) << division;
    std::vector<Json> listed;
    for (const auto& f : *common) {
      if (const Rule* r = f.Find("submission_benchmark")) {
        for (const auto& c : r->checks) {
          if (c.kind == CheckKind::kOneOf) listed = c.values;
        }
      }
    }
    for (const auto& def : core::LoadAllBenchmarks(root + "/configs/benchmarks")) {
      EXPECT_NE(std::find(listed.begin(), listed.end(), Json(def.log_name)), listed.end())
          << division << "_common.yaml: submission_benchmark does not list " << def.log_name << " ("
          << def.name << ")";
      EXPECT_NE(rs.Find(std::string(division) + "_" + def.log_name + ".yaml"), nullptr)
          << "no " << division << "_" << def.log_name << ".yaml for " << def.name;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 14);
}

}  // namespace
}  // namespace trainbench::compliance

#include "compliance/rules.h"

#include <gtest/gtest.h>

#include "compliance/test_util.h"
#include "core/error.h"

namespace trainbench::compliance {
namespace {

using testing::RulesDir;
using testing::ScratchDir;
using testing::WriteText;

// The message ParseRuleFile throws for `text`, or "" when it parses.
std::string ParseError(const std::string& text) {
  try {
    ParseRuleFile(text, "rules/x/common.yaml", "common.yaml", "x");
  } catch (const core::Error& e) {
    return e.what();
  }
  return "";
}

TEST(ParseRuleFile, ReadsEveryPartOfARule) {
  RuleFile f = ParseRuleFile(R"(schema_version: 1
description: "d"
rules:
  - key: submission_division
    occurs: EXACTLY_ONE
    duplicates: same_event
    first_only: true
    note: "why"
    checks:
      - one_of: [closed, open, 3]
      - range: {gt: 0, le: 10.5}
        field: metadata.epoch_count
        when_has_metadata: epoch_count
      - time_since_first:
          key: init_start
          less_than_minutes_by: {key: submission_division, values: {closed: 30, open: 240}, otherwise: 30}
    at_least_one:
      checks:
        - range: {ge: 0.759, lt: 1.0}
      when: {key: run_stop, field: metadata.status, equals: success}
    include: "{value}_common.yaml"
  - key: block_start
    occurs: AT_LEAST_ONE_OR(epoch_start, foo)
  - key: b
    occurs: AT_LEAST(3)
    include: {mini: m.yaml}
)",
                             "p", "common.yaml", "L");
  ASSERT_EQ(f.rules.size(), 3u);
  EXPECT_EQ(f.DisplayName(), "L/common.yaml");
  EXPECT_EQ(f.description, "d");
  const Rule& r = f.rules[0];
  EXPECT_EQ(r.key, "submission_division");
  EXPECT_EQ(r.line, 4);
  EXPECT_EQ(r.occurs, Occurs::kExactlyOne);
  EXPECT_EQ(r.duplicates, Duplicates::kSameEvent);
  EXPECT_TRUE(r.first_only);
  EXPECT_EQ(r.note, "why");
  ASSERT_EQ(r.checks.size(), 3u);
  EXPECT_EQ(r.checks[0].kind, CheckKind::kOneOf);
  EXPECT_EQ(r.checks[0].line, 10);
  EXPECT_EQ(r.checks[0].values, (std::vector<Json>{"closed", "open", 3}));
  EXPECT_EQ(r.checks[1].kind, CheckKind::kRange);
  EXPECT_EQ(r.checks[1].field, "metadata.epoch_count");
  EXPECT_EQ(r.checks[1].when_has_metadata, "epoch_count");
  EXPECT_EQ(*r.checks[1].gt, 0);
  EXPECT_EQ(*r.checks[1].le, 10.5);
  EXPECT_FALSE(r.checks[1].ge.has_value());
  EXPECT_EQ(r.checks[2].kind, CheckKind::kTimeSinceFirst);
  EXPECT_EQ(r.checks[2].since_key, "init_start");
  EXPECT_EQ(r.checks[2].limit_key, "submission_division");
  EXPECT_EQ(r.checks[2].limit_by_value.at("open"), 240);
  EXPECT_EQ(*r.checks[2].limit_otherwise, 30);
  ASSERT_TRUE(r.at_least_one.has_value());
  ASSERT_TRUE(r.at_least_one->when.has_value());
  EXPECT_EQ(r.at_least_one->when->key, "run_stop");
  EXPECT_EQ(r.at_least_one->when->field, "metadata.status");
  EXPECT_EQ(r.at_least_one->when->equals, Json("success"));
  ASSERT_TRUE(r.include.has_value());
  EXPECT_EQ(r.include->pattern, "{value}_common.yaml");
  EXPECT_EQ(f.rules[1].occurs, Occurs::kAtLeastOneOr);
  EXPECT_EQ(f.rules[1].alternatives, (std::vector<std::string>{"epoch_start", "foo"}));
  EXPECT_EQ(f.rules[2].occurs, Occurs::kAtLeastN);
  EXPECT_EQ(f.rules[2].at_least, 3);
  EXPECT_EQ(f.rules[2].include->by_value.at("mini"), "m.yaml");
}

TEST(ParseRuleFile, QuotedScalarsStayStrings) {
  RuleFile f = ParseRuleFile(
      "schema_version: 1\nrules:\n  - key: a\n    occurs: OPTIONAL\n    checks:\n"
      "      - one_of: [\"1\", 1, \"\", true]\n",
      "p", "common.yaml", "L");
  EXPECT_EQ(f.rules[0].checks[0].values, (std::vector<Json>{"1", 1, "", true}));
}

TEST(ParseRuleFile, BadYamlNamesFileAndLine) {
  std::string e = ParseError("schema_version: 1\nrules:\n  - key: [unclosed\n");
  EXPECT_NE(e.find("rules/x/common.yaml:"), std::string::npos) << e;
  EXPECT_NE(e.find("invalid YAML"), std::string::npos) << e;
}

// Rule files go through the bounded configuration YAML reader: a 9 x 9 alias bomb (9^9 nodes
// expanded) is refused by the reader itself, before any walk of the document could expand it
// (before, the file got as far as the schema checks).
TEST(ParseRuleFile, AnAliasBombIsRefused) {
  std::string bomb = "a0: &a0 [x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i < 9; ++i) {
    std::string prev = "*a" + std::to_string(i - 1);
    bomb += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [" + prev;
    for (int k = 1; k < 9; ++k) bomb += ", " + prev;
    bomb += "]\n";
  }
  std::string e = ParseError("schema_version: 1\n" + bomb + "rules: []\n");
  EXPECT_NE(e.find("rules/x/common.yaml:"), std::string::npos) << e;
  EXPECT_NE(e.find("with the aliases expanded"), std::string::npos) << e;
}

TEST(ParseRuleFile, UnknownCheckNamesFileLineAndKnownChecks) {
  std::string e = ParseError(
      "schema_version: 1\nrules:\n  - key: a\n    occurs: OPTIONAL\n    checks:\n"
      "      - greater_than: 3\n");
  EXPECT_EQ(e.rfind("rules/x/common.yaml:6: unknown check \"greater_than\"", 0), 0u) << e;
  EXPECT_NE(e.find("one_of"), std::string::npos) << e;
}

TEST(ParseRuleFile, SchemaErrorsNameTheLine) {
  struct Case {
    std::string text;
    std::string expected_prefix;
  } cases[] = {
      {"schema_version: 1\nrules:\n  - key: a\n    occurs: ONCE\n",
       "rules/x/common.yaml:4: occurs: unknown requirement \"ONCE\""},
      {"schema_version: 1\nrules:\n  - key: a\n    occurs: AT_LEAST(0)\n",
       "rules/x/common.yaml:4: occurs: AT_LEAST(n) needs a positive integer"},
      {"schema_version: 1\nrules:\n  - key: a\n    occurs: AT_LEAST_ONE_OR()\n",
       "rules/x/common.yaml:4: occurs: no alternative"},
      {"schema_version: 1\nrules:\n  - key: a\n    ocurs: OPTIONAL\n",
       "rules/x/common.yaml:4: unknown field \"ocurs\" in a rule"},
      {"schema_version: 1\nrules:\n  - key: a\n    occurs: OPTIONAL\n  - key: a\n    occurs: "
       "OPTIONAL\n",
       "rules/x/common.yaml:5: a second rule for key \"a\" (the first is at line 3)"},
      {"schema_version: 1\nrules:\n  - key: a\n    occurs: OPTIONAL\n    checks:\n"
       "      - {one_of: [x], range: {gt: 1}}\n",
       "rules/x/common.yaml:6: a check has exactly one kind"},
      {"schema_version: 1\nrules:\n  - key: a\n    occurs: OPTIONAL\n    checks:\n"
       "      - seen_before: [b]\n        field: metadata.x\n",
       "rules/x/common.yaml:6: field applies to value checks only"},
      {"schema_version: 1\nrules:\n  - key: a\n    occurs: OPTIONAL\n    checks:\n"
       "      - range: {}\n",
       "rules/x/common.yaml:6: range: give gt, ge, lt or le"},
      {"schema_version: 1\nrules:\n  - key: a\n    occurs: OPTIONAL\n    checks:\n"
       "      - range: {gt: big}\n",
       "rules/x/common.yaml:6: range.gt: expected a number"},
      {"schema_version: 1\nrules:\n  - key: a\n    occurs: OPTIONAL\n    checks:\n"
       "      - type: float\n",
       "rules/x/common.yaml:6: type: unknown type \"float\""},
      {"schema_version: 1\nrules:\n  - key: a\n    occurs: OPTIONAL\n    include: "
       "\"../{value}.yaml\"\n",
       "rules/x/common.yaml:5: include: \"../{value}.yaml\" is not a rule-file name"},
      {"schema_version: 1\nrules:\n  - key: a\n    occurs: AT_LEAST_ONE\n    duplicates: "
       "same_value\n",
       "rules/x/common.yaml:5: duplicates applies to occurs: EXACTLY_ONE only"},
      {"schema_version: 2\nrules: []\n",
       "rules/x/common.yaml:1: schema_version 2 is not supported"},
      {"rules: []\n", "rules/x/common.yaml:1: the rule file lacks \"schema_version\""},
      {"- KEY:\n    NAME: a\n", "rules/x/common.yaml: a rule file is a map"},
  };
  for (const auto& c : cases) {
    std::string e = ParseError(c.text);
    EXPECT_EQ(e.rfind(c.expected_prefix, 0), 0u) << "got: " << e << "\nfor:\n" << c.text;
  }
}

TEST(Include, ResolvesPatternsAndMaps) {
  Include pattern;
  pattern.pattern = "closed_{value}.yaml";
  std::string error;
  EXPECT_EQ(pattern.Resolve("resnet", &error), "closed_resnet.yaml");
  EXPECT_EQ(error, "");
  EXPECT_EQ(pattern.Resolve(nullptr, &error), std::nullopt);
  EXPECT_NE(error.find("cannot name a rule file"), std::string::npos);
  EXPECT_EQ(pattern.Resolve("../../etc/passwd", &error), std::nullopt);
  EXPECT_NE(error.find("not a plain rule-file name"), std::string::npos);

  Include map;
  map.by_value = {{"mini", "m.yaml"}};
  EXPECT_EQ(map.Resolve("mini", &error), "m.yaml");
  EXPECT_EQ(map.Resolve("full", &error), std::nullopt);
  EXPECT_EQ(error, "");  // values the map lacks include nothing, without an error
}

TEST(Check, DescribesItself) {
  RuleFile f = ParseRuleFile(R"(schema_version: 1
rules:
  - key: a
    occurs: OPTIONAL
    checks:
      - range: {ge: 0.759, lt: 1.0}
      - one_of: [sgd, lars]
      - has_metadata: [epoch_num]
      - range: {gt: 0}
        field: metadata.epoch_count
        when_has_metadata: epoch_count
      - time_since_first: {key: init_start, less_than_minutes: 20}
)",
                             "p", "common.yaml", "L");
  const auto& c = f.rules[0].checks;
  EXPECT_EQ(c[0].Describe(), "range {ge: 0.759, lt: 1}");
  EXPECT_EQ(c[1].Describe(), "one_of [\"sgd\", \"lars\"]");
  EXPECT_EQ(c[2].Describe(), "has_metadata [epoch_num]");
  EXPECT_EQ(c[3].Describe(),
            "range {gt: 0} on metadata.epoch_count (when metadata has epoch_count)");
  EXPECT_EQ(c[4].Describe(), "time_since_first init_start < 20 min");
}

TEST(LoadRuleset, LoadsTheShippedRulesets) {
  Ruleset official = LoadRuleset(RulesDir(), "4.0.0");
  EXPECT_EQ(official.layers, (std::vector<std::string>{"4.0.0"}));
  EXPECT_EQ(official.entry, "common.yaml");
  for (const char* f :
       {"common.yaml", "closed_common.yaml", "open_common.yaml", "closed_resnet.yaml",
        "closed_resnet_lars.yaml", "closed_resnet_sgd.yaml"}) {
    ASSERT_NE(official.Find(f), nullptr) << f;
  }
  Ruleset tb = LoadRuleset(RulesDir(), "trainbench-1.0");
  EXPECT_EQ(tb.layers, (std::vector<std::string>{"4.0.0", "trainbench-1.0"}));
  // common.yaml is 4.0.0's, then trainbench's.
  const auto* common = tb.Find("common.yaml");
  ASSERT_NE(common, nullptr);
  ASSERT_EQ(common->size(), 2u);
  EXPECT_EQ((*common)[0].DisplayName(), "4.0.0/common.yaml");
  EXPECT_EQ((*common)[1].DisplayName(), "trainbench-1.0/common.yaml");
  ASSERT_NE(tb.Find("resnet_mini.yaml"), nullptr);
  EXPECT_EQ(tb.Find("resnet_mini.yaml")->size(), 1u);

  auto names = ListRulesets(RulesDir());
  EXPECT_NE(std::find(names.begin(), names.end(), "4.0.0"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "trainbench-1.0"), names.end());
}

std::string LoadError(const std::string& dir, const std::string& name) {
  try {
    LoadRuleset(dir, name);
  } catch (const core::Error& e) {
    return e.what();
  }
  return "";
}

TEST(LoadRuleset, UnknownRulesetNamesTheKnownOnes) {
  std::string e = LoadError(RulesDir(), "3.9.9");
  EXPECT_NE(e.find("unknown ruleset \"3.9.9\""), std::string::npos) << e;
  EXPECT_NE(e.find("4.0.0"), std::string::npos) << e;
  EXPECT_NE(e.find("trainbench-1.0"), std::string::npos) << e;
  EXPECT_NE(LoadError(RulesDir(), "../rules").find("unknown ruleset"), std::string::npos);
  EXPECT_NE(LoadError("/nonexistent/rules", "4.0.0").find("/nonexistent/rules: rules directory"),
            std::string::npos);
}

TEST(LoadRuleset, BrokenRuleFileNamesFileAndLine) {
  std::string dir = ScratchDir();
  WriteText(dir + "/r/ruleset.yaml", "schema_version: 1\n");
  WriteText(dir + "/r/common.yaml",
            "schema_version: 1\nrules:\n  - key: a\n    occurs: OPTIONAL\n    checks:\n"
            "      - is_cool: true\n");
  std::string e = LoadError(dir, "r");
  EXPECT_EQ(e.rfind(dir + "/r/common.yaml:6: unknown check \"is_cool\"", 0), 0u) << e;
}

TEST(LoadRuleset, ExtendsLayersAndDetectsCycles) {
  std::string dir = ScratchDir();
  WriteText(dir + "/base/ruleset.yaml", "schema_version: 1\nentry: start.yaml\n");
  WriteText(dir + "/base/start.yaml", "schema_version: 1\nrules: []\n");
  WriteText(dir + "/derived/ruleset.yaml", "schema_version: 1\nextends: base\n");
  WriteText(dir + "/derived/extra.yaml", "schema_version: 1\nrules: []\n");
  Ruleset rs = LoadRuleset(dir, "derived");
  EXPECT_EQ(rs.layers, (std::vector<std::string>{"base", "derived"}));
  EXPECT_EQ(rs.entry, "start.yaml");  // inherited
  EXPECT_NE(rs.Find("extra.yaml"), nullptr);

  WriteText(dir + "/a/ruleset.yaml", "schema_version: 1\nextends: b\n");
  WriteText(dir + "/b/ruleset.yaml", "schema_version: 1\nextends: a\n");
  EXPECT_NE(LoadError(dir, "a").find("extends cycle"), std::string::npos);
  WriteText(dir + "/c/ruleset.yaml", "schema_version: 1\nextends: nothere\n");
  EXPECT_NE(LoadError(dir, "c").find("unknown ruleset \"nothere\" (extended by c)"),
            std::string::npos);
}

TEST(LoadRuleset, ManifestAndIncludeErrors) {
  std::string dir = ScratchDir();
  WriteText(dir + "/m/ruleset.yaml", "schema_version: 1\nruleset: other\n");
  EXPECT_NE(LoadError(dir, "m").find(dir + "/m/ruleset.yaml:2: ruleset \"other\" does not match"),
            std::string::npos);
  WriteText(dir + "/n/ruleset.yaml", "schema_version: 1\n");
  EXPECT_NE(LoadError(dir, "n").find("has no entry rule file \"common.yaml\""), std::string::npos);
  WriteText(dir + "/i/ruleset.yaml", "schema_version: 1\n");
  WriteText(dir + "/i/common.yaml",
            "schema_version: 1\nrules:\n  - key: s\n    occurs: OPTIONAL\n    include:\n"
            "      mini: missing.yaml\n");
  EXPECT_EQ(LoadError(dir, "i").rfind(dir + "/i/common.yaml:6: include: no rule file "
                                            "\"missing.yaml\"",
                                      0),
            0u)
      << LoadError(dir, "i");
}

TEST(IsPlainRuleFileName, AcceptsOnlyPlainYamlNames) {
  EXPECT_TRUE(IsPlainRuleFileName("closed_resnet.yaml"));
  EXPECT_TRUE(IsPlainRuleFileName("closed_resnet-mini.v2.yaml"));
  EXPECT_FALSE(IsPlainRuleFileName(".yaml"));
  EXPECT_FALSE(IsPlainRuleFileName("../x.yaml"));
  EXPECT_FALSE(IsPlainRuleFileName("a/b.yaml"));
  EXPECT_FALSE(IsPlainRuleFileName("closed_resnet.yml"));
  EXPECT_FALSE(IsPlainRuleFileName("closed resnet.yaml"));
}

}  // namespace
}  // namespace trainbench::compliance

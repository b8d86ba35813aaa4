#include "compliance/checker.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <sstream>

#include "compliance/test_util.h"
#include "core/error.h"

namespace trainbench::compliance {
namespace {

using testing::Dump;
using testing::Errors;
using testing::Ev;
using testing::HasError;
using testing::LogOf;
using testing::LogOfText;
using testing::MakeRuleset;
using testing::Rules;
using testing::TestData;
using testing::Warnings;

// ---------------------------------------------------------------------------------------------
// Agreement with the official checker (mlcommons/logging, --ruleset 4.0.0) on the example log
// and its one-defect variants (testdata/make_variants.py), and that the right rule says so. The
// verdicts are the official checker's (conformance/official_verdicts.tsv, from real runs; every
// log there is checked by conformance_test.cc).

struct Variant {
  const char* file;
  bool passes;
  const char* key;      // a finding about this key must be reported ("" for none)
  const char* message;  // ... whose message holds this
  const char* why;      // what the official checker reports
};

const Variant kOfficialVariants[] = {
    {"good_closed_resnet.log", true, "", "", "SUCCESS"},
    {"variants/missing_init_stop.log", false, "init_stop", "required exactly once but is missing",
     "EXACTLY_ONE init_stop found 0; CHECK run_start s['init_stopped']"},
    {"variants/run_start_before_init_stop.log", false, "run_start", "no init_stop before this",
     "CHECK run_start s['init_stopped']; CHECK init_stop not s['run_started']"},
    {"variants/division_after_init_stop.log", false, "init_stop",
     "depends on submission_division, which is not logged before this init_stop",
     "CHECK init_stop: compile_time_mins is still 0 at init_stop"},
    {"variants/duplicated_run_stop.log", true, "", "",
     "SUCCESS with a warning: EXACTLY_ONE run_stop found 2, all the same value"},
    {"variants/duplicated_run_stop_aborted.log", true, "", "",
     "SUCCESS with a warning: the official check compares values only (both null)"},
    {"variants/run_stop_without_status.log", false, "run_stop", "metadata lacks \"status\"",
     "CHECK run_stop 'status' in v['metadata']"},
    {"variants/batch_size_string.log", false, "global_batch_size",
     "value \"3264\" is a string, not a number",
     "closed_resnet CHECK v['value'] > 0 raises TypeError: 'Failed executing CHECK code'"},
    {"variants/open_batch_size_string.log", true, "", "",
     "SUCCESS: no 4.0.0 open rule looks at global_batch_size"},
    {"variants/opt_name_adam.log", false, "opt_name", "is not one of [\"sgd\", \"lars\"]",
     "CHECK opt_name; 'Could not find config file' closed_resnet_adam.yaml"},
    {"variants/accuracy_below_target.log", false, "eval_accuracy",
     "no line passes range {ge: 0.759, lt: 1}", "ATLEAST_ONE_CHECK failed"},
    {"variants/accuracy_without_epoch_num.log", false, "eval_accuracy",
     "metadata lacks \"epoch_num\"", "closed_resnet CHECK 'epoch_num' in v['metadata']"},
    {"variants/init_time_over_limit.log", false, "init_stop", "the limit is 30 min",
     "CHECK init_stop: 30 min + 1 ms is not < 30 min"},
    {"variants/init_time_at_limit.log", false, "init_stop", "the limit is 30 min",
     "CHECK init_stop: the limit is strict"},
    {"variants/init_time_below_limit.log", true, "", "", "SUCCESS"},
    {"variants/open_init_time_31_min.log", true, "", "", "SUCCESS: 240 min in open"},
    {"variants/missing_submission_org.log", false, "submission_org",
     "required exactly once but is missing", "EXACTLY_ONE submission_org found 0"},
    {"variants/submission_org_twice_different.log", false, "submission_org",
     "with different values: \"ExampleOrg\", \"OtherOrg\"",
     "EXACTLY_ONE submission_org found 2 with different values"},
    {"variants/invalid_division.log", false, "submission_division",
     "is not one of [\"closed\", \"open\"]",
     "CHECK submission_division; 'Could not find config file' private_common.yaml"},
    {"variants/malformed_line.log", false, "", "malformed log line",
     "'Log lines had parsing errors.'"},
};

void PrintTo(const Variant& v, std::ostream* os) { *os << v.file; }

class OfficialAgreement : public ::testing::TestWithParam<Variant> {};

TEST_P(OfficialAgreement, SameVerdictForTheRightRule) {
  const Variant& v = GetParam();
  static const Ruleset rs = LoadRuleset(testing::RulesDir(), "4.0.0");
  CheckReport r = CheckLogFile(TestData(v.file), rs);
  EXPECT_EQ(r.passed(), v.passes) << v.why << "\n" << Dump(r);
  if (*v.key || *v.message) {
    EXPECT_TRUE(HasError(r, v.key, v.message)) << v.why << "\n" << Dump(r);
  }
  if (v.passes) EXPECT_TRUE(Errors(r).empty()) << Dump(r);
}

INSTANTIATE_TEST_SUITE_P(Variants, OfficialAgreement, ::testing::ValuesIn(kOfficialVariants),
                         [](const ::testing::TestParamInfo<Variant>& info) {
                           std::string name = info.param.file;
                           name = name.substr(name.rfind('/') + 1);
                           name = name.substr(0, name.find('.'));
                           return name;
                         });

TEST(OfficialAgreement, GoodLogAppliesTheDivisionBenchmarkAndOptimizerFiles) {
  Ruleset rs = LoadRuleset(testing::RulesDir(), "4.0.0");
  CheckReport r = CheckLogFile(TestData("good_closed_resnet.log"), rs);
  EXPECT_EQ(r.rule_files, (std::vector<std::string>{"4.0.0/common.yaml", "4.0.0/closed_common.yaml",
                                                    "4.0.0/closed_resnet.yaml",
                                                    "4.0.0/closed_resnet_lars.yaml"}));
  EXPECT_TRUE(r.findings.empty()) << Dump(r);
}

TEST(OfficialAgreement, DuplicateIsAWarningWithItsLine) {
  Ruleset rs = LoadRuleset(testing::RulesDir(), "4.0.0");
  CheckReport r = CheckLogFile(TestData("variants/duplicated_run_stop.log"), rs);
  ASSERT_EQ(Warnings(r).size(), 1u) << Dump(r);
  EXPECT_EQ(Warnings(r)[0]->key, "run_stop");
  EXPECT_EQ(Warnings(r)[0]->line_no, 32);
  EXPECT_NE(Warnings(r)[0]->message.find("occurs 2 times (lines 31, 32)"), std::string::npos);
  EXPECT_NE(VerdictLine(r).find("SUCCESS (0 errors, 1 warning)"), std::string::npos);
}

TEST(OfficialAgreement, MissingIncludedFileIsReportedWithTheIncludingRule) {
  Ruleset rs = LoadRuleset(testing::RulesDir(), "4.0.0");
  CheckReport r = CheckLogFile(TestData("variants/opt_name_adam.log"), rs);
  EXPECT_TRUE(HasError(r, "opt_name", "no rule file \"closed_resnet_adam.yaml\" in ruleset 4.0.0"))
      << Dump(r);
  r = CheckLogFile(TestData("variants/invalid_division.log"), rs);
  EXPECT_TRUE(HasError(r, "submission_division", "no rule file \"private_common.yaml\""))
      << Dump(r);
}

// ---------------------------------------------------------------------------------------------
// trainbench-1.0: everything 4.0.0 checks, plus seed / trainbench_scale once, a stricter
// run_stop, and the mini-scale ResNet target 0.91.

struct TbVariant {
  const char* file;
  bool passes;
  const char* key;
  const char* message;
};

const TbVariant kTrainbenchVariants[] = {
    {"variants/tb_good_mini.log", true, "", ""},
    {"variants/tb_harness_mini_lars.log", true, "", ""},
    {"variants/tb_harness_mini_lars_aborted.log", true, "", ""},
    {"variants/tb_mini_below_target.log", false, "eval_accuracy",
     "no line passes range {ge: 0.91, lt: 1}"},
    {"variants/tb_mini_aborted_below_target.log", true, "", ""},
    {"variants/tb_full_below_759.log", false, "eval_accuracy",
     "no line passes range {ge: 0.759, lt: 1}"},
    {"variants/tb_missing_seed.log", false, "seed", "required exactly once but is missing"},
    {"variants/tb_seed_string.log", false, "seed", "is a string, not an integer"},
    {"variants/tb_missing_scale.log", false, "trainbench_scale",
     "required exactly once but is missing"},
    {"variants/tb_unknown_scale.log", false, "trainbench_scale",
     "is not one of [\"mini\", \"full\"]"},
    {"variants/tb_eval_after_run_stop.log", false, "run_stop",
     "eval_accuracy is logged after this run_stop"},
    {"variants/tb_duplicated_run_stop.log", true, "", ""},
    {"variants/tb_duplicated_run_stop_aborted.log", false, "run_stop",
     "with different values or metadata"},
    {"variants/tb_open_batch_size_string.log", false, "global_batch_size",
     "is a string, not an integer"},
    {"variants/tb_batch_size_float.log", false, "global_batch_size", "is a number, not an integer"},
    // Everything 4.0.0 fails, trainbench fails too.
    {"variants/missing_init_stop.log", false, "init_stop", "required exactly once"},
    {"variants/opt_name_adam.log", false, "opt_name", "is not one of"},
};

void PrintTo(const TbVariant& v, std::ostream* os) { *os << v.file; }

class TrainbenchRules : public ::testing::TestWithParam<TbVariant> {};

TEST_P(TrainbenchRules, Verdict) {
  const TbVariant& v = GetParam();
  static const Ruleset rs = LoadRuleset(testing::RulesDir(), "trainbench-1.0");
  CheckReport r = CheckLogFile(TestData(v.file), rs);
  EXPECT_EQ(r.passed(), v.passes) << Dump(r);
  if (*v.key) EXPECT_TRUE(HasError(r, v.key, v.message)) << Dump(r);
}

INSTANTIATE_TEST_SUITE_P(Variants, TrainbenchRules, ::testing::ValuesIn(kTrainbenchVariants),
                         [](const ::testing::TestParamInfo<TbVariant>& info) {
                           std::string name = info.param.file;
                           name = name.substr(name.rfind('/') + 1);
                           return name.substr(0, name.find('.'));
                         });

TEST(TrainbenchRules, MiniScaleLoadsThePerScaleFilesLast) {
  Ruleset rs = LoadRuleset(testing::RulesDir(), "trainbench-1.0");
  CheckReport r = CheckLogFile(TestData("variants/tb_good_mini.log"), rs);
  EXPECT_EQ(r.rule_files,
            (std::vector<std::string>{
                "4.0.0/common.yaml", "trainbench-1.0/common.yaml", "4.0.0/closed_common.yaml",
                "trainbench-1.0/closed_common.yaml", "4.0.0/closed_resnet.yaml",
                "trainbench-1.0/closed_resnet.yaml", "4.0.0/closed_resnet_lars.yaml",
                "trainbench-1.0/closed_resnet_lars.yaml", "trainbench-1.0/resnet_mini.yaml",
                "trainbench-1.0/closed_resnet_lars_mini.yaml"}));
  EXPECT_TRUE(r.findings.empty()) << Dump(r);
  // The full scale includes no per-scale file and keeps 4.0.0's 0.759 target.
  r = CheckLogFile(TestData("variants/tb_full_below_759.log"), rs);
  EXPECT_EQ(std::count(r.rule_files.begin(), r.rule_files.end(), "trainbench-1.0/resnet_mini.yaml"),
            0);
}

TEST(TrainbenchRules, TheOfficialExampleLacksTrainbenchKeys) {
  Ruleset rs = LoadRuleset(testing::RulesDir(), "trainbench-1.0");
  CheckReport r = CheckLogFile(TestData("good_closed_resnet.log"), rs);
  ASSERT_EQ(Errors(r).size(), 1u) << Dump(r);
  EXPECT_EQ(Errors(r)[0]->key, "trainbench_scale");
}

// ---------------------------------------------------------------------------------------------
// Each rule kind on its own, with inline rules and logs.

TEST(Occurs, ExactlyOne) {
  Ruleset rs = Rules("  - key: a\n    occurs: EXACTLY_ONE\n");
  EXPECT_TRUE(CheckLog(LogOf({{"a", 1}}), rs).passed());
  CheckReport missing = CheckLog(LogOf({{"b", 1}}), rs);
  ASSERT_EQ(Errors(missing).size(), 1u);
  EXPECT_EQ(Errors(missing)[0]->message, "\"a\" is required exactly once but is missing");
  EXPECT_EQ(Errors(missing)[0]->line_no, 0);
  EXPECT_EQ(Errors(missing)[0]->rule_file, "t/common.yaml");
  EXPECT_EQ(Errors(missing)[0]->rule_line, 3);

  CheckReport same = CheckLog(LogOf({{"a", 1}, {"a", 1.0}}), rs);  // 1 == 1.0, as in Python
  EXPECT_TRUE(same.passed()) << Dump(same);
  EXPECT_EQ(Warnings(same).size(), 1u);

  CheckReport differ = CheckLog(LogOf({{"a", 1}, {"a", 2}, {"a", 1}}), rs);
  ASSERT_EQ(Errors(differ).size(), 1u) << Dump(differ);
  EXPECT_EQ(Errors(differ)[0]->message,
            "\"a\" occurs 3 times (lines 1, 2, 3) with different values: 1, 2; expected exactly "
            "once");
  EXPECT_EQ(Errors(differ)[0]->line_no, 2);
}

TEST(Occurs, DuplicatePolicies) {
  Ruleset event = Rules("  - key: a\n    occurs: EXACTLY_ONE\n    duplicates: same_event\n");
  EXPECT_TRUE(CheckLog(LogOf({{"a", 1, {{"s", "x"}}}, {"a", 1, {{"s", "x"}}}}), event).passed());
  EXPECT_FALSE(CheckLog(LogOf({{"a", 1, {{"s", "x"}}}, {"a", 1, {{"s", "y"}}}}), event).passed());
  Ruleset strict = Rules("  - key: a\n    occurs: EXACTLY_ONE\n    duplicates: error\n");
  EXPECT_FALSE(CheckLog(LogOf({{"a", 1}, {"a", 1}}), strict).passed());
}

TEST(Occurs, AtLeastOneAtLeastNOptional) {
  Ruleset rs = Rules(
      "  - key: a\n    occurs: AT_LEAST_ONE\n"
      "  - key: b\n    occurs: AT_LEAST(3)\n"
      "  - key: c\n    occurs: OPTIONAL\n");
  CheckReport r = CheckLog(LogOf({{"b", 1}, {"b", 2}}), rs);
  EXPECT_TRUE(HasError(r, "a", "\"a\" is required at least once but is missing"));
  EXPECT_TRUE(HasError(r, "b", "\"b\" is required at least 3 times but occurs 2 times"));
  EXPECT_EQ(Errors(r).size(), 2u) << Dump(r);
  EXPECT_TRUE(CheckLog(LogOf({{"a", 1}, {"b", 1}, {"b", 2}, {"b", 3}}), rs).passed());
}

TEST(Occurs, AtLeastOneOrReportsTheGroupOnce) {
  Ruleset rs = Rules(
      "  - key: block_start\n    occurs: AT_LEAST_ONE_OR(epoch_start)\n"
      "  - key: epoch_start\n    occurs: AT_LEAST_ONE_OR(block_start)\n");
  CheckReport none = CheckLog(LogOf({{"x", 1}}), rs);
  ASSERT_EQ(Errors(none).size(), 1u) << Dump(none);
  EXPECT_EQ(Errors(none)[0]->message,
            "\"block_start\" or \"epoch_start\" is required at least once; none is logged");
  EXPECT_TRUE(CheckLog(LogOf({{"epoch_start", nullptr}}), rs).passed());
  EXPECT_TRUE(CheckLog(LogOf({{"block_start", nullptr}}), rs).passed());
}

Ruleset OneCheck(const std::string& check_yaml) {
  return Rules("  - key: a\n    occurs: OPTIONAL\n    checks:\n      - " + check_yaml + "\n");
}

TEST(Checks, Type) {
  Ruleset integer = OneCheck("type: integer");
  EXPECT_TRUE(CheckLog(LogOf({{"a", 3264}}), integer).passed());
  CheckReport s = CheckLog(LogOf({{"a", "3264"}}), integer);
  ASSERT_EQ(Errors(s).size(), 1u);
  EXPECT_EQ(Errors(s)[0]->message, "a: value \"3264\" is a string, not an integer");
  EXPECT_EQ(Errors(s)[0]->line_no, 1);
  EXPECT_NE(Errors(s)[0]->line.find("\"key\": \"a\""), std::string::npos);
  EXPECT_EQ(Errors(s)[0]->rule_line, 6);  // the check's own line
  EXPECT_FALSE(CheckLog(LogOf({{"a", 3264.0}}), integer).passed());
  Ruleset number = OneCheck("type: number");
  EXPECT_TRUE(CheckLog(LogOf({{"a", 0.5}}), number).passed());
  EXPECT_FALSE(CheckLog(LogOf({{"a", true}}), number).passed());
  EXPECT_TRUE(CheckLog(LogOf({{"a", nullptr}}), OneCheck("type: null")).passed());
  EXPECT_TRUE(CheckLog(LogOf({{"a", Json::array({1})}}), OneCheck("type: list")).passed());
  EXPECT_FALSE(CheckLog(LogOf({{"a", Json::array({1})}}), OneCheck("type: object")).passed());
}

TEST(Checks, OneOfAndNotOneOf) {
  Ruleset one_of = OneCheck("one_of: [sgd, lars]");
  EXPECT_TRUE(CheckLog(LogOf({{"a", "lars"}}), one_of).passed());
  CheckReport adam = CheckLog(LogOf({{"a", "adam"}}), one_of);
  ASSERT_EQ(Errors(adam).size(), 1u);
  EXPECT_EQ(Errors(adam)[0]->message, "a: value \"adam\" is not one of [\"sgd\", \"lars\"]");
  EXPECT_FALSE(CheckLog(LogOf({{"a", 1}}), one_of).passed());

  Ruleset not_empty = OneCheck("not_one_of: [\"\"]");
  EXPECT_TRUE(CheckLog(LogOf({{"a", "Org"}}), not_empty).passed());
  EXPECT_TRUE(CheckLog(LogOf({{"a", nullptr}}), not_empty).passed());  // as `v != ''`
  EXPECT_TRUE(HasError(CheckLog(LogOf({{"a", ""}}), not_empty), "a",
                       "value \"\" is not allowed (not one of [\"\"])"));
}

TEST(Checks, RangeBoundsAndTypes) {
  Ruleset rs = OneCheck("range: {ge: 0.759, lt: 1.0}");
  EXPECT_TRUE(CheckLog(LogOf({{"a", 0.759}}), rs).passed());
  EXPECT_TRUE(HasError(CheckLog(LogOf({{"a", 0.7589}}), rs), "a", "value 0.7589 is not >= 0.759"));
  EXPECT_TRUE(HasError(CheckLog(LogOf({{"a", 1.0}}), rs), "a", "value 1.0 is not < 1"));
  EXPECT_TRUE(HasError(CheckLog(LogOf({{"a", "0.8"}}), rs), "a", "is a string, not a number"));
  EXPECT_TRUE(
      HasError(CheckLog(LogOf({{"a", nullptr}}), rs), "a", "value null is null, not a number"));
  Ruleset gt_le = OneCheck("range: {gt: 0, le: 2}");
  EXPECT_FALSE(CheckLog(LogOf({{"a", 0}}), gt_le).passed());
  EXPECT_TRUE(CheckLog(LogOf({{"a", 2}}), gt_le).passed());
  EXPECT_FALSE(CheckLog(LogOf({{"a", 2.5}}), gt_le).passed());
}

TEST(Checks, MinLength) {
  Ruleset rs = OneCheck("min_length: 1");
  EXPECT_TRUE(CheckLog(LogOf({{"a", Json::array({30, 60})}}), rs).passed());
  EXPECT_TRUE(HasError(CheckLog(LogOf({{"a", Json::array()}}), rs), "a", "has length 0"));
  EXPECT_TRUE(HasError(CheckLog(LogOf({{"a", 5}}), rs), "a", "which has no length"));
}

TEST(Checks, LengthContainsAndFieldPaths) {
  Ruleset len = OneCheck("length: 2");  // official len(v) == 2
  EXPECT_TRUE(CheckLog(LogOf({{"a", Json::array({480, 640})}}), len).passed());
  EXPECT_TRUE(HasError(CheckLog(LogOf({{"a", Json::array({480})}}), len), "a", "length 1, not 2"));
  EXPECT_TRUE(HasError(CheckLog(LogOf({{"a", 2}}), len), "a", "which has no length"));
  Ruleset has = OneCheck("contains: BBOX");  // official 'BBOX' in v
  EXPECT_TRUE(CheckLog(LogOf({{"a", Json{{"BBOX", 0.4}, {"SEGM", 0.3}}}}), has).passed());
  EXPECT_TRUE(CheckLog(LogOf({{"a", Json::array({"BBOX"})}}), has).passed());
  EXPECT_TRUE(CheckLog(LogOf({{"a", "xBBOXx"}}), has).passed());  // Python: a substring
  EXPECT_TRUE(
      HasError(CheckLog(LogOf({{"a", Json{{"bbox", 0.4}}}}), has), "a", "does not contain"));
  EXPECT_TRUE(HasError(CheckLog(LogOf({{"a", 0.4}}), has), "a", "which contains nothing"));
  Ruleset member = OneCheck("range: {ge: 0.377}\n        field: value.BBOX");
  EXPECT_TRUE(CheckLog(LogOf({{"a", Json{{"BBOX", 0.4}}}}), member).passed());
  EXPECT_TRUE(HasError(CheckLog(LogOf({{"a", 0.4}}), member), "a", "value.BBOX is missing"));
  Ruleset element = OneCheck("range: {ge: 50}\n        field: value[1]");
  EXPECT_TRUE(CheckLog(LogOf({{"a", Json::array({40, 50})}}), element).passed());
  EXPECT_TRUE(HasError(CheckLog(LogOf({{"a", Json::array({40})}}), element), "a", "is missing"));
  // Bad field paths are rule-file errors.
  EXPECT_THROW(OneCheck("range: {ge: 1}\n        field: value[x]"), core::Error);
  EXPECT_THROW(OneCheck("range: {ge: 1}\n        field: values"), core::Error);
}

TEST(Checks, IsIntegerAsTheOfficialExpressions) {
  // is_integer(v / 0.001): a multiple of 0.001 within 1e-5 of a step.
  Ruleset multiple = OneCheck("is_integer: {divide_by: 0.001}");
  EXPECT_TRUE(CheckLog(LogOf({{"a", 0.256}}), multiple).passed());
  EXPECT_TRUE(HasError(CheckLog(LogOf({{"a", 0.1005}}), multiple), "a", "is not an integer"));
  // is_integer(math.log2(v / 0.0001)): 1e-4 times a power of two; log2(0) is a Python error.
  Ruleset power = OneCheck("is_integer: {divide_by: 0.0001, log2: true}");
  EXPECT_TRUE(CheckLog(LogOf({{"a", 0.0002}}), power).passed());
  EXPECT_TRUE(CheckLog(LogOf({{"a", 0.00005}}), power).passed());
  EXPECT_TRUE(HasError(CheckLog(LogOf({{"a", 0.0005}}), power), "a", "is not an integer"));
  EXPECT_TRUE(HasError(CheckLog(LogOf({{"a", 0.0}}), power), "a", "is undefined"));
  EXPECT_TRUE(HasError(CheckLog(LogOf({{"a", "0.0002"}}), power), "a", "not a number"));
  // is_integer(10 * (v[1] / 50.0 - 1)): SSD's second decay boundary.
  Ruleset ssd =
      OneCheck("is_integer: {divide_by: 50.0, add: -1, times: 10}\n        field: value[1]");
  EXPECT_TRUE(CheckLog(LogOf({{"a", Json::array({44, 55})}}), ssd).passed());
  EXPECT_FALSE(CheckLog(LogOf({{"a", Json::array({44, 54})}}), ssd).passed());
  EXPECT_EQ(ssd.files.at("common.yaml")[0].rules[0].checks[0].Describe(),
            "is_integer(10 * (v / 50 - 1)) on value[1]");
}

TEST(Checks, BoolsAreNumbersAsInPython) {
  // Python: True > 0, True == 1, False == 0.0.
  EXPECT_TRUE(CheckLog(LogOf({{"a", true}}), OneCheck("range: {gt: 0}")).passed());
  EXPECT_TRUE(CheckLog(LogOf({{"a", true}}), OneCheck("one_of: [1, 50]")).passed());
  EXPECT_TRUE(CheckLog(LogOf({{"a", false}}), OneCheck("one_of: [0.0]")).passed());
  EXPECT_FALSE(CheckLog(LogOf({{"a", true}}), OneCheck("one_of: [2]")).passed());
  EXPECT_TRUE(CheckLog(LogOf({{"a", 2.0}}), OneCheck("one_of: [2]")).passed());
}

TEST(Checks, MetadataFieldsAndConditions) {
  Ruleset rs = Rules(R"(  - key: a
    occurs: OPTIONAL
    checks:
      - has_metadata: [epoch_num]
  - key: b
    occurs: OPTIONAL
    checks:
      - has_metadata_any: [epoch_count, samples_count]
      - has_metadata: [first_epoch_num]
        when_has_metadata: epoch_count
      - range: {gt: 0}
        field: metadata.epoch_count
        when_has_metadata: epoch_count
  - key: c
    occurs: OPTIONAL
    checks:
      - one_of: [success, aborted]
        field: metadata.status
)");
  EXPECT_TRUE(HasError(CheckLog(LogOf({{"a", 0.8}}), rs), "a", "metadata lacks \"epoch_num\""));
  EXPECT_TRUE(CheckLog(LogOf({{"a", 0.8, {{"epoch_num", 1}}}}), rs).passed());
  EXPECT_TRUE(HasError(CheckLog(LogOf({{"b", nullptr}}), rs), "b",
                       "metadata has neither \"epoch_count\" or \"samples_count\""));
  EXPECT_TRUE(CheckLog(LogOf({{"b", nullptr, {{"samples_count", 5}}}}), rs).passed());
  CheckReport r = CheckLog(LogOf({{"b", nullptr, {{"epoch_count", 0}}}}), rs);
  EXPECT_TRUE(HasError(r, "b", "metadata lacks \"first_epoch_num\""));
  EXPECT_TRUE(HasError(r, "b", "metadata.epoch_count 0 is not > 0"));
  EXPECT_TRUE(HasError(CheckLog(LogOf({{"c", nullptr}}), rs), "c", "metadata.status is missing"));
  EXPECT_TRUE(HasError(CheckLog(LogOf({{"c", nullptr, {{"status", "ok"}}}}), rs), "c",
                       "metadata.status \"ok\" is not one of"));
}

TEST(Checks, Order) {
  Ruleset rs = Rules(R"(  - key: init_stop
    occurs: OPTIONAL
    checks:
      - seen_before: [init_start]
      - not_seen_before: [run_start]
  - key: run_stop
    occurs: OPTIONAL
    checks:
      - not_seen_after: [eval_accuracy]
)");
  EXPECT_TRUE(
      CheckLog(LogOf({{"init_start"}, {"init_stop"}, {"run_start"}, {"run_stop"}}), rs).passed());
  CheckReport r = CheckLog(LogOf({{"run_start"}, {"init_stop"}}), rs);
  EXPECT_TRUE(HasError(r, "init_stop", "no init_start before this init_stop"));
  EXPECT_TRUE(HasError(r, "init_stop",
                       "init_stop must come before run_start, which is logged earlier, at line 1"));
  r = CheckLog(LogOf({{"run_stop"}, {"eval_accuracy", 0.8}}), rs);
  ASSERT_EQ(Errors(r).size(), 1u);
  EXPECT_EQ(Errors(r)[0]->message,
            "run_stop: eval_accuracy is logged after this run_stop, at line 2");
  EXPECT_EQ(Errors(r)[0]->line_no, 1);
}

TEST(Checks, TimeSinceFirstFixedLimit) {
  Ruleset rs = OneCheck("time_since_first: {key: s, less_than_minutes: 1}");
  const int64_t t0 = 1700000000000;
  // Measured from the earliest earlier `s`, not the first one logged.
  EXPECT_TRUE(CheckLog(LogOf({{"s", nullptr, {}, t0 + 10},
                              {"s", nullptr, {}, t0},
                              {"a", nullptr, {}, t0 + 59999}}),
                       rs)
                  .passed());
  CheckReport r = CheckLog(
      LogOf({{"s", nullptr, {}, t0 + 10}, {"s", nullptr, {}, t0}, {"a", nullptr, {}, t0 + 60000}}),
      rs);
  EXPECT_TRUE(
      HasError(r, "a", "a is 60000 ms (1.00 min) after the first s (line 2); the limit is 1 min"))
      << Dump(r);
  // Nothing to measure from: passes (the order checks report a missing start).
  EXPECT_TRUE(CheckLog(LogOf({{"a", nullptr, {}, t0}}), rs).passed());
}

TEST(Checks, TimeSinceFirstLimitByValue) {
  Ruleset rs = OneCheck(
      "time_since_first: {key: s, less_than_minutes_by: {key: d, values: {closed: 30, open: "
      "240}}}");
  const int64_t t0 = 1700000000000;
  const int64_t min = 60000;
  EXPECT_TRUE(
      CheckLog(LogOf({{"s", nullptr, {}, t0}, {"d", "open"}, {"a", nullptr, {}, t0 + 239 * min}}),
               rs)
          .passed());
  EXPECT_TRUE(HasError(
      CheckLog(LogOf({{"s", nullptr, {}, t0}, {"d", "closed"}, {"a", nullptr, {}, t0 + 31 * min}}),
               rs),
      "a", "the limit is 30 min for d = \"closed\""));
  EXPECT_TRUE(HasError(
      CheckLog(LogOf({{"s", nullptr, {}, t0}, {"a", nullptr, {}, t0 + 1}, {"d", "open"}}), rs), "a",
      "depends on d, which is not logged before this a"));
  EXPECT_TRUE(HasError(
      CheckLog(LogOf({{"s", nullptr, {}, t0}, {"d", "x"}, {"a", nullptr, {}, t0 + 1}}), rs), "a",
      "no limit on the time since s for d = \"x\""));
}

TEST(AtLeastOne, QualityTarget) {
  Ruleset rs = Rules(R"(  - key: acc
    occurs: AT_LEAST_ONE
    at_least_one:
      - range: {ge: 0.759, lt: 1.0}
)");
  EXPECT_TRUE(CheckLog(LogOf({{"acc", 0.5}, {"acc", 0.76}}), rs).passed());
  CheckReport r = CheckLog(LogOf({{"acc", 0.5}, {"acc", 1.0}}), rs);
  ASSERT_EQ(Errors(r).size(), 1u) << Dump(r);
  EXPECT_EQ(Errors(r)[0]->message,
            "acc: no line passes range {ge: 0.759, lt: 1}; values: 0.5 (line 1), 1.0 (line 2)");
  EXPECT_EQ(Errors(r)[0]->line_no, 2);  // the last line of the key
  // A value that cannot be compared is an error even when another line reaches the target
  // (the official checker stops with an exception there).
  EXPECT_TRUE(HasError(CheckLog(LogOf({{"acc", "0.8"}, {"acc", 0.8}}), rs), "acc",
                       "cannot check range {ge: 0.759, lt: 1}: value \"0.8\" is a string"));
  // No line at all: only the occurrence requirement reports it.
  CheckReport none = CheckLog(LogOf({{"x", 1}}), rs);
  ASSERT_EQ(Errors(none).size(), 1u);
  EXPECT_NE(Errors(none)[0]->message.find("required at least once"), std::string::npos);
}

TEST(AtLeastOne, WhenCondition) {
  Ruleset rs = Rules(R"(  - key: acc
    occurs: AT_LEAST_ONE
    at_least_one:
      checks:
        - range: {ge: 0.92}
      when: {key: run_stop, field: metadata.status, equals: success}
)");
  EXPECT_FALSE(
      CheckLog(LogOf({{"acc", 0.5}, {"run_stop", nullptr, {{"status", "success"}}}}), rs).passed());
  EXPECT_TRUE(
      CheckLog(LogOf({{"acc", 0.5}, {"run_stop", nullptr, {{"status", "aborted"}}}}), rs).passed());
  EXPECT_TRUE(CheckLog(LogOf({{"acc", 0.5}}), rs).passed());  // no run_stop: the condition fails
}

TEST(AtLeastOne, ChecksStopAtTheFirstFailureAsPythonsAnd) {
  Ruleset rs = Rules(R"(  - key: acc
    occurs: AT_LEAST_ONE
    at_least_one:
      - range: {ge: 0.377}
        field: value.BBOX
      - range: {ge: 0.339}
        field: value.SEGM
)");
  // BBOX below its target: SEGM is never looked at (no error for its absence).
  CheckReport below = CheckLog(
      LogOf({{"acc", Json{{"BBOX", 0.3}}}, {"acc", Json{{"BBOX", 0.4}, {"SEGM", 0.4}}}}), rs);
  EXPECT_TRUE(below.passed()) << Dump(below);
  // BBOX reached, SEGM missing: the official checker stops with a KeyError.
  CheckReport missing = CheckLog(
      LogOf({{"acc", Json{{"BBOX", 0.4}}}, {"acc", Json{{"BBOX", 0.4}, {"SEGM", 0.4}}}}), rs);
  EXPECT_TRUE(HasError(missing, "acc", "value.SEGM is missing")) << Dump(missing);
  // A number where the object is expected: the official TypeError.
  EXPECT_TRUE(HasError(CheckLog(LogOf({{"acc", 0.4}}), rs), "acc", "value.BBOX is missing"));
}

TEST(Include, LoadsFilesNamedByValues) {
  Ruleset rs = MakeRuleset({
      {"common.yaml",
       "schema_version: 1\nrules:\n  - key: div\n    occurs: EXACTLY_ONE\n    include: "
       "\"{value}_common.yaml\"\n  - key: scale\n    occurs: OPTIONAL\n    include: {mini: "
       "mini.yaml}\n"},
      {"closed_common.yaml", "schema_version: 1\nrules:\n  - key: x\n    occurs: EXACTLY_ONE\n"},
      {"mini.yaml", "schema_version: 1\nrules:\n  - key: y\n    occurs: EXACTLY_ONE\n"},
  });
  CheckReport r = CheckLog(LogOf({{"div", "closed"}, {"scale", "mini"}, {"x", 1}}), rs);
  EXPECT_EQ(r.rule_files,
            (std::vector<std::string>{"t/common.yaml", "t/closed_common.yaml", "t/mini.yaml"}));
  EXPECT_TRUE(HasError(r, "y", "\"y\" is required exactly once"));
  EXPECT_EQ(Errors(r).size(), 1u) << Dump(r);

  r = CheckLog(LogOf({{"div", "closed"}, {"scale", "full"}, {"x", 1}}), rs);
  EXPECT_TRUE(r.passed()) << Dump(r);

  r = CheckLog(LogOf({{"div", "weird"}}), rs);
  ASSERT_EQ(Errors(r).size(), 1u) << Dump(r);
  EXPECT_EQ(Errors(r)[0]->message,
            "no rule file \"weird_common.yaml\" in ruleset t to include for div = \"weird\"");
  EXPECT_EQ(Errors(r)[0]->line_no, 1);
  EXPECT_EQ(Errors(r)[0]->rule_file, "t/common.yaml");
  EXPECT_EQ(Errors(r)[0]->rule_line, 5);

  r = CheckLog(LogOf({{"div", "../../x"}}), rs);
  EXPECT_TRUE(HasError(r, "div",
                       "cannot include a rule file: \"../../x_common.yaml\" is not a "
                       "plain rule-file name"));
  r = CheckLog(LogOf({{"div", Json::object()}}), rs);
  EXPECT_TRUE(HasError(r, "div", "cannot include a rule file: value {} cannot name a rule file"));
}

TEST(Override, ALaterFileTakesAKeyOver) {
  Ruleset rs = MakeRuleset({
      {"common.yaml",
       "schema_version: 1\nrules:\n  - key: a\n    occurs: EXACTLY_ONE\n  - key: b\n    occurs: "
       "EXACTLY_ONE\n  - key: go\n    occurs: OPTIONAL\n    include: more.yaml\n"},
      {"more.yaml", "schema_version: 1\nrules:\n  - key: a\n    occurs: OPTIONAL\n"},
  });
  // common.yaml's "a is missing" is dropped by more.yaml's rule for a; "b" stays.
  CheckReport r = CheckLog(LogOf({{"go"}}), rs);
  ASSERT_EQ(Errors(r).size(), 1u) << Dump(r);
  EXPECT_EQ(Errors(r)[0]->key, "b");
  // Without the include, common.yaml's rule stands.
  r = CheckLog(LogOf({{"x"}}), rs);
  EXPECT_TRUE(HasError(r, "a", "required exactly once"));
}

TEST(Override, TargetsAndAlternativesStayUnlessTakenOver) {
  const std::string common =
      "schema_version: 1\nrules:\n  - key: acc\n    occurs: AT_LEAST_ONE\n    at_least_one:\n"
      "      - range: {ge: 0.9}\n  - key: b\n    occurs: AT_LEAST_ONE_OR(c)\n"
      "  - key: go\n    occurs: OPTIONAL\n    include: more.yaml\n";
  // As the official checker: a later file's rule for the key drops neither an earlier failed
  // target (ATLEAST_ONE_CHECK) nor an AT_LEAST_ONE_OR failure (both unkeyed messages).
  Ruleset plain = MakeRuleset({{"common.yaml", common},
                               {"more.yaml",
                                "schema_version: 1\nrules:\n  - key: acc\n    occurs: OPTIONAL\n"
                                "  - key: b\n    occurs: OPTIONAL\n"}});
  CheckReport r = CheckLog(LogOf({{"acc", 0.5}, {"go"}}), plain);
  EXPECT_TRUE(HasError(r, "acc", "no line passes range {ge: 0.9}")) << Dump(r);
  EXPECT_TRUE(HasError(r, "b", "is required at least once; none is logged")) << Dump(r);
  // takes_over_target (trainbench's extension): the later file's target replaces the earlier.
  Ruleset taken = MakeRuleset({{"common.yaml", common},
                               {"more.yaml",
                                "schema_version: 1\nrules:\n  - key: acc\n    occurs: OPTIONAL\n"
                                "    takes_over_target: true\n    at_least_one:\n"
                                "      - range: {ge: 0.4}\n"}});
  r = CheckLog(LogOf({{"acc", 0.5}, {"go"}, {"c"}}), taken);
  EXPECT_TRUE(r.passed()) << Dump(r);
  EXPECT_THROW(ParseRuleFile("schema_version: 1\nrules:\n  - key: a\n    occurs: OPTIONAL\n"
                             "    takes_over_target: true\n",
                             "f.yaml", "f.yaml", "t"),
               core::Error);
}

TEST(Layers, AFileCanReplaceItsBaseLayersFile) {
  const std::string dir = testing::ScratchDir();
  testing::WriteText(dir + "/base/ruleset.yaml", "schema_version: 1\n");
  testing::WriteText(dir + "/base/common.yaml",
                     "schema_version: 1\nrules:\n  - key: a\n    occurs: EXACTLY_ONE\n"
                     "  - key: b\n    occurs: EXACTLY_ONE\n");
  testing::WriteText(dir + "/derived/ruleset.yaml", "schema_version: 1\nextends: base\n");
  testing::WriteText(dir + "/derived/common.yaml",
                     "schema_version: 1\nreplaces_base: true\nrules:\n"
                     "  - key: a\n    occurs: EXACTLY_ONE\n");
  Ruleset rs = LoadRuleset(dir, "derived");
  ASSERT_EQ(rs.Find("common.yaml")->size(), 1u);
  CheckReport r = CheckLog(LogOf({{"a"}}), rs);
  EXPECT_TRUE(r.passed()) << Dump(r);  // base's "b exactly once" is not run
  EXPECT_EQ(r.rule_files, (std::vector<std::string>{"derived/common.yaml"}));
}

TEST(FirstOnly, ChecksAndIncludesRunOnTheFirstLineOnly) {
  Ruleset rs = MakeRuleset({
      {"common.yaml",
       "schema_version: 1\nrules:\n  - key: div\n    occurs: AT_LEAST_ONE\n    first_only: true\n"
       "    checks:\n      - one_of: [closed, open]\n    include: \"{value}.yaml\"\n"},
      {"closed.yaml", "schema_version: 1\nrules: []\n"},
  });
  CheckReport r = CheckLog(LogOf({{"div", "closed"}, {"div", "bogus"}}), rs);
  EXPECT_TRUE(r.passed()) << Dump(r);
  EXPECT_EQ(r.rule_files, (std::vector<std::string>{"t/common.yaml", "t/closed.yaml"}));
}

TEST(Log, MalformedLegacyAndEmptyLogsFail) {
  Ruleset rs = Rules("  - key: a\n    occurs: OPTIONAL\n");
  CheckReport r = CheckLog(
      LogOfText(":::MLLOG {\"namespace\": \"\", \"time_ms\": 1, \"event_type\": \"POINT_IN_TIME\", "
                "\"key\": \"a\", \"value\": 1, \"metadata\": {}}\nnoise\n:::MLLOG {\"key\": \n"),
      rs);
  ASSERT_EQ(Errors(r).size(), 1u) << Dump(r);
  EXPECT_EQ(Errors(r)[0]->line_no, 3);
  EXPECT_EQ(Errors(r)[0]->line, ":::MLLOG {\"key\": ");
  EXPECT_NE(Errors(r)[0]->message.find("malformed log line: malformed MLLOG JSON"),
            std::string::npos);

  r = CheckLog(LogOfText(":::MLPv0.5.0 resnet 1541636510.1 (x.py:1) run_start\n"), rs);
  EXPECT_TRUE(HasError(r, "", "legacy MLPerf v0.5 log"));
  r = CheckLog(LogOfText("just text\n"), rs);
  EXPECT_TRUE(HasError(r, "", "no valid MLLOG line in the log"));
  EXPECT_TRUE(r.rule_files.empty());
}

// One MLLOG line with a raw time_ms text and event type.
std::string Line(const std::string& time_ms, const std::string& type, const std::string& key,
                 const std::string& value, const std::string& metadata = "{}") {
  return ":::MLLOG {\"namespace\": \"\", \"time_ms\": " + time_ms + ", \"event_type\": \"" + type +
         "\", \"key\": \"" + key + "\", \"value\": " + value + ", \"metadata\": " + metadata +
         "}\n";
}

TEST(LogSanity, ImplausibleTimesEpochsIntervalValuesAndSplicedLinesFailNamingLineAndKey) {
  // Each passed `check` before (#41); the official checker accepts them all, so they are
  // trainbench's own findings, only under a ruleset with log_sanity.
  const std::string text =
      Line("1700000000000", "INTERVAL_START", "run_start", "null") +                   // 1
      Line("-1e29", "INTERVAL_END", "epoch_stop", "null", "{\"epoch_num\": 1}") +      // 2
      Line("0", "POINT_IN_TIME", "eval_accuracy", "0.5", "{\"epoch_num\": 1}") +       // 3
      Line("1.8e19", "POINT_IN_TIME", "eval_accuracy", "0.6", "{\"epoch_num\": 2}") +  // 4
      Line("1700000000005", "INTERVAL_START", "epoch_start", "null",
           "{\"epoch_num\": 1e308}") +  // 5
      Line("1700000000006", "INTERVAL_START", "block_start", "[1, 2]",
           "{\"first_epoch_num\": 2.5}") +                                           // 6
      ":::MLPv0.5.0 resnet 1541638799.0 (x.py:5) run_stop: {\"success\": true}\n" +  // 7
      Line("1700000000009", "INTERVAL_END", "run_stop", "null", "{\"status\": \"success\"}");
  Ruleset rs = Rules("  - key: run_start\n    occurs: EXACTLY_ONE\n");
  CheckReport official = CheckLog(LogOfText(text), rs);
  EXPECT_TRUE(official.passed()) << Dump(official);

  rs.log_sanity = true;
  CheckReport r = CheckLog(LogOfText(text), rs);
  std::vector<std::string> got;
  for (const Finding* f : Errors(r)) {
    EXPECT_TRUE(f->log_sanity);
    got.push_back(std::to_string(f->line_no) + " " + f->message);
  }
  const std::string range = " is not a time between 2000-01-01 and 2200-01-01 (ms since 1970)";
  EXPECT_EQ(got, (std::vector<std::string>{
                     "2 epoch_stop: time_ms -1e+29" + range, "3 eval_accuracy: time_ms 0.0" + range,
                     "4 eval_accuracy: time_ms 1.8e+19" + range,
                     "5 epoch_start: metadata.epoch_num 1e+308 is not a whole number from 0 to "
                     "1000000000",
                     "6 block_start: metadata.first_epoch_num 2.5 is not a whole number from 0 "
                     "to 1000000000",
                     "6 block_start: the value of an interval event is a list; it marks a time and "
                     "holds null or a single number, string or bool",
                     "7 a :::MLPv0.5.0 line (key run_stop) in a log whose first marked line (1) "
                     "is :::MLLOG; the official checker ignores it"}))
      << Dump(r);
  const std::string report = Dump(r);
  EXPECT_NE(report.find("test.log:2: error: epoch_stop: time_ms -1e+29" + range +
                        " [trainbench log sanity, not an official rule]"),
            std::string::npos)
      << report;
}

TEST(LogSanity, OnInTrainbenchsRulesetOffInTheOfficialMirrors) {
  EXPECT_TRUE(LoadRuleset(testing::RulesDir(), "trainbench-1.0").log_sanity);
  EXPECT_FALSE(LoadRuleset(testing::RulesDir(), "4.0.0").log_sanity);
  EXPECT_FALSE(LoadRuleset(testing::RulesDir(), "0.7.0").log_sanity);
}

TEST(Report, WritesFindingsWithLinesThenTheVerdict) {
  Ruleset rs = Rules(R"(  - key: a
    occurs: EXACTLY_ONE
    note: "see the rules"
    checks:
      - type: integer
  - key: b
    occurs: EXACTLY_ONE
)");
  CheckReport r = CheckLog(LogOf({{"x"}, {"a", "1"}, {"a", "1"}}), rs);
  std::string line2 =
      testing::MllogText({{"x"}, {"a", "1"}}).substr(testing::MllogText({{"x"}}).size());
  line2.pop_back();
  std::string line3 = line2;
  line3.replace(line3.find("1700000000002"), 13, "1700000000003");
  line3.replace(line3.find("\"lineno\": 2"), 11, "\"lineno\": 3");
  EXPECT_EQ(
      Dump(r),
      "checking test.log against ruleset t\n"
      "  rule files: t/common.yaml\n"
      "test.log:2: error: a: value \"1\" is a string, not an integer (see the rules) "
      "[t/common.yaml:7]\n"
      "    " +
          line2 +
          "\n"
          "test.log:3: error: a: value \"1\" is a string, not an integer (see the rules) "
          "[t/common.yaml:7]\n"
          "    " +
          line3 +
          "\n"
          "test.log:3: warning: \"a\" occurs 2 times (lines 2, 3), all with the same value; "
          "expected exactly once (duplicates such as several ranks logging the same event are "
          "a warning) [t/common.yaml:3]\n"
          "    " +
          line3 +
          "\n"
          "test.log: error: \"b\" is required exactly once but is missing [t/common.yaml:8]\n"
          "test.log: FAILED (3 errors, 1 warning)\n")
      << Dump(r);
}

}  // namespace
}  // namespace trainbench::compliance

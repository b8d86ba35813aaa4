#include "compliance/check_command.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <sstream>

#include "compliance/test_util.h"

namespace trainbench::compliance {
namespace {

using testing::ReadText;
using testing::RulesDir;
using testing::ScratchDir;
using testing::TestData;
using testing::WriteText;

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

struct CommandRun {
  int code;
  std::string out;
};

CommandRun Check(const std::vector<std::string>& paths, const std::string& ruleset = "4.0.0",
                 const std::string& rules_dir = RulesDir()) {
  std::ostringstream out;
  int code = RunCheckCommand(paths, ruleset, rules_dir, out);
  return {code, out.str()};
}

// A results folder in both layouts, with files that must be skipped.
std::string MakeResults(const std::string& dir, bool with_bad) {
  const std::string good = ReadText(TestData("good_closed_resnet.log"));
  WriteText(dir + "/sys_a/resnet/result_0.txt", good);
  WriteText(dir + "/sys_a/resnet/result_1.txt",
            with_bad ? ReadText(TestData("variants/accuracy_below_target.log")) : good);
  WriteText(dir + "/org/results/sys_b/resnet/result_0.txt", good);
  WriteText(dir + "/sys_a/resnet/result_2.txt.part", "partial");
  WriteText(dir + "/sys_a/resnet/result_3.txt.tmp.1234", "being written");
  WriteText(dir + "/sys_a/resnet/notes.txt", "not a log");
  WriteText(dir + "/org/systems/sys_b.json", "{}");
  return dir;
}

TEST(FindResultFiles, FindsBothLayoutsAndSkipsPartialFiles) {
  std::string dir = MakeResults(ScratchDir(), false);
  EXPECT_EQ(FindResultFiles(dir),
            (std::vector<std::string>{dir + "/org/results/sys_b/resnet/result_0.txt",
                                      dir + "/sys_a/resnet/result_0.txt",
                                      dir + "/sys_a/resnet/result_1.txt"}));
}

TEST(RunCheckCommand, ResultsFolderWithOneBadLog) {
  std::string dir = MakeResults(ScratchDir(), true);
  CommandRun r = Check({dir});
  EXPECT_EQ(r.code, kExitFail) << r.out;
  auto lines = Lines(r.out);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.back(), "overall: FAILED (1 of 3 logs failed against 4.0.0)");
  EXPECT_NE(r.out.find(dir + "/sys_a/resnet/result_1.txt: FAILED (1 error, 0 warnings)\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find(dir + "/sys_a/resnet/result_1.txt:30: error: eval_accuracy: no line "
                             "passes range {ge: 0.759, lt: 1}"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find(dir + "/sys_a/resnet/result_0.txt: SUCCESS (0 errors, 0 warnings)\n"),
            std::string::npos);
  EXPECT_NE(r.out.find(dir + "/org/results/sys_b/resnet/result_0.txt: SUCCESS"), std::string::npos);
  EXPECT_EQ(r.out.find(".part"), std::string::npos);
  EXPECT_EQ(r.out.find(".tmp."), std::string::npos);
}

TEST(RunCheckCommand, ResultsFolderAllGood) {
  std::string dir = MakeResults(ScratchDir(), false);
  CommandRun r = Check({dir});
  EXPECT_EQ(r.code, kExitPass) << r.out;
  EXPECT_EQ(Lines(r.out).back(), "overall: SUCCESS (3 logs checked against 4.0.0, all passed)");
}

TEST(RunCheckCommand, SingleFileEndsWithItsVerdict) {
  CommandRun good = Check({TestData("good_closed_resnet.log")});
  EXPECT_EQ(good.code, kExitPass) << good.out;
  EXPECT_EQ(Lines(good.out).back(),
            TestData("good_closed_resnet.log") + ": SUCCESS (0 errors, 0 warnings)");
  CommandRun warn = Check({TestData("variants/duplicated_run_stop.log")});
  EXPECT_EQ(warn.code, kExitPass) << warn.out;
  EXPECT_NE(Lines(warn.out).back().find("SUCCESS (0 errors, 1 warning)"), std::string::npos);
  CommandRun bad = Check({TestData("variants/missing_init_stop.log")});
  EXPECT_EQ(bad.code, kExitFail) << bad.out;
  EXPECT_NE(Lines(bad.out).back().find(": FAILED ("), std::string::npos) << bad.out;
}

TEST(RunCheckCommand, SeveralFilesGetAnOverallLine) {
  CommandRun r =
      Check({TestData("good_closed_resnet.log"), TestData("variants/malformed_line.log")});
  EXPECT_EQ(r.code, kExitFail);
  EXPECT_EQ(Lines(r.out).back(), "overall: FAILED (1 of 2 logs failed against 4.0.0)");
}

TEST(RunCheckCommand, HostileEntriesAreSkippedOrFailAloneAndTheOverallLineComes) {
  const std::string dir = ScratchDir();
  const std::string good = ReadText(TestData("good_closed_resnet.log"));
  const std::string b = dir + "/sys/resnet/";
  WriteText(b + "result_0.txt", good);
  // A spliced v0.5 line with a stray byte in its value: the checker's dump of it threw
  // nlohmann's type_error.316 and ended the whole check (#41).
  WriteText(b + "result_1.txt",
            good + ":::MLPv0.5.0 resnet 1541638790.0 (x.py:9) submission_benchmark: '\xff'\n");
  ASSERT_EQ(mkfifo((b + "result_2.txt").c_str(), 0600), 0);
  // 4.0.0 ignores the spliced line, as the official checker does.
  CommandRun r = Check({dir}, "4.0.0");
  EXPECT_EQ(r.code, kExitPass) << r.out;
  EXPECT_NE(r.out.find(b + "result_2.txt: skipped: is a FIFO, not a regular file\n"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(Lines(r.out).back(), "overall: SUCCESS (2 logs checked against 4.0.0, all passed)");
  // trainbench-1.0's log sanity fails it, naming the line.
  r = Check({b + "result_1.txt"}, "trainbench-1.0");
  EXPECT_EQ(r.code, kExitFail) << r.out;
  EXPECT_NE(r.out.find(b + "result_1.txt:32: error: a :::MLPv0.5.0 line in a log whose first "
                           "marked line (1) is :::MLLOG; the official checker ignores it "
                           "[trainbench log sanity, not an official rule]"),
            std::string::npos)
      << r.out;
}

TEST(RunCheckCommand, DefaultRulesetIsTrainbench) {
  std::ostringstream out;
  EXPECT_EQ(
      RunCheckCommand({TestData("variants/tb_good_mini.log")}, kDefaultRuleset, RulesDir(), out),
      kExitPass)
      << out.str();
  EXPECT_NE(out.str().find("against ruleset trainbench-1.0"), std::string::npos);
}

TEST(RunCheckCommand, BadInputIsExitTwoWithAClearMessage) {
  CommandRun missing = Check({TestData("good_closed_resnet.log"), "/no/such/result_0.txt"});
  EXPECT_EQ(missing.code, kExitBadInput);
  EXPECT_EQ(missing.out,
            "trainbench check: error: /no/such/result_0.txt: no such file or folder\n");

  CommandRun unknown = Check({TestData("good_closed_resnet.log")}, "9.9.9");
  EXPECT_EQ(unknown.code, kExitBadInput);
  EXPECT_NE(unknown.out.find("unknown ruleset \"9.9.9\""), std::string::npos) << unknown.out;
  EXPECT_NE(unknown.out.find("4.0.0"), std::string::npos) << unknown.out;

  std::string empty = ScratchDir();
  CommandRun none = Check({empty});
  EXPECT_EQ(none.code, kExitBadInput);
  EXPECT_EQ(none.out,
            "trainbench check: error: " + empty + ": no result_*.txt files below this folder\n");

  CommandRun no_paths = Check({});
  EXPECT_EQ(no_paths.code, kExitBadInput);
}

TEST(RunCheckCommand, BrokenRuleFileIsExitTwoNamingFileAndLine) {
  std::string rules = ScratchDir();
  WriteText(rules + "/r/ruleset.yaml", "schema_version: 1\n");
  WriteText(rules + "/r/common.yaml", "schema_version: 1\nrules:\n  - key: a\n    occurs: TWICE\n");
  CommandRun r = Check({TestData("good_closed_resnet.log")}, "r", rules);
  EXPECT_EQ(r.code, kExitBadInput);
  EXPECT_EQ(r.out, "trainbench check: error: " + rules +
                       "/r/common.yaml:4: occurs: unknown requirement \"TWICE\" (EXACTLY_ONE, "
                       "AT_LEAST_ONE, AT_LEAST(n), OPTIONAL, AT_LEAST_ONE_OR(key, ...))\n");
}

}  // namespace
}  // namespace trainbench::compliance

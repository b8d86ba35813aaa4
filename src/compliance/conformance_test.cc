// Agreement with the official MLPerf compliance checker (mlcommons/logging) on the conformance
// corpus: every *.log under testdata/, checked with every ruleset trainbench mirrors, must get the
// verdict the official checker gave it (testdata/conformance/official_verdicts.tsv, written by
// official_verdicts.py from real runs of the official checker; the corpus comes from
// make_corpus.py and make_variants.py).
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "compliance/checker.h"
#include "compliance/rules.h"
#include "compliance/test_util.h"

namespace trainbench::compliance {
namespace {

namespace fs = std::filesystem;
using testing::Dump;
using testing::TestData;

struct Row {
  std::string log, ruleset, verdict, official;
};

std::vector<Row> OfficialVerdicts() {
  std::istringstream table(testing::ReadText(TestData("conformance/official_verdicts.tsv")));
  std::vector<Row> rows;
  for (std::string line; std::getline(table, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream cols(line);
    Row r;
    std::getline(cols, r.log, '\t');
    std::getline(cols, r.ruleset, '\t');
    std::getline(cols, r.verdict, '\t');
    std::getline(cols, r.official);
    rows.push_back(r);
  }
  return rows;
}

TEST(Conformance, EveryCorpusLogGetsTheOfficialVerdictUnderEveryMirroredRuleset) {
  const std::vector<Row> rows = OfficialVerdicts();
  std::map<std::string, Ruleset> rulesets;
  std::map<std::string, int> agree, total;
  std::set<std::string> listed;
  for (const Row& r : rows) {
    ASSERT_TRUE(r.verdict == "SUCCESS" || r.verdict == "FAILED" || r.verdict == "CRASH")
        << r.log << " " << r.verdict;
    auto it = rulesets.find(r.ruleset);
    if (it == rulesets.end()) {
      it = rulesets.emplace(r.ruleset, LoadRuleset(testing::RulesDir(), r.ruleset)).first;
    }
    listed.insert(r.log + "\t" + r.ruleset);
    CheckReport report = CheckLogFile(TestData(r.log), it->second);
    const bool official_pass = r.verdict == "SUCCESS";
    ++total[r.ruleset];
    if (report.passed() == official_pass) {
      ++agree[r.ruleset];
    } else {
      ADD_FAILURE() << r.log << " --ruleset " << r.ruleset << ": official " << r.verdict << " ("
                    << r.official << "), trainbench " << (report.passed() ? "SUCCESS" : "FAILED")
                    << "\n"
                    << Dump(report);
    }
  }
  // The corpus is all of testdata's logs, each with a verdict for every mirrored ruleset.
  int logs = 0;
  for (const auto& e : fs::recursive_directory_iterator(TestData(""))) {
    if (e.path().extension() != ".log") continue;
    ++logs;
    std::string rel = fs::relative(e.path(), TestData("")).generic_string();
    for (const char* rs : {"0.7.0", "4.0.0"}) {
      EXPECT_EQ(listed.count(rel + "\t" + rs), 1u) << rel << " has no official verdict for " << rs;
    }
  }
  EXPECT_GE(logs, 80);
  for (const auto& [rs, n] : total) {
    EXPECT_EQ(agree[rs], n) << "ruleset " << rs << ": " << agree[rs] << " of " << n << " agree";
  }
}

}  // namespace
}  // namespace trainbench::compliance

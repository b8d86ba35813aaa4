// Helpers shared by the compliance tests: logs built from compact event lists, rulesets built
// from inline rule-file text, scratch folders.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "compliance/checker.h"
#include "compliance/rules.h"
#include "core/log_reader.h"
#include "core/mllog.h"

namespace trainbench::compliance::testing {

inline std::string SourceDir() { return TRAINBENCH_TEST_SRCDIR; }
inline std::string RulesDir() { return SourceDir() + "/rules"; }
inline std::string TestData(const std::string& name) {
  return SourceDir() + "/src/compliance/testdata/" + name;
}

// One MLLOG event; time_ms 0 means "one ms after the previous event".
struct Ev {
  std::string key;
  Json value = nullptr;
  Json metadata = Json::object();
  int64_t time_ms = 0;
};

inline std::string MllogText(const std::vector<Ev>& events) {
  std::string text;
  int64_t t = 1700000000000;
  int n = 0;
  for (const auto& e : events) {
    t = e.time_ms ? e.time_ms : t + 1;
    text += core::FormatMllogLine("", t, core::EventType::kPointInTime, e.key, e.value, "t.cc", ++n,
                                  e.metadata) +
            "\n";
  }
  return text;
}

inline core::ParsedLog LogOfText(const std::string& text, const std::string& path = "test.log") {
  std::istringstream in(text);
  return core::ParseLog(in, path);
}

inline core::ParsedLog LogOf(const std::vector<Ev>& events) { return LogOfText(MllogText(events)); }

// A one-layer ruleset "t" from inline rule files; the entry is common.yaml.
inline Ruleset MakeRuleset(const std::map<std::string, std::string>& files) {
  Ruleset rs;
  rs.name = "t";
  rs.layers = {"t"};
  for (const auto& [name, text] : files) {
    rs.files[name].push_back(ParseRuleFile(text, "t/" + name, name, "t"));
  }
  return rs;
}

// A ruleset of one common.yaml holding `rules` (YAML list items, indented by two spaces).
inline Ruleset Rules(const std::string& rules) {
  return MakeRuleset({{"common.yaml", "schema_version: 1\nrules:\n" + rules}});
}

inline std::vector<const Finding*> Errors(const CheckReport& r) {
  std::vector<const Finding*> out;
  for (const auto& f : r.findings)
    if (f.severity == Severity::kError) out.push_back(&f);
  return out;
}

inline std::vector<const Finding*> Warnings(const CheckReport& r) {
  std::vector<const Finding*> out;
  for (const auto& f : r.findings)
    if (f.severity == Severity::kWarning) out.push_back(&f);
  return out;
}

inline bool HasError(const CheckReport& r, const std::string& key, const std::string& text) {
  for (const auto* f : Errors(r)) {
    if (f->key == key && f->message.find(text) != std::string::npos) return true;
  }
  return false;
}

inline std::string Dump(const CheckReport& r) {
  std::ostringstream os;
  WriteReport(r, os);
  return os.str();
}

// A fresh empty folder under the test temp dir, named after the running test.
inline std::string ScratchDir() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string dir =
      ::testing::TempDir() + "/compliance_" + info->test_suite_name() + "_" + info->name();
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

inline void WriteText(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

inline std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace trainbench::compliance::testing

// libFuzzer target: one rule file (compliance::ParseRuleFile), and, when it parses, a check of
// a fixed good log against a ruleset made of that file alone, so the checks a hostile rule file
// can state (ranges, lengths, includes, time limits) run too (docs/fuzzing.md).
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "compliance/checker.h"
#include "compliance/rules.h"
#include "core/log_reader.h"
#include "fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trainbench;
  static const core::ParsedLog log =
      core::ReadLogFile(TRAINBENCH_FUZZ_SRCDIR "/src/compliance/testdata/good_closed_resnet.log");
  const std::string text(reinterpret_cast<const char*>(data), size);
  fuzz::ExpectOnlyCoreErrors([&] {
    compliance::Ruleset ruleset;
    ruleset.name = "fuzz";
    ruleset.dir = "fuzz";
    ruleset.log_sanity = size % 2 == 0;
    ruleset.layers = {"fuzz"};
    ruleset.files["common.yaml"].push_back(
        compliance::ParseRuleFile(text, "fuzz/common.yaml", "common.yaml", "fuzz"));
    compliance::CheckReport report = compliance::CheckLog(log, ruleset);
    std::ostringstream out;
    compliance::WriteReport(report, out);
  });
  return 0;
}

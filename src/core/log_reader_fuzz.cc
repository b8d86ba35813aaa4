// libFuzzer target: an MLLOG / MLPerf v0.5 result log (core::ParseLog), then the compliance
// check of it against the trainbench-1.0 ruleset and its report, as `trainbench check` runs
// them (docs/fuzzing.md). ParseLog turns bad lines into LogParseErrors and CheckLog promises
// never to throw for anything in the log, so here not even core::Error is expected.
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
  static const compliance::Ruleset ruleset =
      compliance::LoadRuleset(TRAINBENCH_FUZZ_SRCDIR "/rules", "trainbench-1.0");
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  core::ParsedLog log = core::ParseLog(in, "fuzz.log");
  compliance::CheckReport report = compliance::CheckLog(log, ruleset);
  std::ostringstream out;
  compliance::WriteReport(report, out);
  return 0;
}

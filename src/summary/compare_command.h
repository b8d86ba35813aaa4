// `trainbench compare RESULTS_A RESULTS_B [--json]`: the entry point the CLI calls after it has
// parsed its flags. Scans and summarizes each folder on its own (summarize_command.h), compares
// them (compare.h) and writes a table for people or one JSON document for tools. Deterministic:
// the same folders give the same bytes (the bootstrap seed is fixed).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "core/benchmark_def.h"
#include "core/json.h"
#include "summary/compare.h"

namespace trainbench::summary {

// Bumped whenever a field of the JSON output changes meaning or goes away.
inline constexpr int kCompareSchemaVersion = 1;

// What the comparison was made from.
struct CompareContext {
  std::string results_a, results_b;
  std::string benchmark_definitions;  // the directory read, or why none were
  std::string git_revision;           // of the trainbench build
};

// The table: a header with the method, one row per comparison, a plain sentence per
// comparison saying whether the difference is significant, then benchmarks found on one side
// only, skipped files and warnings.
void WriteCompareTable(const CompareContext& context, const CompareReport& report,
                       std::ostream& out);

// {"schema_version", "context", "method", "comparisons": [...], "only_in_a", "only_in_b",
// "skipped", "warnings"}; infinite interval bounds are null. See docs/compare.md.
core::Json CompareToJson(const CompareContext& context, const CompareReport& report);

// `format` is "table" or "json". Benchmark definitions are read from core::BenchmarksDir(), as
// summarize does (a warning on `err` when they cannot be read). Returns 0 when the comparison
// was written (also when no benchmark is in both folders, which is said on `err`), 2 on bad
// input: a folder that does not exist or is not a directory (the message names it) or an
// unknown format. Messages go to `err`, the comparison to `out`.
int RunCompareCommand(const std::string& results_a, const std::string& results_b,
                      const std::string& format, std::ostream& out, std::ostream& err);

// As above with explicit definitions and options; `definitions_label` says where the
// definitions came from.
int RunCompareCommand(const std::string& results_a, const std::string& results_b,
                      const std::string& format, const std::vector<core::BenchmarkDef>& defs,
                      const std::string& definitions_label, const CompareOptions& options,
                      std::ostream& out, std::ostream& err);

}  // namespace trainbench::summary

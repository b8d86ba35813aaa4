// `trainbench summarize RESULTS_DIR... [--json|--csv]`: the entry point the CLI calls, after it
// has parsed its flags. Scans each directory (see results_scan.h), scores the runs against the
// benchmark definitions (see summarize.h) and writes one report in the chosen format.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "core/benchmark_def.h"
#include "summary/summarize.h"

namespace trainbench::summary {

// Scans every directory in `dirs` and summarizes all their runs together.
// Throws core::Error naming the directory when one does not exist.
SummaryReport BuildReport(const std::vector<std::string>& dirs,
                          const std::vector<core::BenchmarkDef>& defs);

// `format` is "table", "json" or "csv". Benchmark definitions are read from
// core::BenchmarksDir(); when they cannot be read, a warning goes to `err` and the summary goes on
// without them (trainbench results then have no N and no score; v0.5 logs are unaffected).
// Returns 0 when the report was written (even if some files were skipped or some benchmarks
// have no result), 2 on bad input: no directory, a directory that does not exist (the message
// names it), an unknown format. Messages go to `err`, the report to `out`.
int RunSummarizeCommand(const std::vector<std::string>& dirs, const std::string& format,
                        std::ostream& out, std::ostream& err);

// As above with explicit definitions; `definitions_label` says where they came from (printed in
// the report's context).
int RunSummarizeCommand(const std::vector<std::string>& dirs, const std::string& format,
                        const std::vector<core::BenchmarkDef>& defs,
                        const std::string& definitions_label, std::ostream& out, std::ostream& err);

}  // namespace trainbench::summary

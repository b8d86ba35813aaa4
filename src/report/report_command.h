// `trainbench report RESULTS_DIR... -o report.html`: the entry point the CLI calls after it has
// parsed its flags. Loads the folders (results_loader.h), imports their runs into the results
// history (history_import.h) unless told not to, and writes the HTML report (html_report.h)
// atomically.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "core/benchmark_def.h"

namespace trainbench::report {

struct ReportOptions {
  std::vector<std::string> dirs;  // results folders, at least one
  std::string output;             // the HTML file to write (required)
  std::string baseline_system;    // speed-ups relative to it (see HtmlReportOptions)
  std::string db_path;            // the history database; "" = DefaultHistoryPath()
  bool record_history = true;     // import the runs into the history
};

// Why the report must not be written to `output` ("" when it may): a name of a result log
// (result_*.txt, *.part, *.tmp.*), an existing file that is not a regular file or holds log
// lines, or, inside one of the results folders `dirs`, anything but an .html file that is new
// or an earlier trainbench report.
std::string RefusedOutput(const std::string& output, const std::vector<std::string>& dirs);

// Returns 0 when the report was written (also when files were skipped: they are listed in the
// report and on `err`; also when the history could not be updated: a warning on `err`), 2 on bad
// input (no folder, a folder that does not exist, no output path, an output that cannot be
// written or that RefusedOutput refuses; the message names it). One line saying what was
// written goes to `out`.
int RunReportCommand(const ReportOptions& options, const std::vector<core::BenchmarkDef>& defs,
                     const std::string& definitions_label, std::ostream& out, std::ostream& err);

// As above with the benchmark definitions from core::BenchmarksDir() (a warning on `err` and no
// scores when they cannot be read, as `summarize` does).
int RunReportCommand(const ReportOptions& options, std::ostream& out, std::ostream& err);

}  // namespace trainbench::report

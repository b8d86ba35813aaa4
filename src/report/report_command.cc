#include "report/report_command.h"

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/paths.h"
#include "core/provenance.h"
#include "report/history_import.h"
#include "report/html_report.h"
#include "report/results_loader.h"

namespace trainbench::report {

namespace {

constexpr const char* kPrefix = "trainbench report: ";

}  // namespace

int RunReportCommand(const ReportOptions& options, const std::vector<core::BenchmarkDef>& defs,
                     const std::string& definitions_label, std::ostream& out, std::ostream& err) {
  if (options.dirs.empty()) {
    err << kPrefix << "no results directory given\n";
    return 2;
  }
  if (options.output.empty()) {
    err << kPrefix << "no output file given (-o report.html)\n";
    return 2;
  }
  LoadedResults results;
  try {
    results = LoadResults(options.dirs, defs);
  } catch (const core::Error& e) {
    err << kPrefix << e.what() << "\n";
    return 2;
  }
  for (const auto& i : results.summary.skipped) err << "skipped: " << i.ToString() << "\n";
  if (results.runs.empty() && results.summary.skipped.empty()) {
    err << kPrefix << "no result files (result_<i>.txt) found\n";
  }

  HtmlReportOptions html;
  html.context.results_dirs = options.dirs;
  html.context.benchmark_definitions = definitions_label;
  html.context.git_revision = core::GitRevision();
  html.baseline_system = options.baseline_system;
  if (options.record_history) {
    try {
      const std::string path = options.db_path.empty() ? DefaultHistoryPath() : options.db_path;
      html.history_note = DescribeImport(ImportIntoHistory(results, path, NowMs()), path);
      err << html.history_note << "\n";
    } catch (const core::Error& e) {
      err << "warning: results history not updated: " << e.what() << "\n";
      html.history_note = "results history not updated";
    }
  }

  try {
    core::WriteFileAtomically(options.output, RenderHtmlReport(results, html));
  } catch (const core::Error& e) {
    err << kPrefix << e.what() << "\n";
    return 2;
  }
  const size_t skipped = results.summary.skipped.size();
  out << "wrote " << options.output << ": " << results.summary.results.size() << " results from "
      << results.runs.size() << " runs, " << skipped << " file" << (skipped == 1 ? "" : "s")
      << " skipped\n";
  return 0;
}

int RunReportCommand(const ReportOptions& options, std::ostream& out, std::ostream& err) {
  std::vector<core::BenchmarkDef> defs;
  std::string label = core::BenchmarksDir();
  try {
    defs = core::LoadAllBenchmarks(label);
  } catch (const core::Error& e) {
    err << kPrefix << "warning: benchmark definitions not loaded: " << e.what() << "\n";
    label = "none (" + std::string(e.what()) + ")";
  }
  return RunReportCommand(options, defs, label, out, err);
}

}  // namespace trainbench::report

#include "summary/summarize_command.h"

#include <algorithm>
#include <filesystem>
#include <memory>

#include "core/error.h"
#include "core/paths.h"
#include "core/provenance.h"
#include "summary/reporter.h"
#include "summary/results_scan.h"

namespace trainbench::summary {

namespace {

constexpr const char* kPrefix = "trainbench summarize: ";

}  // namespace

SummaryReport BuildReport(const std::vector<std::string>& dirs,
                          const std::vector<core::BenchmarkDef>& defs) {
  std::vector<RunResult> runs;
  SummaryReport report;
  for (const auto& dir : dirs) {
    ScanResult scan = ScanResults(dir);
    runs.insert(runs.end(), scan.runs.begin(), scan.runs.end());
    report.skipped.insert(report.skipped.end(), scan.skipped.begin(), scan.skipped.end());
    report.warnings.insert(report.warnings.end(), scan.warnings.begin(), scan.warnings.end());
  }
  report.results = Summarize(runs, defs);
  AttachRcpOutcomes(&report.results);
  return report;
}

int RunSummarizeCommand(const std::vector<std::string>& dirs, const std::string& format,
                        const std::vector<core::BenchmarkDef>& defs,
                        const std::string& definitions_label, std::ostream& out,
                        std::ostream& err) {
  if (dirs.empty()) {
    err << kPrefix << "no results directory given\n";
    return 2;
  }
  std::unique_ptr<Reporter> reporter;
  try {
    reporter = MakeReporter(format, out, err);
  } catch (const core::Error& e) {
    err << kPrefix << e.what() << "\n";
    return 2;
  }
  for (const auto& dir : dirs) {
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec)) {
      err << kPrefix << dir << ": results directory not found\n";
      return 2;
    }
  }
  SummaryReport report;
  try {
    report = BuildReport(dirs, defs);
  } catch (const core::Error& e) {
    err << kPrefix << e.what() << "\n";
    return 2;
  }
  if (report.results.empty() && report.skipped.empty()) {
    err << kPrefix << "no result files (result_<i>.txt) found\n";
  }
  ReportContext context;
  context.results_dirs = dirs;
  context.benchmark_definitions = definitions_label;
  context.git_revision = core::GitRevision();
  reporter->Report(context, report);
  return 0;
}

int RunSummarizeCommand(const std::vector<std::string>& dirs, const std::string& format,
                        std::ostream& out, std::ostream& err) {
  std::vector<core::BenchmarkDef> defs;
  std::string label = core::BenchmarksDir();
  try {
    defs = core::LoadAllBenchmarks(label);
  } catch (const core::Error& e) {
    err << kPrefix << "warning: benchmark definitions not loaded: " << e.what() << "\n";
    label = "none (" + std::string(e.what()) + ")";
  }
  return RunSummarizeCommand(dirs, format, defs, label, out, err);
}

}  // namespace trainbench::summary

#include "report/report_command.h"

#include <filesystem>
#include <fstream>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/paths.h"
#include "core/provenance.h"
#include "core/strings.h"
#include "report/history_import.h"
#include "report/html_report.h"
#include "report/results_loader.h"

namespace trainbench::report {

namespace {

namespace fs = std::filesystem;

constexpr const char* kPrefix = "trainbench report: ";

// How much of an existing output file is looked at to tell a log or a report (a log's first
// marked line comes early; a report's title is in its first lines).
constexpr size_t kHeadBytes = 1 << 20;

std::string Head(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string head(kHeadBytes, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<size_t>(in.gcount()));
  return head;
}

// True when `inner` is `outer` or below it (both absolute and normal).
bool IsWithin(const fs::path& inner, const fs::path& outer) {
  const fs::path rel = inner.lexically_relative(outer);
  return !rel.empty() && *rel.begin() != "..";
}

fs::path Normal(const std::string& path) {
  std::error_code ec;
  fs::path p = fs::weakly_canonical(fs::absolute(path, ec), ec);
  return ec ? fs::absolute(path, ec).lexically_normal() : p;
}

}  // namespace

std::string RefusedOutput(const std::string& output, const std::vector<std::string>& dirs) {
  const std::string name = fs::path(output).filename().string();
  if (name.empty() || name == "." || name == "..") return "names no file";
  if ((name.rfind("result_", 0) == 0 && core::EndsWith(name, ".txt")) ||
      core::EndsWith(name, ".part") || name.find(".tmp.") != std::string::npos) {
    return "is named like a result log (result_*.txt, *.part, *.tmp.*)";
  }
  std::error_code ec;
  const fs::file_status st = fs::status(output, ec);
  const bool exists = fs::exists(st);
  if (exists && !fs::is_regular_file(st)) return "exists and is not a regular file";
  const std::string head = exists ? Head(output) : "";
  // An earlier report quotes log lines; it is the one file that may be written over.
  const bool earlier_report = head.rfind("<!DOCTYPE html>", 0) == 0 &&
                              head.find("<title>trainbench report: ") != std::string::npos;
  if (!earlier_report && (head.find(":::MLLOG") != std::string::npos ||
                          head.find(":::MLPv0.5.0") != std::string::npos)) {
    return "holds result log lines (:::MLLOG or :::MLPv0.5.0)";
  }
  const fs::path out = Normal(output);
  for (const auto& dir : dirs) {
    if (!IsWithin(out, Normal(dir))) continue;
    // Inside a results folder only the report itself may be written: a new .html file, or an
    // earlier trainbench report.
    if (!core::EndsWith(name, ".html")) {
      return "is inside the results folder " + dir + " and is not an .html report";
    }
    if (exists && !earlier_report) {
      return "is inside the results folder " + dir + " and is not a trainbench report";
    }
  }
  return "";
}

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
  // Before anything is read or recorded: a report written over a result log loses the run.
  if (const std::string why = RefusedOutput(options.output, options.dirs); !why.empty()) {
    err << kPrefix << options.output << ": refusing to write the report there: " << why << "\n";
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
    } catch (const std::exception& e) {
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

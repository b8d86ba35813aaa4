// Output formats of a summary, behind one interface (as google/benchmark's reporters): a console
// table for people, JSON (with a schema version and the context it was made in) and CSV (one
// header line, one row per result) for tools. All are deterministic: the same report gives the
// same bytes. Missing numbers are "n/a" in the table and CSV, null in JSON.
#pragma once

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "summary/summarize.h"

namespace trainbench::summary {

// Bumped whenever a field of the JSON output changes meaning or goes away.
inline constexpr int kSummarySchemaVersion = 1;

// What the summary was made from; printed by every reporter but CSV.
struct ReportContext {
  std::vector<std::string> results_dirs;
  std::string benchmark_definitions;  // the directory read, or why none were
  std::string git_revision;           // of the trainbench build
};

class Reporter {
 public:
  virtual ~Reporter() = default;
  // Writes the whole report. Threading: not thread-safe; one report per call.
  virtual void Report(const ReportContext& context, const SummaryReport& report) = 0;
};

// Human-readable table, then notes, skipped files and warnings.
class ConsoleReporter : public Reporter {
 public:
  explicit ConsoleReporter(std::ostream& out) : out_(out) {}
  void Report(const ReportContext& context, const SummaryReport& report) override;

 private:
  std::ostream& out_;
};

// One JSON document: {"schema_version", "context", "results": [... with each run ...],
// "skipped", "warnings"}.
class JsonReporter : public Reporter {
 public:
  explicit JsonReporter(std::ostream& out) : out_(out) {}
  void Report(const ReportContext& context, const SummaryReport& report) override;

 private:
  std::ostream& out_;
};

// CSV on `out` (RFC 4180 quoting, "\n" line ends); skipped files and warnings go to `err`
// so `out` stays one table.
class CsvReporter : public Reporter {
 public:
  CsvReporter(std::ostream& out, std::ostream& err) : out_(out), err_(err) {}
  void Report(const ReportContext& context, const SummaryReport& report) override;

 private:
  std::ostream& out_;
  std::ostream& err_;
};

// "table", "json" or "csv"; throws core::Error naming the known formats otherwise.
std::unique_ptr<Reporter> MakeReporter(const std::string& format, std::ostream& out,
                                       std::ostream& err);

// The JSON document JsonReporter writes (for tools that want it without text).
core::Json SummaryToJson(const ReportContext& context, const SummaryReport& report);

}  // namespace trainbench::summary

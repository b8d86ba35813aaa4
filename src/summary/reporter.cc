#include "summary/reporter.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/error.h"
#include "summary/text_table.h"

namespace trainbench::summary {

namespace {

constexpr const char* kNa = "n/a";

std::string Fixed(double v, int precision) {
  // ExtractRun refuses non-finite run times; whatever else is not finite is no number either.
  if (!std::isfinite(v)) return kNa;
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", precision, v);
  return buf;
}

std::string Fixed(const std::optional<double>& v, int precision) {
  return v ? Fixed(*v, precision) : kNa;
}

std::string OrDash(const std::string& s) { return s.empty() ? "-" : s; }

std::string RunsCell(const BenchmarkSummary& s) {
  return std::to_string(s.runs.size()) + "/" +
         (s.rule.runs_required > 0 ? std::to_string(s.rule.runs_required) : "?");
}

core::Json Optional(const std::optional<double>& v) {
  return v ? core::Json(*v) : core::Json(nullptr);
}

core::Json OptionalString(const std::string& s) {
  return s.empty() ? core::Json(nullptr) : core::Json(s);
}

std::string CsvField(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) {
    if (c == '"') q += '"';
    q += c;
  }
  return q + "\"";
}

std::string Label(const BenchmarkSummary& s) {
  std::string l = s.benchmark;
  if (!s.scale.empty()) l += " " + s.scale;
  l += " on " + OrDash(s.system);
  if (!s.division.empty()) l += " (" + s.division + ")";
  return l;
}

}  // namespace

void ConsoleReporter::Report(const ReportContext& context, const SummaryReport& report) {
  std::string dirs;
  for (const auto& d : context.results_dirs) dirs += (dirs.empty() ? "" : ", ") + d;
  size_t run_count = 0;
  for (const auto& r : report.results) run_count += r.runs.size();
  out_ << "trainbench summary of " << dirs << "\n";
  out_ << "benchmark definitions: " << context.benchmark_definitions << "\n";
  out_ << report.results.size() << " results from " << run_count << " runs, "
       << report.skipped.size() << " files skipped\n";

  if (!report.results.empty()) {
    // (name, right-aligned)
    const std::vector<std::pair<std::string, bool>> columns = {
        {"benchmark", false}, {"scale", false},    {"system", false},     {"division", false},
        {"runs", true},       {"converged", true}, {"olympic_min", true}, {"min", true},
        {"max", true},        {"cv", true},        {"epochs", true},      {"score", true},
        {"status", false}};
    std::vector<std::vector<std::string>> rows;
    for (const auto& s : report.results) {
      rows.push_back({s.benchmark, OrDash(s.scale), OrDash(s.system), OrDash(s.division),
                      RunsCell(s), std::to_string(s.converged_runs),
                      Fixed(s.olympic_mean_minutes, 2), Fixed(s.min_minutes, 2),
                      Fixed(s.max_minutes, 2),
                      s.cv ? Fixed(*s.cv * 100.0, 1) + "%" : std::string(kNa),
                      Fixed(s.mean_epochs, 1), Fixed(s.score, 2), s.Status()});
    }
    out_ << "\n";
    PrintTextTable(out_, columns, rows);
    out_ << "(times in minutes; cv = sample stddev / mean of the converged runs used; "
            "score = reference time / olympic mean)\n";

    bool any_rcp = false;
    for (const auto& s : report.results) any_rcp = any_rcp || !s.rcp_detail.empty();
    if (any_rcp) {
      out_ << "\nRCP test of the closed results (as mlperf_logging's rcp_checker; docs/rcp.md):\n";
      for (const auto& s : report.results) {
        if (s.rcp_detail.empty()) continue;
        out_ << "  " << Label(s) << ": "
             << (s.rcp_outcome.empty() ? "" : "RCP " + s.rcp_outcome + ": ") << s.rcp_detail
             << "\n";
      }
    }

    bool any_notes = false;
    for (const auto& s : report.results) any_notes = any_notes || !s.notes.empty();
    if (any_notes) {
      out_ << "\nNotes:\n";
      for (const auto& s : report.results) {
        for (const auto& n : s.notes) out_ << "  " << Label(s) << ": " << n << "\n";
      }
    }
  }
  if (!report.skipped.empty()) {
    out_ << "\nSkipped files (" << report.skipped.size() << "):\n";
    for (const auto& i : report.skipped) out_ << "  " << i.ToString() << "\n";
  }
  if (!report.warnings.empty()) {
    out_ << "\nWarnings (" << report.warnings.size() << "):\n";
    for (const auto& i : report.warnings) out_ << "  " << i.ToString() << "\n";
  }
}

core::Json SummaryToJson(const ReportContext& context, const SummaryReport& report) {
  core::Json doc = core::Json::object();
  doc["schema_version"] = kSummarySchemaVersion;
  core::Json ctx = core::Json::object();
  ctx["tool"] = "trainbench summarize";
  ctx["git_revision"] = context.git_revision;
  ctx["results_dirs"] = context.results_dirs;
  ctx["benchmark_definitions"] = context.benchmark_definitions;
  ctx["time_unit"] = "minutes";
  doc["context"] = ctx;

  core::Json results = core::Json::array();
  for (const auto& s : report.results) {
    core::Json r = core::Json::object();
    r["benchmark"] = s.benchmark;
    r["log_name"] = OptionalString(s.log_name);
    r["scale"] = OptionalString(s.scale);
    r["system"] = OptionalString(s.system);
    r["division"] = OptionalString(s.division);
    core::Json rule = core::Json::object();
    rule["source"] = s.rule.source;
    rule["runs_required"] =
        s.rule.runs_required > 0 ? core::Json(s.rule.runs_required) : core::Json(nullptr);
    rule["converged_runs_used"] =
        s.rule.converged_used > 0 ? core::Json(s.rule.converged_used) : core::Json(nullptr);
    rule["reference_time_minutes"] = Optional(s.rule.reference_minutes);
    r["rule"] = rule;
    r["status"] = s.Status();
    r["has_result"] = s.has_result;
    r["complete"] = !s.incomplete && s.rule.runs_required > 0;
    r["no_result_reason"] = OptionalString(s.no_result_reason);
    r["runs"] = s.runs.size();
    r["converged_runs"] = s.converged_runs;
    r["olympic_mean_minutes"] = Optional(s.olympic_mean_minutes);
    r["min_minutes"] = Optional(s.min_minutes);
    r["max_minutes"] = Optional(s.max_minutes);
    r["cv"] = Optional(s.cv);
    r["mean_epochs"] = Optional(s.mean_epochs);
    r["score"] = Optional(s.score);
    core::Json window = core::Json::object();
    window["first_run"] = s.window_first + 1;
    window["size"] = s.window_size;
    window["windows"] = s.windows;
    r["window"] = window;
    r["notes"] = s.notes;
    r["rcp"] = s.rcp_detail.empty() ? core::Json(nullptr)
                                    : core::Json{{"outcome", OptionalString(s.rcp_outcome)},
                                                 {"detail", s.rcp_detail}};
    core::Json runs = core::Json::array();
    for (size_t i = 0; i < s.runs.size(); ++i) {
      const RunResult& run = s.runs[i];
      core::Json j = core::Json::object();
      j["file"] = run.path;
      j["format"] = core::LogFormatName(run.format);
      j["start_time_ms"] = run.start_ms;
      j["minutes"] = run.minutes;
      j["converged"] = run.converged;
      j["status"] = OptionalString(run.status);
      j["epochs"] = Optional(run.epochs);
      j["seed"] = run.seed;
      j["final_accuracy"] = run.final_accuracy;
      j["in_window"] = i >= s.window_first && i < s.window_first + s.window_size;
      j["used"] = static_cast<bool>(s.used[i]);
      runs.push_back(j);
    }
    r["run_details"] = runs;
    results.push_back(r);
  }
  doc["results"] = results;
  doc["skipped"] = FileIssuesToJson(report.skipped);
  doc["warnings"] = FileIssuesToJson(report.warnings);
  return doc;
}

void JsonReporter::Report(const ReportContext& context, const SummaryReport& report) {
  out_ << SummaryToJson(context, report).dump(2, ' ', false, core::Json::error_handler_t::replace)
       << "\n";  // folder names need not be UTF-8
}

void CsvReporter::Report(const ReportContext& /*context*/, const SummaryReport& report) {
  out_ << "benchmark,scale,system,division,runs,runs_required,converged_runs,"
          "olympic_mean_minutes,min_minutes,max_minutes,cv,mean_epochs,reference_time_minutes,"
          "score,status\n";
  for (const auto& s : report.results) {
    std::vector<std::string> cells = {
        s.benchmark,
        s.scale,
        s.system,
        s.division,
        std::to_string(s.runs.size()),
        s.rule.runs_required > 0 ? std::to_string(s.rule.runs_required) : kNa,
        std::to_string(s.converged_runs),
        Fixed(s.olympic_mean_minutes, 4),
        Fixed(s.min_minutes, 4),
        Fixed(s.max_minutes, 4),
        Fixed(s.cv, 6),
        Fixed(s.mean_epochs, 2),
        Fixed(s.rule.reference_minutes, 4),
        Fixed(s.score, 4),
        s.Status()};
    std::string line;
    for (size_t c = 0; c < cells.size(); ++c) line += (c ? "," : "") + CsvField(cells[c]);
    out_ << line << "\n";
  }
  for (const auto& i : report.skipped) err_ << "skipped: " << i.ToString() << "\n";
  for (const auto& i : report.warnings) err_ << "warning: " << i.ToString() << "\n";
}

std::unique_ptr<Reporter> MakeReporter(const std::string& format, std::ostream& out,
                                       std::ostream& err) {
  if (format == "table") return std::make_unique<ConsoleReporter>(out);
  if (format == "json") return std::make_unique<JsonReporter>(out);
  if (format == "csv") return std::make_unique<CsvReporter>(out, err);
  throw core::Error("unknown output format \"" + format + "\" (known: table, json, csv)");
}

}  // namespace trainbench::summary

#include "summary/compare_command.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <utility>

#include "core/error.h"
#include "core/paths.h"
#include "core/provenance.h"
#include "summary/summarize_command.h"
#include "summary/text_table.h"

namespace trainbench::summary {

namespace {

constexpr const char* kPrefix = "trainbench compare: ";
constexpr const char* kNa = "n/a";

std::string Format(const char* fmt, double v) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  std::snprintf(buf, sizeof(buf), fmt, v);
  return buf;
}

std::string Minutes(const std::optional<double>& v) { return v ? Format("%.2f", *v) : kNa; }
std::string Ratio(double v) { return Format("%.3f", v); }
std::string Speedup(double v) { return std::isinf(v) ? "inf" : Format("%.2f", v) + "x"; }
std::string PValue(double p) { return p >= 0.001 ? Format("%.4f", p) : Format("%.2e", p); }
std::string OrDash(const std::string& s) { return s.empty() ? "-" : s; }
double Reciprocal(double v) { return v == 0 ? INFINITY : 1.0 / v; }

std::string Percent(double fraction) { return Format("%g", fraction * 100.0) + "%"; }

// "4/5": converged runs of the runs compared.
std::string RunsCell(const std::vector<RunSample>& runs) {
  const auto converged =
      std::count_if(runs.begin(), runs.end(), [](const RunSample& r) { return r.converged; });
  return std::to_string(converged) + "/" + std::to_string(runs.size());
}

std::string Label(const std::string& benchmark, const std::string& scale,
                  const std::string& division) {
  std::string l = benchmark;
  if (!scale.empty()) l += " " + scale;
  if (!division.empty()) l += " (" + division + ")";
  return l;
}

std::string Label(const Comparison& c) {
  return Label(c.benchmark, c.scale, c.division) + ", A " + OrDash(c.a.system) + " vs B " +
         OrDash(c.b.system);
}

std::string CiCell(const RatioInterval& ci) {
  if (!ci.ok) return kNa;
  return "[" + Ratio(ci.low) + ", " + Ratio(ci.high) + "]";
}

std::string SpeedupCiCell(const RatioInterval& ci) {
  if (!ci.ok) return kNa;
  return "[" + Speedup(Reciprocal(ci.high)) + ", " + Speedup(Reciprocal(ci.low)) + "]";
}

std::string Sentence(const Comparison& c, const CompareOptions& o) {
  std::string s = Label(c) + ": ";
  if (!c.ratio) return s + c.verdict + ".";
  const std::string p = c.mann_whitney.ok ? "p = " + PValue(c.mann_whitney.p_value) : "no p";
  const std::string ci = "95% CI of B/A " + CiCell(c.ci);
  if (c.significant) {
    const bool faster = *c.ratio < 1.0;
    return s + "B is " +
           (faster ? Speedup(*c.speedup) + " faster" : Speedup(*c.ratio) + " slower") +
           " than A; significant (" + p + " < " + Format("%g", o.alpha) + ", " + ci +
           " excludes 1.0).";
  }
  return s + "the difference is NOT significant (" + p + ", " + ci + "); B/A = " + Ratio(*c.ratio) +
         " may be noise.";
}

void WriteIssues(const std::string& title, const std::vector<FileIssue>& issues,
                 std::ostream& out) {
  if (issues.empty()) return;
  out << "\n" << title << " (" << issues.size() << "):\n";
  for (const auto& i : issues) out << "  " << i.ToString() << "\n";
}

void WriteOnly(const std::string& title, const std::vector<BenchmarkSummary>& only,
               std::ostream& out) {
  if (only.empty()) return;
  out << "\n" << title << " (" << only.size() << "):\n";
  for (const auto& s : only) {
    out << "  " << Label(s.benchmark, s.scale, s.division) << " on " << OrDash(s.system)
        << ": olympic " << Minutes(s.olympic_mean_minutes) << " min, " << s.runs.size()
        << " runs\n";
  }
}

core::Json Number(double v) { return std::isfinite(v) ? core::Json(v) : core::Json(nullptr); }
core::Json Optional(const std::optional<double>& v) { return v ? Number(*v) : core::Json(nullptr); }
core::Json OptionalString(const std::string& s) {
  return s.empty() ? core::Json(nullptr) : core::Json(s);
}

core::Json SideToJson(const BenchmarkSummary& s, const std::vector<RunSample>& runs) {
  core::Json j = core::Json::object();
  j["system"] = s.system;
  j["runs"] = s.runs.size();
  j["runs_compared"] = runs.size();
  j["converged_runs_compared"] =
      std::count_if(runs.begin(), runs.end(), [](const RunSample& r) { return r.converged; });
  core::Json times = core::Json::array();
  for (const auto& r : runs) times.push_back(r.converged ? core::Json(r.time) : nullptr);
  j["times_minutes"] = times;  // null: did not converge (+infinity for the test)
  j["olympic_mean_minutes"] = Optional(s.olympic_mean_minutes);
  j["status"] = s.Status();
  return j;
}

core::Json IntervalToJson(const RatioInterval& ci, bool reciprocal) {
  if (!ci.ok) return nullptr;
  core::Json j = core::Json::object();
  j["low"] = Number(reciprocal ? Reciprocal(ci.high) : ci.low);
  j["high"] = Number(reciprocal ? Reciprocal(ci.low) : ci.high);
  return j;
}

core::Json OnlyToJson(const std::vector<BenchmarkSummary>& only) {
  core::Json a = core::Json::array();
  for (const auto& s : only) {
    core::Json j = core::Json::object();
    j["benchmark"] = s.benchmark;
    j["scale"] = OptionalString(s.scale);
    j["division"] = OptionalString(s.division);
    j["system"] = s.system;
    j["runs"] = s.runs.size();
    j["olympic_mean_minutes"] = Optional(s.olympic_mean_minutes);
    a.push_back(j);
  }
  return a;
}

}  // namespace

void WriteCompareTable(const CompareContext& context, const CompareReport& report,
                       std::ostream& out) {
  const CompareOptions& o = report.options;
  out << "trainbench compare: A = " << context.results_a << ", B = " << context.results_b << "\n";
  out << "benchmark definitions: " << context.benchmark_definitions << "\n";
  out << "ratio = olympic(B) / olympic(A) (< 1: B faster); speed-up = olympic(A) / olympic(B); "
      << Percent(o.confidence) << " CI: percentile bootstrap, " << o.resamples
      << " resamples, seed " << o.seed << "; p: Mann-Whitney U, two-sided; significant when p < "
      << Format("%g", o.alpha) << " and the CI excludes 1.0\n";
  const size_t n = report.comparisons.size();
  out << n << (n == 1 ? " comparison, " : " comparisons, ") << report.only_a.size()
      << " only in A, " << report.only_b.size() << " only in B\n";

  if (!report.comparisons.empty()) {
    const std::vector<std::pair<std::string, bool>> columns = {
        {"benchmark", false}, {"scale", false}, {"division", false}, {"A system", false},
        {"B system", false},  {"A runs", true}, {"B runs", true},    {"A olympic", true},
        {"B olympic", true},  {"B/A", true},    {"95% CI", false},   {"speed-up", true},
        {"95% CI", false},    {"U", true},      {"p", false},        {"verdict", false}};
    std::vector<std::vector<std::string>> rows;
    for (const auto& c : report.comparisons) {
      const MannWhitneyResult& mw = c.mann_whitney;
      rows.push_back({c.benchmark, OrDash(c.scale), OrDash(c.division), OrDash(c.a.system),
                      OrDash(c.b.system), RunsCell(c.a_runs), RunsCell(c.b_runs),
                      Minutes(c.a.olympic_mean_minutes), Minutes(c.b.olympic_mean_minutes),
                      c.ratio ? Ratio(*c.ratio) : kNa, CiCell(c.ci),
                      c.speedup ? Speedup(*c.speedup) : kNa, SpeedupCiCell(c.ci),
                      mw.ok ? Format("%g", mw.u) : kNa,
                      mw.ok ? PValue(mw.p_value) + " (" + mw.Method() + ")" : kNa, c.verdict});
    }
    out << "\n";
    PrintTextTable(out, columns, rows);
    out << "(olympic means in minutes; runs = converged/compared)\n";

    out << "\nConclusions:\n";
    for (const auto& c : report.comparisons) out << "  " << Sentence(c, o) << "\n";
    bool any_notes = false;
    for (const auto& c : report.comparisons) {
      any_notes = any_notes || c.ci.undefined > 0 || !c.a.notes.empty() || !c.b.notes.empty();
    }
    if (any_notes) {
      out << "\nNotes:\n";
      for (const auto& c : report.comparisons) {
        for (const auto& n : c.a.notes) out << "  " << Label(c) << ": A: " << n << "\n";
        for (const auto& n : c.b.notes) out << "  " << Label(c) << ": B: " << n << "\n";
        if (c.ci.undefined > 0) {
          out << "  " << Label(c) << ": " << c.ci.undefined << " of " << c.ci.resamples
              << " resamples had no result on either side and were left out of the CI\n";
        }
      }
    }
  }
  WriteOnly("Only in A", report.only_a, out);
  WriteOnly("Only in B", report.only_b, out);
  WriteIssues("Skipped files in A", report.skipped_a, out);
  WriteIssues("Skipped files in B", report.skipped_b, out);
  WriteIssues("Warnings in A", report.warnings_a, out);
  WriteIssues("Warnings in B", report.warnings_b, out);
}

core::Json CompareToJson(const CompareContext& context, const CompareReport& report) {
  const CompareOptions& o = report.options;
  core::Json doc = core::Json::object();
  doc["schema_version"] = kCompareSchemaVersion;
  core::Json ctx = core::Json::object();
  ctx["tool"] = "trainbench compare";
  ctx["git_revision"] = context.git_revision;
  ctx["results_a"] = context.results_a;
  ctx["results_b"] = context.results_b;
  ctx["benchmark_definitions"] = context.benchmark_definitions;
  doc["context"] = ctx;
  core::Json method = core::Json::object();
  method["ratio"] = "olympic_mean(B) / olympic_mean(A)";
  method["speedup"] = "olympic_mean(A) / olympic_mean(B)";
  method["bootstrap"] = {{"resamples", o.resamples},
                         {"seed", o.seed},
                         {"rng", "mt19937_64"},
                         {"confidence", o.confidence},
                         {"interval", "percentile (nearest rank)"}};
  method["test"] = "Mann-Whitney U, two-sided; non-converged runs as +infinity";
  method["alpha"] = o.alpha;
  doc["method"] = method;
  core::Json comparisons = core::Json::array();
  for (const auto& c : report.comparisons) {
    core::Json j = core::Json::object();
    j["benchmark"] = c.benchmark;
    j["scale"] = OptionalString(c.scale);
    j["division"] = OptionalString(c.division);
    j["a"] = SideToJson(c.a, c.a_runs);
    j["b"] = SideToJson(c.b, c.b_runs);
    j["ratio_b_over_a"] = Optional(c.ratio);
    j["ci_ratio"] = IntervalToJson(c.ci, false);
    j["speedup_a_over_b"] = Optional(c.speedup);
    j["ci_speedup"] = IntervalToJson(c.ci, true);
    j["bootstrap_undefined_resamples"] = c.ci.undefined;
    const MannWhitneyResult& mw = c.mann_whitney;
    if (mw.ok) {
      j["mann_whitney"] = {{"u", mw.u},
                           {"u_a", mw.u_x},
                           {"u_b", mw.u_y},
                           {"p_value", mw.p_value},
                           {"method", mw.Method()},
                           {"z", mw.exact ? core::Json(nullptr) : core::Json(mw.z)},
                           {"ties", mw.ties}};
    } else {
      j["mann_whitney"] = nullptr;
    }
    j["significant"] = c.significant;
    j["verdict"] = c.verdict;
    comparisons.push_back(j);
  }
  doc["comparisons"] = comparisons;
  doc["only_in_a"] = OnlyToJson(report.only_a);
  doc["only_in_b"] = OnlyToJson(report.only_b);
  doc["skipped"] = {{"a", FileIssuesToJson(report.skipped_a)},
                    {"b", FileIssuesToJson(report.skipped_b)}};
  doc["warnings"] = {{"a", FileIssuesToJson(report.warnings_a)},
                     {"b", FileIssuesToJson(report.warnings_b)}};
  return doc;
}

int RunCompareCommand(const std::string& results_a, const std::string& results_b,
                      const std::string& format, const std::vector<core::BenchmarkDef>& defs,
                      const std::string& definitions_label, const CompareOptions& options,
                      std::ostream& out, std::ostream& err) {
  if (format != "table" && format != "json") {
    err << kPrefix << "unknown format \"" << format << "\" (known: table, json)\n";
    return 2;
  }
  for (const auto& dir : {results_a, results_b}) {
    std::error_code ec;
    if (dir.empty() || !std::filesystem::is_directory(dir, ec)) {
      err << kPrefix << (dir.empty() ? "\"\"" : dir) << ": results directory not found\n";
      return 2;
    }
  }
  SummaryReport a, b;
  try {
    a = BuildReport({results_a}, defs);
    b = BuildReport({results_b}, defs);
  } catch (const core::Error& e) {
    err << kPrefix << e.what() << "\n";
    return 2;
  }
  CompareReport report = Compare(a, b, options);
  if (report.comparisons.empty()) err << kPrefix << "no benchmark is in both folders\n";
  CompareContext context;
  context.results_a = results_a;
  context.results_b = results_b;
  context.benchmark_definitions = definitions_label;
  context.git_revision = core::GitRevision();
  if (format == "json") {
    out << CompareToJson(context, report).dump(2, ' ', false, core::Json::error_handler_t::replace)
        << "\n";  // folder names need not be UTF-8
  } else {
    WriteCompareTable(context, report, out);
  }
  return 0;
}

int RunCompareCommand(const std::string& results_a, const std::string& results_b,
                      const std::string& format, std::ostream& out, std::ostream& err) {
  std::vector<core::BenchmarkDef> defs;
  std::string label = core::BenchmarksDir();
  try {
    defs = core::LoadAllBenchmarks(label);
  } catch (const core::Error& e) {
    err << kPrefix << "warning: benchmark definitions not loaded: " << e.what() << "\n";
    label = "none (" + std::string(e.what()) + ")";
  }
  return RunCompareCommand(results_a, results_b, format, defs, label, CompareOptions{}, out, err);
}

}  // namespace trainbench::summary

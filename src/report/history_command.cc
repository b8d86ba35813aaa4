#include "report/history_command.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <map>
#include <tuple>

#include "core/error.h"
#include "core/paths.h"
#include "summary/summarize.h"
#include "summary/text_table.h"

namespace trainbench::report {

namespace {

constexpr const char* kPrefix = "trainbench history: ";
constexpr const char* kUnknownRevision = "unknown";

std::string Fixed(const std::optional<double>& v, int precision) {
  if (!v) return "n/a";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", precision, *v);
  return buf;
}

std::string UtcMinute(double ms) {
  const std::time_t t = static_cast<std::time_t>(ms / 1000.0);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M", &tm);
  return buf;
}

std::string OrDash(const std::string& s) { return s.empty() ? "-" : s; }

}  // namespace

std::vector<HistoryEntry> BuildHistory(const std::vector<HistoryRun>& runs,
                                       const std::vector<core::BenchmarkDef>& defs) {
  std::map<std::string, std::vector<summary::RunResult>> by_revision;
  for (const auto& h : runs) {
    by_revision[h.git_revision.empty() ? kUnknownRevision : h.git_revision].push_back(h.run);
  }
  std::vector<HistoryEntry> out;
  for (const auto& [revision, rev_runs] : by_revision) {
    for (const auto& s : summary::Summarize(rev_runs, defs)) {
      HistoryEntry e;
      e.benchmark = s.benchmark;
      e.scale = s.scale;
      e.system = s.system;
      e.division = s.division;
      e.git_revision = revision;
      e.first_start_ms = s.runs.front().start_ms;
      e.last_start_ms = s.runs.back().start_ms;
      e.runs = s.runs.size();
      e.converged_runs = s.converged_runs;
      e.olympic_mean_minutes = s.olympic_mean_minutes;
      e.status = s.Status();
      out.push_back(std::move(e));
    }
  }
  auto key = [](const HistoryEntry& e) {
    return std::tie(e.benchmark, e.scale, e.system, e.division, e.first_start_ms, e.git_revision);
  };
  std::sort(out.begin(), out.end(),
            [&](const HistoryEntry& a, const HistoryEntry& b) { return key(a) < key(b); });
  const HistoryEntry* prev = nullptr;  // the previous entry of the group with a result
  for (size_t i = 0; i < out.size(); ++i) {
    HistoryEntry& e = out[i];
    if (i > 0 && std::tie(e.benchmark, e.scale, e.system, e.division) !=
                     std::tie(out[i - 1].benchmark, out[i - 1].scale, out[i - 1].system,
                              out[i - 1].division)) {
      prev = nullptr;
    }
    if (!e.olympic_mean_minutes) continue;
    if (prev && *prev->olympic_mean_minutes > 0) {
      e.change = *e.olympic_mean_minutes / *prev->olympic_mean_minutes - 1.0;
      e.regression = *e.change > kRegressionThreshold;
    }
    prev = &e;
  }
  return out;
}

void PrintHistory(const std::vector<HistoryEntry>& entries, std::ostream& out) {
  if (entries.empty()) {
    out << "no runs\n";
    return;
  }
  const std::vector<std::pair<std::string, bool>> columns = {
      {"benchmark", false}, {"scale", false},      {"system", false},   {"division", false},
      {"revision", false},  {"first_run", false},  {"last_run", false}, {"runs", true},
      {"converged", true},  {"olympic_min", true}, {"change", true},    {"status", false}};
  std::vector<std::vector<std::string>> rows;
  for (const auto& e : entries) {
    std::string change = "-";
    if (e.change) {
      char buf[32];
      std::snprintf(buf, sizeof(buf), "%+.1f%%", *e.change * 100.0);
      change = buf;
      if (e.regression) change += " SLOWER";
    }
    rows.push_back({e.benchmark, OrDash(e.scale), OrDash(e.system), OrDash(e.division),
                    e.git_revision, UtcMinute(e.first_start_ms), UtcMinute(e.last_start_ms),
                    std::to_string(e.runs), std::to_string(e.converged_runs),
                    Fixed(e.olympic_mean_minutes, 2), change, e.status});
  }
  summary::PrintTextTable(out, columns, rows);
  out << "(olympic means in minutes over the runs of each git revision; times UTC; change = "
         "against the previous revision of the same benchmark and system, SLOWER above +"
      << static_cast<int>(kRegressionThreshold * 100) << "%)\n";
}

int RunHistoryCommand(const HistoryOptions& options, const std::vector<core::BenchmarkDef>& defs,
                      std::ostream& out, std::ostream& err) {
  std::vector<HistoryRun> runs;
  std::string path;
  try {
    path = options.db_path.empty() ? DefaultHistoryPath() : options.db_path;
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) {
      out << "no results history at " << path
          << " yet (`trainbench report` and `trainbench summarize` record runs there)\n";
      return 0;
    }
    // A reading command: the history is opened read-only and never created or changed.
    runs = HistoryDb(path, HistoryDb::Access::kReadOnly).Runs();
  } catch (const core::Error& e) {
    err << kPrefix << e.what() << "\n";
    return 2;
  }
  // Import refuses non-finite times, but a history written before it did may hold infinities
  // (SQLite stores them): they would be averaged and cast to dates.
  runs.erase(std::remove_if(runs.begin(), runs.end(),
                            [&](const HistoryRun& h) {
                              const auto& r = h.run;
                              if (std::isfinite(r.start_ms) && std::isfinite(r.stop_ms) &&
                                  std::isfinite(r.minutes)) {
                                return false;
                              }
                              err << kPrefix << "warning: " << r.path
                                  << ": run time not finite; ignored\n";
                              return true;
                            }),
             runs.end());
  std::vector<HistoryEntry> entries;
  for (auto& e : BuildHistory(runs, defs)) {
    if (!options.system.empty() && e.system != options.system) continue;
    if (!options.benchmark.empty() && e.benchmark != options.benchmark) {
      // Also accept the MLPerf name of the benchmark.
      const bool log_name_match = std::any_of(runs.begin(), runs.end(), [&](const HistoryRun& h) {
        return h.run.log_name == options.benchmark && h.run.system == e.system &&
               (h.run.trainbench_benchmark == e.benchmark || h.run.log_name == e.benchmark);
      });
      if (!log_name_match) continue;
    }
    entries.push_back(std::move(e));
  }
  out << "trainbench history from " << path << ": " << runs.size() << " runs\n";
  PrintHistory(entries, out);
  return 0;
}

int RunHistoryCommand(const HistoryOptions& options, std::ostream& out, std::ostream& err) {
  std::vector<core::BenchmarkDef> defs;
  try {
    defs = core::LoadAllBenchmarks(core::BenchmarksDir());
  } catch (const core::Error& e) {
    err << kPrefix << "warning: benchmark definitions not loaded: " << e.what() << "\n";
  }
  return RunHistoryCommand(options, defs, out, err);
}

}  // namespace trainbench::report

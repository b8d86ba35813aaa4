#include "summary/summarize.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "summary/stats.h"

namespace trainbench::summary {

namespace {

using GroupKey = std::tuple<std::string, std::string, std::string, std::string, std::string>;

void AddNote(std::vector<std::string>* notes, const std::string& note) {
  if (!note.empty() && std::find(notes->begin(), notes->end(), note) == notes->end()) {
    notes->push_back(note);
  }
}

void Score(BenchmarkSummary* s) {
  std::sort(s->runs.begin(), s->runs.end(), [](const RunResult& a, const RunResult& b) {
    if (a.start_ms != b.start_ms) return a.start_ms < b.start_ms;
    return a.path < b.path;
  });
  std::vector<RunSample> samples;
  for (const auto& r : s->runs) {
    samples.push_back({r.minutes, r.converged});
    if (r.converged) ++s->converged_runs;
  }
  const int n = s->rule.runs_required;
  const int k = s->rule.converged_used;
  const int runs = static_cast<int>(s->runs.size());
  if (n > 0) {
    s->incomplete = k > 0 ? (runs < n && s->converged_runs < k) : runs < n;
  }

  WindowChoice w = MedianWindow(samples, n, k);
  s->window_first = w.first;
  s->window_size = w.size;
  s->windows = w.windows;
  s->used.assign(s->runs.size(), false);
  std::vector<double> times, epochs;
  for (size_t i : w.used) {
    s->used[i] = true;
    times.push_back(s->runs[i].minutes);
    if (s->runs[i].epochs) epochs.push_back(*s->runs[i].epochs);
  }
  if (w.windows > 1) {
    AddNote(&s->notes, "median of " + std::to_string(w.windows) + " windows of " +
                           std::to_string(n) + " runs: runs " + std::to_string(w.first + 1) + ".." +
                           std::to_string(w.first + w.size) + " by start time");
  }
  AddNote(&s->notes, w.score.note);
  if (!times.empty()) {
    s->min_minutes = *std::min_element(times.begin(), times.end());
    s->max_minutes = *std::max_element(times.begin(), times.end());
    s->cv = CoefficientOfVariation(times);
  }
  if (!epochs.empty()) s->mean_epochs = Mean(epochs);
  s->has_result = w.score.ok;
  if (!w.score.ok) {
    s->no_result_reason = w.score.reason;
    return;
  }
  s->olympic_mean_minutes = w.score.mean;
  if (s->rule.reference_minutes && w.score.mean > 0) {
    s->score = *s->rule.reference_minutes / w.score.mean;
  }
}

}  // namespace

std::string BenchmarkSummary::Status() const {
  std::string incomplete_text;
  if (incomplete) {
    if (rule.converged_used > 0) {
      incomplete_text = "incomplete (" + std::to_string(converged_runs) + " of " +
                        std::to_string(rule.converged_used) + " converged runs)";
    } else {
      incomplete_text = "incomplete (" + std::to_string(runs.size()) + " of " +
                        std::to_string(rule.runs_required) + " runs)";
    }
  }
  if (!has_result) {
    return "no result: " + no_result_reason + (incomplete ? "; " + incomplete_text : "");
  }
  if (incomplete) return incomplete_text;
  if (rule.runs_required == 0) return "runs required unknown";
  return "ok";
}

std::vector<BenchmarkSummary> Summarize(const std::vector<RunResult>& runs,
                                        const std::vector<core::BenchmarkDef>& defs) {
  std::map<GroupKey, BenchmarkSummary> groups;
  for (const auto& run : runs) {
    std::vector<std::string> notes;
    ScoringRule rule = ResolveRule(run, defs, &notes);
    GroupKey key{rule.benchmark, run.scale, run.system, run.division, rule.source};
    auto [it, inserted] = groups.try_emplace(key);
    BenchmarkSummary& s = it->second;
    if (inserted) {
      s.benchmark = rule.benchmark;
      s.log_name = run.log_name;
      s.scale = run.scale;
      s.system = run.system;
      s.division = run.division;
      s.rule = rule;
    }
    for (const auto& n : notes) AddNote(&s.notes, n);
    s.runs.push_back(run);
  }
  std::vector<BenchmarkSummary> out;
  out.reserve(groups.size());
  for (auto& [key, s] : groups) {
    Score(&s);
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace trainbench::summary

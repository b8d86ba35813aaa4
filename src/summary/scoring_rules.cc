#include "summary/scoring_rules.h"

#include <filesystem>

namespace trainbench::summary {

namespace {

void Note(std::vector<std::string>* notes, const std::string& s) {
  if (notes) notes->push_back(s);
}

std::string SourceName(const core::BenchmarkDef& def) {
  if (def.source.empty()) return def.name;
  return std::filesystem::path(def.source).filename().string();
}

std::string FolderFallback(const RunResult& run) {
  if (!run.trainbench_benchmark.empty()) return run.trainbench_benchmark;
  if (!run.log_name.empty()) return run.log_name;
  if (!run.benchmark_folder.empty()) return run.benchmark_folder;
  return "unknown";
}

}  // namespace

ScoringRule ResolveRule(const RunResult& run, const std::vector<core::BenchmarkDef>& defs,
                        std::vector<std::string>* notes) {
  ScoringRule rule;
  rule.benchmark = FolderFallback(run);

  if (run.format == core::LogFormat::kLegacyV05) {
    for (const auto& r : kV05Rules) {
      if (run.log_name == r.log_name) {
        rule.source = "MLPerf v0.5 rules";
        rule.runs_required = r.runs_required;
        rule.converged_used = r.converged_used;
        Note(notes, "no v0.5 reference time recorded: no score");
        return rule;
      }
    }
    rule.source = "none";
    Note(notes, "\"" + run.log_name + "\" is not a v0.5 benchmark: runs required unknown");
    return rule;
  }

  const core::BenchmarkDef* def = nullptr;
  if (!run.trainbench_benchmark.empty()) {
    for (const auto& d : defs) {
      if (d.name == run.trainbench_benchmark) def = &d;
    }
  }
  if (!def && !run.log_name.empty()) {
    for (const auto& d : defs) {
      if (d.log_name == run.log_name && (!def || d.name < def->name)) def = &d;
    }
  }
  if (!def) {
    rule.source = "none";
    Note(notes, "no benchmark definition for \"" + rule.benchmark + "\": runs required unknown");
    return rule;
  }
  rule.benchmark = def->name;
  auto scale = def->scales.find(run.scale);
  if (run.scale.empty() || scale == def->scales.end()) {
    rule.source = SourceName(*def);
    Note(notes, run.scale.empty() ? "no trainbench_scale in the logs: runs required unknown"
                                  : "scale \"" + run.scale + "\" is not defined for " + def->name +
                                        ": runs required unknown");
    return rule;
  }
  rule.source = SourceName(*def) + " (" + run.scale + ")";
  rule.runs_required = scale->second.runs_per_result;
  rule.converged_used = scale->second.converged_runs_used;
  if (scale->second.reference_time_minutes > 0) {
    rule.reference_minutes = scale->second.reference_time_minutes;
  } else {
    const std::string& why = scale->second.reference_time_note;
    Note(notes, "no reference time for " + def->name + " (" + run.scale + "): no score" +
                    (why.empty() ? "" : " (" + why + ")"));
  }
  return rule;
}

}  // namespace trainbench::summary

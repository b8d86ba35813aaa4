// Which scoring rule applies to a run: how many runs make a result (N), whether only the first
// K converging runs count (v0.5 NCF), and the reference time the score divides by. trainbench's
// own logs get it from the benchmark definitions (configs/benchmarks/*.yaml: runs_per_result and
// reference_time_minutes of the logged scale); published MLPerf v0.5 logs from the v0.5 table
// below (BENCHMARKS.md §1).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/benchmark_def.h"
#include "summary/run_result.h"

namespace trainbench::summary {

struct ScoringRule {
  std::string benchmark;   // the name results are listed under (trainbench name, else log name)
  std::string source;      // where the rule comes from, for the report
  int runs_required = 0;   // N; 0 = unknown (all runs are scored, no window)
  int converged_used = 0;  // K > 0: the first K converging runs of the N are used (v0.5 NCF)
  std::optional<double> reference_minutes;  // the score's numerator; nullopt: no score
};

// ---------------------------------------------------------------------------------------------
// MLPerf Training v0.5 (December 2018) runs per result, from the v0.5 rules (BENCHMARKS.md §1).
// NCF is special: up to 100 runs, of which the first 50 that converge are used; the others are
// discarded rather than counted as failures. v0.5 reference times are not recorded here, so
// legacy results get no score.
struct V05Rule {
  const char* log_name;
  int runs_required;
  int converged_used;  // 0: all runs of the window count (at most one may fail)
};
inline constexpr V05Rule kV05Rules[] = {
    {"resnet", 5, 0},       {"ssd", 5, 0},    {"maskrcnn", 5, 0}, {"gnmt", 10, 0},
    {"transformer", 10, 0}, {"ncf", 100, 50}, {"minigo", 20, 0},
};
// ---------------------------------------------------------------------------------------------

// Resolves the rule for a run:
//  - legacy v0.5 logs: the v0.5 table by log name (unknown names: N unknown);
//  - MLLOG logs: the definition named by `trainbench_benchmark`, else the one whose log_name is
//    the logged submission_benchmark (the first by name); then the logged `trainbench_scale` of
//    it gives runs_per_result and reference_time_minutes (0 there: no score). A missing or
//    unknown scale, or no matching definition, leaves N unknown and no score.
// `notes` (optional) receives why N or the score is unknown.
ScoringRule ResolveRule(const RunResult& run, const std::vector<core::BenchmarkDef>& defs,
                        std::vector<std::string>* notes = nullptr);

}  // namespace trainbench::summary

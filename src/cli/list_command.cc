#include <cstdio>
#include <iostream>

#include "cli/commands.h"
#include "core/benchmark_def.h"
#include "core/json.h"
#include "core/paths.h"

namespace trainbench::cli {

int RunList(const ListOptions& o) {
  auto defs = core::LoadAllBenchmarks(core::BenchmarksDir());
  if (o.json) {
    core::Json all = core::Json::array();
    for (const auto& d : defs) {
      for (const auto& [name, s] : d.scales) {
        all.push_back({{"benchmark", d.name},
                       {"log_name", d.log_name},
                       {"area", d.area},
                       {"scale", name},
                       {"dataset", s.dataset},
                       {"metric", s.metric},
                       {"quality_target", s.quality_target},
                       {"runs_per_result", s.runs_per_result},
                       {"reference_time_minutes", s.reference_time_minutes > 0
                                                      ? core::Json(s.reference_time_minutes)
                                                      : core::Json(nullptr)}});
      }
    }
    std::cout << all.dump(2) << "\n";
    return kExitOk;
  }
  std::printf("%-22s %-6s %-10s %-42s %-18s %5s %10s\n", "BENCHMARK", "SCALE", "LOG NAME",
              "DATASET", "QUALITY TARGET", "RUNS", "REF TIME");
  for (const auto& d : defs) {
    for (const auto& [name, s] : d.scales) {
      char target[64], ref[32];
      std::snprintf(target, sizeof(target), "%s >= %g", s.metric.c_str(), s.quality_target);
      if (s.reference_time_minutes > 0) {
        std::snprintf(ref, sizeof(ref), "%.2f min", s.reference_time_minutes);
      } else {
        std::snprintf(ref, sizeof(ref), "n/a");
      }
      std::printf("%-22s %-6s %-10s %-42s %-18s %5d %10s\n", d.name.c_str(), name.c_str(),
                  d.log_name.c_str(), s.dataset.c_str(), target, s.runs_per_result, ref);
    }
  }
  return kExitOk;
}

}  // namespace trainbench::cli

// `trainbench list`: the benchmarks by scale, in a table whose columns line up (each as wide as
// its longest cell; the dataset's description shortened to its name, the rest in --json), then
// why each run count is what it is.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "core/benchmark_def.h"
#include "core/error.h"
#include "core/json.h"
#include "core/paths.h"
#include "core/provenance.h"
#include "core/tuning.h"

namespace trainbench::cli {

namespace {

// "ImageNet 2012 (train/<wnid>/*.JPEG, ...)" -> "ImageNet 2012": the name before the details.
std::string ShortDataset(const std::string& d) {
  const size_t paren = d.find(" (");
  std::string s = paren == std::string::npos ? d : d.substr(0, paren);
  constexpr size_t kMax = 30;
  if (s.size() > kMax) s = s.substr(0, kMax - 3) + "...";
  return s;
}

std::string Fixed(double v, const char* fmt) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), fmt, v);
  return buf;
}

// `list --tunings`: each tuning file, and for every benchmark and scale it has settings for,
// the entry this CPU takes (core::LoadTuning, as `run --tuning` chooses it) and its settings.
int ListTunings(const std::vector<core::BenchmarkDef>& defs, bool json) {
  namespace fs = std::filesystem;
  const std::set<std::string> flags = core::CpuFlags();
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(core::TuningsDir(), ec)) {
    if (e.path().extension() == ".yaml") files.push_back(e.path().string());
  }
  if (ec) throw core::FileError(core::TuningsDir(), 0, "cannot read: " + ec.message());
  std::sort(files.begin(), files.end());
  core::Json all = core::Json::array();
  std::string cpu_bf16 = flags.count("avx512_bf16") ? "avx512_bf16" : "no avx512_bf16";
  if (!json) {
    std::cout << "CPU: " << core::CpuModel() << " (" << cpu_bf16
              << (flags.count("amx_bf16") ? ", amx_bf16" : "") << ")\n";
  }
  for (const std::string& file : files) {
    for (const auto& d : defs) {
      for (const auto& [scale, s] : d.scales) {
        core::Tuning t;
        try {
          t = core::LoadTuning(file, d.name, scale, flags);
        } catch (const core::Error& e) {
          if (std::string(e.what()).find("has no settings for") != std::string::npos) continue;
          throw;
        }
        std::string settings;
        for (const auto& [k, v] : t.overrides)
          settings += (settings.empty() ? "" : ", ") + k + "=" + v;
        if (t.nproc)
          settings +=
              (settings.empty() ? "" : ", ") + std::string("nproc=") + std::to_string(*t.nproc);
        if (t.threads)
          settings +=
              (settings.empty() ? "" : ", ") + std::string("threads=") + std::to_string(*t.threads);
        if (json) {
          all.push_back({{"tuning", t.name},
                         {"path", t.path},
                         {"benchmark", d.name},
                         {"scale", scale},
                         {"entry", t.entry},
                         {"entries", t.entries},
                         {"requires", t.requires},
                         {"choice", t.choice},
                         {"overrides", t.overrides}});
        } else {
          std::cout << t.name << "  " << d.name << " " << scale << ": " << settings << "\n";
          if (!t.choice.empty()) std::cout << "    " << t.choice << "\n";
        }
      }
    }
  }
  if (json) std::cout << all.dump(2) << "\n";
  return kExitOk;
}

}  // namespace

int RunList(const ListOptions& o) {
  auto defs = core::LoadAllBenchmarks(core::BenchmarksDir());
  if (o.tunings) return ListTunings(defs, o.json);
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
                       {"converged_runs_used", s.converged_runs_used},
                       {"runs_basis", s.runs_basis},
                       {"reference_time_minutes", s.reference_time_minutes > 0
                                                      ? core::Json(s.reference_time_minutes)
                                                      : core::Json(nullptr)}});
      }
    }
    std::cout << all.dump(2) << "\n";
    return kExitOk;
  }
  // Left-aligned text columns, then the two numbers right-aligned, the dataset last.
  std::vector<std::vector<std::string>> rows = {
      {"BENCHMARK", "SCALE", "LOG NAME", "QUALITY TARGET", "RUNS", "REF TIME", "DATASET"}};
  std::vector<std::string> notes;
  for (const auto& d : defs) {
    for (const auto& [name, s] : d.scales) {
      std::string runs = std::to_string(s.runs_per_result);
      if (s.converged_runs_used > 0) runs += " (" + std::to_string(s.converged_runs_used) + ")";
      rows.push_back(
          {d.name, name, d.log_name, s.metric + " >= " + Fixed(s.quality_target, "%g"), runs,
           s.reference_time_minutes > 0 ? Fixed(s.reference_time_minutes, "%.2f min") : "n/a",
           ShortDataset(s.dataset)});
    }
    // Why the run counts: one line per benchmark, or per scale where the scales differ.
    bool same = true;
    for (const auto& [name, s] : d.scales) {
      same = same && s.runs_basis == d.scales.begin()->second.runs_basis;
    }
    for (const auto& [name, s] : d.scales) {
      if (s.runs_basis.empty()) continue;
      notes.push_back((same ? d.name : d.name + " " + name) + ": " + s.runs_basis);
      if (same) break;
    }
  }
  std::vector<size_t> width(rows[0].size(), 0);
  for (const auto& r : rows) {
    for (size_t c = 0; c < r.size(); ++c) width[c] = std::max(width[c], r[c].size());
  }
  for (const auto& r : rows) {
    std::string line;
    for (size_t c = 0; c < r.size(); ++c) {
      const bool right = c == 4 || c == 5;  // RUNS, REF TIME
      const std::string pad(width[c] - r[c].size(), ' ');
      if (c + 1 == r.size()) {
        line += r[c];  // the last column: no trailing blanks
      } else {
        line += (right ? pad + r[c] : r[c] + pad) + "  ";
      }
    }
    std::cout << line << "\n";
  }
  std::cout << "\nRUNS: runs in one result (in parentheses: the first that many converging runs "
               "count), and why:\n";
  for (const std::string& n : notes) std::cout << "  " << n << "\n";
  std::cout << "REF TIME: one run of the reference configuration on the reference machine. The "
               "datasets in full: list --json.\n";
  return kExitOk;
}

}  // namespace trainbench::cli

#include "report/results_loader.h"

#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/log_reader.h"
#include "core/sha256.h"
#include "summary/results_scan.h"

namespace trainbench::report {

namespace {

std::string Trimmed(std::string dir) {
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  return dir;
}

// The folders' base names when they are distinct, else the folders as given.
std::vector<std::string> FolderLabels(const std::vector<std::string>& dirs) {
  std::vector<std::string> labels;
  std::set<std::string> seen;
  for (const auto& d : dirs) {
    std::string base = std::filesystem::path(Trimmed(d)).filename().string();
    if (base.empty() || base == "." || base == ".." || !seen.insert(base).second) {
      labels.clear();
      for (const auto& e : dirs) labels.push_back(Trimmed(e));
      return labels;
    }
    labels.push_back(base);
  }
  return labels;
}

}  // namespace

LoadedResults LoadResults(const std::vector<std::string>& dirs,
                          const std::vector<core::BenchmarkDef>& defs) {
  LoadedResults out;
  out.dirs = dirs;
  for (size_t d = 0; d < dirs.size(); ++d) {
    summary::ScanResult scan = summary::ScanResults(dirs[d]);
    auto& sum = out.summary;
    sum.skipped.insert(sum.skipped.end(), scan.skipped.begin(), scan.skipped.end());
    sum.warnings.insert(sum.warnings.end(), scan.warnings.begin(), scan.warnings.end());
    for (auto& run : scan.runs) {
      LoadedRun lr;
      try {
        // Gone, unreadable or replaced by a FIFO since the scan read it, or anything its
        // details throw: this run is skipped, the others are loaded.
        const std::string not_regular = core::NotRegularFileReason(run.path);
        if (!not_regular.empty()) throw core::FileError(run.path, 0, not_regular);
        const std::string bytes = core::ReadFile(run.path);
        std::istringstream in(bytes);
        lr.details = ExtractRunDetails(core::ParseLog(in, run.path));
        lr.content_hash = core::Sha256Hex(bytes);
      } catch (const std::exception& e) {
        std::string why = e.what();
        if (why.rfind(run.path + ": ", 0) == 0) why = why.substr(run.path.size() + 2);
        sum.skipped.push_back({run.path, 0, why});
        continue;
      }
      lr.found_system = run.system;
      lr.dir_index = d;
      lr.result = std::move(run);
      out.runs.push_back(std::move(lr));
    }
  }

  // Systems found in more than one folder get the folder's name in front.
  std::map<std::string, std::set<size_t>> folders_of_system;
  for (const auto& r : out.runs) folders_of_system[r.found_system].insert(r.dir_index);
  const std::vector<std::string> labels = FolderLabels(dirs);
  for (auto& r : out.runs) {
    if (folders_of_system[r.found_system].size() > 1) {
      r.result.system = labels[r.dir_index] + ":" + r.found_system;
    }
  }

  std::vector<summary::RunResult> runs;
  runs.reserve(out.runs.size());
  for (const auto& r : out.runs) runs.push_back(r.result);
  out.summary.results = summary::Summarize(runs, defs);
  summary::AttachRcpOutcomes(&out.summary.results);
  return out;
}

const LoadedRun* FindRun(const LoadedResults& results, const std::string& path) {
  for (const auto& r : results.runs) {
    if (r.result.path == path) return &r;
  }
  return nullptr;
}

}  // namespace trainbench::report

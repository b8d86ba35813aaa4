#include "report/history_import.h"

#include <chrono>
#include <filesystem>

#include "core/error.h"
#include "core/paths.h"

namespace trainbench::report {

std::vector<HistoryRun> ToHistoryRuns(const LoadedResults& results) {
  std::vector<HistoryRun> out;
  out.reserve(results.runs.size());
  for (const auto& r : results.runs) {
    HistoryRun h;
    h.run = r.result;
    h.run.system = r.found_system;
    std::error_code ec;
    const auto abs = std::filesystem::absolute(r.result.path, ec);
    if (!ec) h.run.path = abs.lexically_normal().string();
    h.content_hash = r.content_hash;
    h.git_revision = r.details.git_revision;
    out.push_back(std::move(h));
  }
  return out;
}

ImportCounts ImportIntoHistory(const LoadedResults& results, const std::string& db_path,
                               int64_t now_ms) {
  HistoryDb db(db_path.empty() ? DefaultHistoryPath() : db_path);
  return db.Import(ToHistoryRuns(results), now_ms);
}

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string DescribeImport(const ImportCounts& counts, const std::string& db_path) {
  std::string refused;
  if (!counts.refused.empty()) {
    refused = ", " + std::to_string(counts.refused.size()) + " refused (" + counts.refused.front() +
              (counts.refused.size() > 1 ? ", ..." : "") + ")";
  }
  return "history: " + std::to_string(counts.added) + " new run" + (counts.added == 1 ? "" : "s") +
         ", " + std::to_string(counts.known) + " already known" + refused + " (" + db_path + ")";
}

void RecordHistory(const std::vector<std::string>& dirs, const std::string& db_path,
                   std::ostream& err) {
  try {
    const std::string path = db_path.empty() ? DefaultHistoryPath() : db_path;
    // Only the runs are stored; scoring needs no definitions here.
    const LoadedResults results = LoadResults(dirs, {});
    err << DescribeImport(ImportIntoHistory(results, path, NowMs()), path) << "\n";
  } catch (const std::exception& e) {
    // The summary is printed already; nothing about the history may take it back.
    err << "warning: results history not updated: " << e.what() << "\n";
  }
}

}  // namespace trainbench::report

// The results history: every run that `report` or `summarize` has read, kept in an embedded
// SQLite database so `trainbench history` can list olympic times across dates and git
// revisions. A run is identified by the SHA-256 of its log file's bytes: importing the same log
// twice (from any path) stores one run. Each import is one transaction: all of its runs are
// stored, or none.
//
// Schema (version 1): table meta(key, value) holding schema_version; table runs, one row per
// run, with the run's identity, timing and outcome as summary::RunResult holds them, the git
// revision of the build that ran it (from trainbench_provenance; "" when not logged) and when it
// was imported.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "summary/run_result.h"

struct sqlite3;

namespace trainbench::report {

inline constexpr int kHistorySchemaVersion = 1;

// $XDG_DATA_HOME/trainbench/history.sqlite when XDG_DATA_HOME is set and absolute, else
// $HOME/.local/share/trainbench/history.sqlite; throws core::Error when neither is usable.
std::string DefaultHistoryPath();

struct HistoryRun {
  summary::RunResult run;      // path, system, benchmark identity, times, outcome
  std::string content_hash;    // Sha256Hex of the log file
  std::string git_revision;    // "" when the log does not say
  int64_t imported_at_ms = 0;  // set by Import
};

struct ImportCounts {
  int added = 0;  // runs new to the history
  int known = 0;  // runs already in it (same content hash)
  // Runs not stored, "<path>: <why>": a run time or epoch count that is not finite.
  std::vector<std::string> refused;
};

// One open database. Not thread-safe; several processes may share the file (SQLite locks it;
// a writer waits up to 10 s for another).
class HistoryDb {
 public:
  // kReadWrite: for the commands that record runs (`report`, `summarize`): creates the file,
  // its folder and the schema when missing. kReadOnly: for the commands that only read
  // (`history`): opens with SQLITE_OPEN_READONLY and writes nothing, not even the schema; a
  // file without one (an empty file too) is not a history.
  enum class Access { kReadWrite, kReadOnly };

  // Opens the database at `path`. Throws core::Error naming the path when it cannot be opened,
  // is not a trainbench history or has a newer schema.
  explicit HistoryDb(const std::string& path, Access access = Access::kReadWrite);
  ~HistoryDb();
  HistoryDb(const HistoryDb&) = delete;
  HistoryDb& operator=(const HistoryDb&) = delete;

  // Stores the runs not yet known, in one transaction (rolled back on any failure, which throws
  // core::Error naming the database). `now_ms` becomes their imported_at_ms. Runs whose times
  // or epochs are not finite are not stored (ImportCounts::refused). Needs kReadWrite.
  ImportCounts Import(const std::vector<HistoryRun>& runs, int64_t now_ms);

  // Every stored run, ordered by start time, then content hash.
  std::vector<HistoryRun> Runs() const;

  const std::string& path() const { return path_; }

 private:
  void Exec(const char* sql) const;
  // sqlite3_open_v2 with `flags` and the busy timeout; throws FileError naming the path.
  void Open(int flags);
  void OpenReadOnly();

  std::string path_;
  sqlite3* db_ = nullptr;
};

}  // namespace trainbench::report

#include "report/history_db.h"

#include <sqlite3.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "core/error.h"
#include "core/log_reader.h"

namespace trainbench::report {

namespace {

constexpr int kBusyTimeoutMs = 10000;

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS runs (
  content_hash TEXT PRIMARY KEY,
  path TEXT NOT NULL,
  format TEXT NOT NULL,
  log_name TEXT NOT NULL,
  trainbench_benchmark TEXT NOT NULL,
  scale TEXT NOT NULL,
  system TEXT NOT NULL,
  benchmark_folder TEXT NOT NULL,
  division TEXT NOT NULL,
  org TEXT NOT NULL,
  start_ms REAL NOT NULL,
  stop_ms REAL NOT NULL,
  minutes REAL NOT NULL,
  converged INTEGER NOT NULL,
  status TEXT NOT NULL,
  epochs REAL,
  seed_json TEXT NOT NULL,
  final_accuracy_json TEXT NOT NULL,
  git_revision TEXT NOT NULL,
  imported_at_ms INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS runs_by_benchmark ON runs (log_name, trainbench_benchmark, system);
)sql";

// A prepared statement, finalized on scope exit.
class Statement {
 public:
  Statement(sqlite3* db, const std::string& path, const char* sql) : db_(db), path_(path) {
    if (sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr) != SQLITE_OK) Fail("prepare");
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  void Bind(int i, const std::string& s) {
    Check(sqlite3_bind_text(stmt_, i, s.data(), static_cast<int>(s.size()), SQLITE_TRANSIENT));
  }
  void Bind(int i, double v) { Check(sqlite3_bind_double(stmt_, i, v)); }
  void Bind(int i, int64_t v) { Check(sqlite3_bind_int64(stmt_, i, v)); }
  void BindNull(int i) { Check(sqlite3_bind_null(stmt_, i)); }

  // True while there is a row.
  bool Step() {
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc != SQLITE_DONE) Fail("step");
    return false;
  }
  void Reset() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }

  std::string Text(int col) const {
    const auto* p = sqlite3_column_text(stmt_, col);
    return p ? std::string(reinterpret_cast<const char*>(p),
                           static_cast<size_t>(sqlite3_column_bytes(stmt_, col)))
             : std::string();
  }
  double Double(int col) const { return sqlite3_column_double(stmt_, col); }
  int64_t Int(int col) const { return sqlite3_column_int64(stmt_, col); }
  bool IsNull(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }

 private:
  void Check(int rc) {
    if (rc != SQLITE_OK) Fail("bind");
  }
  [[noreturn]] void Fail(const char* what) {
    throw core::FileError(
        path_, 0, std::string("history database ") + what + " failed: " + sqlite3_errmsg(db_));
  }

  sqlite3* db_;
  std::string path_;
  sqlite3_stmt* stmt_ = nullptr;
};

core::Json ParseJsonOrNull(const std::string& s) {
  try {
    return core::ParseJson(s);
  } catch (const core::JsonError&) {
    return nullptr;
  }
}

// Why a run cannot be stored ("" when it can): NaN binds as NULL, which the NOT NULL columns
// refuse; an infinite time is no time to list or average.
std::string Unstorable(const summary::RunResult& r) {
  if (!std::isfinite(r.start_ms) || !std::isfinite(r.stop_ms) || !std::isfinite(r.minutes)) {
    return "run time not finite";
  }
  if (r.epochs && !std::isfinite(*r.epochs)) return "epochs not finite";
  return "";
}

}  // namespace

std::string DefaultHistoryPath() {
  const char* xdg = std::getenv("XDG_DATA_HOME");
  // The XDG spec: a relative XDG_DATA_HOME is invalid and is ignored.
  if (xdg && xdg[0] == '/') return std::string(xdg) + "/trainbench/history.sqlite";
  const char* home = std::getenv("HOME");
  if (home && home[0] != '\0') return std::string(home) + "/.local/share/trainbench/history.sqlite";
  throw core::Error(
      "no folder for the results history: neither XDG_DATA_HOME nor HOME is set (use --db PATH)");
}

HistoryDb::HistoryDb(const std::string& path, Access access) : path_(path) {
  if (access == Access::kReadOnly) {
    OpenReadOnly();
    return;
  }
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(parent, ec);
    if (ec) throw core::FileError(parent.string(), 0, "cannot create folder: " + ec.message());
  }
  Open(SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  try {
    Exec("BEGIN IMMEDIATE");
    try {
      Exec(kSchema);
      Statement get(db_, path_, "SELECT value FROM meta WHERE key = 'schema_version'");
      if (get.Step()) {
        const std::string v = get.Text(0);
        if (std::atoi(v.c_str()) > kHistorySchemaVersion) {
          throw core::FileError(path_, 0,
                                "history schema version " + v +
                                    " is newer than this trainbench's " +
                                    std::to_string(kHistorySchemaVersion));
        }
      } else {
        Statement put(db_, path_, "INSERT INTO meta (key, value) VALUES ('schema_version', ?)");
        put.Bind(1, std::to_string(kHistorySchemaVersion));
        put.Step();
      }
      Exec("COMMIT");
    } catch (...) {
      sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
      throw;
    }
  } catch (...) {
    sqlite3_close(db_);
    db_ = nullptr;
    throw;
  }
}

void HistoryDb::Open(int flags) {
  if (sqlite3_open_v2(path_.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
    std::string msg = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    db_ = nullptr;
    throw core::FileError(path_, 0, "cannot open the history database: " + msg);
  }
  sqlite3_busy_timeout(db_, kBusyTimeoutMs);
}

void HistoryDb::OpenReadOnly() {
  // Opening a FIFO blocks; a folder or device is no database.
  const std::string not_regular = core::NotRegularFileReason(path_);
  if (!not_regular.empty()) throw core::FileError(path_, 0, not_regular);
  Open(SQLITE_OPEN_READONLY);
  try {
    // No schema is created: a file without it is not a history (an empty file is a valid,
    // empty SQLite database, and became a history before).
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db_, "SELECT value FROM meta WHERE key = 'schema_version'", -1, &stmt,
                           nullptr) != SQLITE_OK) {
      const std::string msg = sqlite3_errmsg(db_);
      sqlite3_finalize(stmt);
      throw core::FileError(path_, 0, "not a trainbench results history (" + msg + ")");
    }
    sqlite3_finalize(stmt);
    Statement get(db_, path_, "SELECT value FROM meta WHERE key = 'schema_version'");
    if (!get.Step()) {
      throw core::FileError(path_, 0, "not a trainbench results history (no schema_version)");
    }
    const std::string v = get.Text(0);
    if (std::atoi(v.c_str()) > kHistorySchemaVersion) {
      throw core::FileError(path_, 0,
                            "history schema version " + v + " is newer than this trainbench's " +
                                std::to_string(kHistorySchemaVersion));
    }
  } catch (...) {
    sqlite3_close(db_);
    db_ = nullptr;
    throw;
  }
}

HistoryDb::~HistoryDb() { sqlite3_close(db_); }

void HistoryDb::Exec(const char* sql) const {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : sqlite3_errmsg(db_);
    sqlite3_free(err);
    throw core::FileError(path_, 0, "history database: " + msg);
  }
}

ImportCounts HistoryDb::Import(const std::vector<HistoryRun>& runs, int64_t now_ms) {
  ImportCounts counts;
  Exec("BEGIN IMMEDIATE");
  try {
    // Only a run already stored (the same content hash) is skipped; OR IGNORE also skipped
    // rows that broke a NOT NULL constraint and counted them as "already known".
    Statement ins(db_, path_,
                  "INSERT INTO runs (content_hash, path, format, log_name, "
                  "trainbench_benchmark, scale, system, benchmark_folder, division, org, "
                  "start_ms, stop_ms, minutes, converged, status, epochs, seed_json, "
                  "final_accuracy_json, git_revision, imported_at_ms) VALUES "
                  "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                  "ON CONFLICT (content_hash) DO NOTHING");
    for (const auto& h : runs) {
      const summary::RunResult& r = h.run;
      const std::string why = Unstorable(r);
      if (!why.empty()) {
        counts.refused.push_back(r.path + ": " + why);
        continue;
      }
      ins.Reset();
      ins.Bind(1, h.content_hash);
      ins.Bind(2, r.path);
      ins.Bind(3, std::string(core::LogFormatName(r.format)));
      ins.Bind(4, r.log_name);
      ins.Bind(5, r.trainbench_benchmark);
      ins.Bind(6, r.scale);
      ins.Bind(7, r.system);
      ins.Bind(8, r.benchmark_folder);
      ins.Bind(9, r.division);
      ins.Bind(10, r.org);
      ins.Bind(11, r.start_ms);
      ins.Bind(12, r.stop_ms);
      ins.Bind(13, r.minutes);
      ins.Bind(14, static_cast<int64_t>(r.converged ? 1 : 0));
      ins.Bind(15, r.status);
      if (r.epochs) {
        ins.Bind(16, *r.epochs);
      } else {
        ins.BindNull(16);
      }
      ins.Bind(17, r.seed.dump(-1, ' ', false, core::Json::error_handler_t::replace));
      ins.Bind(18, r.final_accuracy.dump(-1, ' ', false, core::Json::error_handler_t::replace));
      ins.Bind(19, h.git_revision);
      ins.Bind(20, now_ms);
      ins.Step();
      if (sqlite3_changes(db_) > 0) {
        ++counts.added;
      } else {
        ++counts.known;
      }
    }
    Exec("COMMIT");
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
  return counts;
}

std::vector<HistoryRun> HistoryDb::Runs() const {
  Statement q(db_, path_,
              "SELECT content_hash, path, format, log_name, trainbench_benchmark, scale, system, "
              "benchmark_folder, division, org, start_ms, stop_ms, minutes, converged, status, "
              "epochs, seed_json, final_accuracy_json, git_revision, imported_at_ms FROM runs "
              "ORDER BY start_ms, content_hash");
  std::vector<HistoryRun> out;
  while (q.Step()) {
    HistoryRun h;
    h.content_hash = q.Text(0);
    summary::RunResult& r = h.run;
    r.path = q.Text(1);
    r.format = core::ParseLogFormatName(q.Text(2));
    r.log_name = q.Text(3);
    r.trainbench_benchmark = q.Text(4);
    r.scale = q.Text(5);
    r.system = q.Text(6);
    r.benchmark_folder = q.Text(7);
    r.division = q.Text(8);
    r.org = q.Text(9);
    r.start_ms = q.Double(10);
    r.stop_ms = q.Double(11);
    r.minutes = q.Double(12);
    r.converged = q.Int(13) != 0;
    r.status = q.Text(14);
    if (!q.IsNull(15)) r.epochs = q.Double(15);
    r.seed = ParseJsonOrNull(q.Text(16));
    r.final_accuracy = ParseJsonOrNull(q.Text(17));
    h.git_revision = q.Text(18);
    h.imported_at_ms = q.Int(19);
    out.push_back(std::move(h));
  }
  return out;
}

}  // namespace trainbench::report

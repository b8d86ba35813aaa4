// Reads result logs: MLLOG lines (`:::MLLOG {json}`, any text before the marker is allowed,
// e.g. an MPI rank prefix) and the legacy MLPerf v0.5 lines
// (`:::MLPv0.5.0 <benchmark> <unix seconds> (<file>:<line>) <key>[: <json value>]`).
// Lines with neither marker are ignored, as the official tools do. A line with a marker that
// does not parse becomes a LogParseError (with its line number), never an exception.
#pragma once

#include <cstdint>
#include <istream>
#include <optional>
#include <string>
#include <vector>

#include "core/json.h"
#include "core/mllog.h"

namespace trainbench::core {

enum class LogFormat { kUnknown, kMllog, kLegacyV05 };
// "mllog", "mlperf_v0.5", "unknown": the names reports and the results history store.
const char* LogFormatName(LogFormat f);
// The inverse of LogFormatName; kUnknown for any other text.
LogFormat ParseLogFormatName(const std::string& name);

struct LogRecord {
  int line_no = 0;     // 1-based line number in the file
  std::string line;    // the raw line, without the newline
  std::string ns;      // MLLOG namespace
  double time_ms = 0;  // ms since the epoch (fractional for legacy logs)
  EventType type = EventType::kPointInTime;
  std::string key;
  Json value;             // null when absent
  Json metadata;          // object ({} when absent)
  std::string benchmark;  // legacy logs name the benchmark on every line
};

struct LogParseError {
  int line_no = 0;
  std::string line;
  std::string message;
};

struct ParsedLog {
  std::string path;
  LogFormat format = LogFormat::kUnknown;
  std::vector<LogRecord> records;
  std::vector<LogParseError> errors;
  // Marked lines of the other format than the log's (its first marked line's): a :::MLPv0.5.0
  // line in an MLLOG log or the reverse. Not in `records`, as the official tools, which read
  // one format, ignore them; `message` says what they are. `check` fails them.
  std::vector<LogParseError> other_format_lines;

  // First record with this key, or nullptr.
  const LogRecord* Find(const std::string& key) const;
  // All records with this key, in log order.
  std::vector<const LogRecord*> FindAll(const std::string& key) const;
};

// Parses one line. Returns nullopt when the line holds no log marker. On a malformed line
// returns nullopt and fills *error.
std::optional<LogRecord> ParseLogLine(const std::string& line, int line_no, LogFormat* format,
                                      LogParseError* error);

// Reads a whole log. `path` names the source in messages.
ParsedLog ParseLog(std::istream& in, const std::string& path);
// Throws core::Error when the file cannot be opened or is not a regular file (a FIFO, a
// directory, a device: reading one could block or never end).
ParsedLog ReadLogFile(const std::string& path);

// "" when `path` is a regular file (or a link to one) or does not exist (opening it will say
// so); else why it is not, for a message after the path: "is a FIFO, not a regular file".
std::string NotRegularFileReason(const std::string& path);

}  // namespace trainbench::core

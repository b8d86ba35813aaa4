// MLLOG writer: one event per line, byte-for-byte the format of mlcommons/logging:
//   :::MLLOG {"namespace": "", "time_ms": 1700000000001, "event_type": "INTERVAL_START",
//             "key": "init_start", "value": null, "metadata": {"file": "x.cc", "lineno": 11}}
// Use the TB_MLLOG_* macros: they capture the caller's file and line. Keys are the named
// constants in mllog_keys.h. A Logger is cheap to call but flushes every line (so a crash
// loses nothing): log per epoch/eval, never per step.
// Threading: a Logger is not thread-safe; the harness owns it and logs from one thread.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "core/json.h"

namespace trainbench::core {

enum class EventType { kIntervalStart, kIntervalEnd, kPointInTime };

// "INTERVAL_START", "INTERVAL_END", "POINT_IN_TIME".
const char* EventTypeName(EventType type);
// Inverse of EventTypeName; returns false for an unknown name.
bool ParseEventType(std::string_view name, EventType* out);

// Milliseconds since the Unix epoch, wall clock (what MLLOG's time_ms is).
int64_t WallClockMs();

// Formats one MLLOG line (without the trailing newline). `metadata` must be an object or null;
// "file" and "lineno" are put first, then the metadata fields in their order.
std::string FormatMllogLine(std::string_view ns, int64_t time_ms, EventType type,
                            std::string_view key, const Json& value, std::string_view file,
                            int lineno, const Json& metadata);

// Where a log call was made (file base name and line), captured by the TB_MLLOG_* macros.
struct SourceLoc {
  const char* file;
  int line;
};

class Logger {
 public:
  using Sink = std::function<void(const std::string& line)>;  // receives a line without '\n'
  using Clock = std::function<int64_t()>;                     // ms since the epoch

  // A disabled logger (non-zero rank) formats nothing and writes nothing.
  explicit Logger(Sink sink, Clock clock = WallClockMs, std::string ns = "", bool enabled = true);

  void Log(SourceLoc loc, EventType type, std::string_view key, const Json& value = nullptr,
           const Json& metadata = Json::object());
  // Logs with an explicit timestamp (ms since the epoch).
  void LogAt(SourceLoc loc, int64_t time_ms, EventType type, std::string_view key,
             const Json& value = nullptr, const Json& metadata = Json::object());
  bool enabled() const { return enabled_; }
  int64_t NowMs() const { return clock_(); }

 private:
  Sink sink_;
  Clock clock_;
  std::string ns_;
  bool enabled_;
};

// Strips directories from __FILE__ so logs do not depend on the build machine's paths.
const char* BaseName(const char* path);

}  // namespace trainbench::core

#define TB_MLLOG_HERE_ \
  ::trainbench::core::SourceLoc { ::trainbench::core::BaseName(__FILE__), __LINE__ }
// TB_MLLOG_START(logger, key [, value [, metadata]]); value defaults to null, metadata to {}.
#define TB_MLLOG_START(logger, key, ...) \
  (logger).Log(TB_MLLOG_HERE_, ::trainbench::core::EventType::kIntervalStart, key, ##__VA_ARGS__)
#define TB_MLLOG_END(logger, key, ...) \
  (logger).Log(TB_MLLOG_HERE_, ::trainbench::core::EventType::kIntervalEnd, key, ##__VA_ARGS__)
#define TB_MLLOG_EVENT(logger, key, ...) \
  (logger).Log(TB_MLLOG_HERE_, ::trainbench::core::EventType::kPointInTime, key, ##__VA_ARGS__)

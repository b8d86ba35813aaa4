#include "core/mllog.h"

#include <chrono>
#include <cstring>

namespace trainbench::core {

const char* EventTypeName(EventType type) {
  switch (type) {
    case EventType::kIntervalStart:
      return "INTERVAL_START";
    case EventType::kIntervalEnd:
      return "INTERVAL_END";
    case EventType::kPointInTime:
      return "POINT_IN_TIME";
  }
  return "POINT_IN_TIME";
}

bool ParseEventType(std::string_view name, EventType* out) {
  if (name == "INTERVAL_START") {
    *out = EventType::kIntervalStart;
  } else if (name == "INTERVAL_END") {
    *out = EventType::kIntervalEnd;
  } else if (name == "POINT_IN_TIME") {
    *out = EventType::kPointInTime;
  } else {
    return false;
  }
  return true;
}

int64_t WallClockMs() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

std::string FormatMllogLine(std::string_view ns, int64_t time_ms, EventType type,
                            std::string_view key, const Json& value, std::string_view file,
                            int lineno, const Json& metadata) {
  Json md = Json::object();
  md["file"] = std::string(file);
  md["lineno"] = lineno;
  if (metadata.is_object()) {
    for (auto it = metadata.begin(); it != metadata.end(); ++it) {
      if (it.key() == "file" || it.key() == "lineno") continue;
      md[it.key()] = it.value();
    }
  }
  Json event = Json::object();
  event["namespace"] = std::string(ns);
  event["time_ms"] = time_ms;
  event["event_type"] = EventTypeName(type);
  event["key"] = std::string(key);
  event["value"] = value;
  event["metadata"] = std::move(md);
  return ":::MLLOG " + PythonJsonDumps(event);
}

Logger::Logger(Sink sink, Clock clock, std::string ns, bool enabled)
    : sink_(std::move(sink)), clock_(std::move(clock)), ns_(std::move(ns)), enabled_(enabled) {}

void Logger::Log(SourceLoc loc, EventType type, std::string_view key, const Json& value,
                 const Json& metadata) {
  if (!enabled_) return;
  LogAt(loc, clock_(), type, key, value, metadata);
}

void Logger::LogAt(SourceLoc loc, int64_t time_ms, EventType type, std::string_view key,
                   const Json& value, const Json& metadata) {
  if (!enabled_) return;
  sink_(FormatMllogLine(ns_, time_ms, type, key, value, loc.file, loc.line, metadata));
}

const char* BaseName(const char* path) {
  const char* slash = std::strrchr(path, '/');
  return slash ? slash + 1 : path;
}

}  // namespace trainbench::core

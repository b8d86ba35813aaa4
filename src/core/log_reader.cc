#include "core/log_reader.h"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <tuple>

#include "core/error.h"
#include "core/utf8.h"

namespace trainbench::core {

const char* LogFormatName(LogFormat f) {
  switch (f) {
    case LogFormat::kMllog:
      return "mllog";
    case LogFormat::kLegacyV05:
      return "mlperf_v0.5";
    case LogFormat::kUnknown:
      break;
  }
  return "unknown";
}

LogFormat ParseLogFormatName(const std::string& name) {
  if (name == "mllog") return LogFormat::kMllog;
  if (name == "mlperf_v0.5") return LogFormat::kLegacyV05;
  return LogFormat::kUnknown;
}

namespace {

constexpr const char* kMllogMarker = ":::MLLOG";
constexpr const char* kLegacyMarker = ":::MLPv0.5.0";

std::optional<LogRecord> ParseMllog(const std::string& line, size_t at, int line_no,
                                    LogParseError* error) {
  auto fail = [&](const std::string& msg) -> std::optional<LogRecord> {
    *error = LogParseError{line_no, line, msg};
    return std::nullopt;
  };
  std::string body = line.substr(at + std::char_traits<char>::length(kMllogMarker));
  Json j;
  try {
    j = ParseJson(body);
  } catch (const JsonError& e) {
    return fail(std::string("malformed MLLOG JSON: ") + e.what());
  }
  if (!j.is_object()) return fail("MLLOG payload is not a JSON object");
  for (const char* field : {"namespace", "time_ms", "event_type", "key", "value", "metadata"}) {
    if (!j.contains(field)) return fail(std::string("MLLOG event lacks field \"") + field + "\"");
  }
  LogRecord r;
  r.line_no = line_no;
  r.line = line;
  if (!j["namespace"].is_string()) return fail("\"namespace\" is not a string");
  r.ns = j["namespace"].get<std::string>();
  if (!j["time_ms"].is_number()) return fail("\"time_ms\" is not a number");
  r.time_ms = j["time_ms"].get<double>();
  if (!j["event_type"].is_string() ||
      !ParseEventType(j["event_type"].get<std::string>(), &r.type)) {
    return fail("\"event_type\" is not INTERVAL_START, INTERVAL_END or POINT_IN_TIME");
  }
  if (!j["key"].is_string()) return fail("\"key\" is not a string");
  r.key = j["key"].get<std::string>();
  r.value = j["value"];
  if (!j["metadata"].is_object() && !j["metadata"].is_null()) {
    return fail("\"metadata\" is not an object");
  }
  r.metadata = j["metadata"].is_null() ? Json::object() : j["metadata"];
  return r;
}

// :::MLPv0.5.0 <benchmark> <seconds> (<file>:<line>) <key>[: <json>]
std::optional<LogRecord> ParseLegacy(const std::string& line, size_t at, int line_no,
                                     LogParseError* error) {
  auto fail = [&](const std::string& msg) -> std::optional<LogRecord> {
    *error = LogParseError{line_no, line, msg};
    return std::nullopt;
  };
  size_t pos = at + std::char_traits<char>::length(kLegacyMarker);
  auto next_token = [&](std::string* tok) {
    while (pos < line.size() && line[pos] == ' ') ++pos;
    size_t start = pos;
    while (pos < line.size() && line[pos] != ' ') ++pos;
    *tok = line.substr(start, pos - start);
    return !tok->empty();
  };
  LogRecord r;
  r.line_no = line_no;
  r.line = line;
  std::string seconds, where;
  if (!next_token(&r.benchmark)) return fail("legacy line lacks the benchmark name");
  if (!next_token(&seconds)) return fail("legacy line lacks the timestamp");
  char* end = nullptr;
  double s = std::strtod(seconds.c_str(), &end);
  if (end == seconds.c_str() || *end != '\0' || !std::isfinite(s)) {
    return fail("legacy timestamp \"" + seconds + "\" is not a number");
  }
  r.time_ms = s * 1000.0;
  // 1e306 s is a double, its milliseconds are not: an infinite time would become a NaN run time.
  if (!std::isfinite(r.time_ms)) {
    return fail("legacy timestamp \"" + seconds + "\" is out of range");
  }
  while (pos < line.size() && line[pos] == ' ') ++pos;
  if (pos < line.size() && line[pos] == '(') {
    size_t close = line.find(')', pos);
    if (close == std::string::npos) return fail("legacy source location lacks ')'");
    pos = close + 1;
  }
  while (pos < line.size() && line[pos] == ' ') ++pos;
  size_t colon = line.find(':', pos);
  std::string key = line.substr(pos, colon == std::string::npos ? std::string::npos : colon - pos);
  while (!key.empty() && (key.back() == ' ' || key.back() == '\r')) key.pop_back();
  if (key.empty()) return fail("legacy line lacks a key");
  // Everything kept from the line may end up in JSON output (summarize --json, the history),
  // which holds UTF-8 only: a stray byte would make every later dump throw.
  const size_t key_at = line.find(key, pos);
  for (const auto& [part, name, offset] :
       {std::make_tuple(&r.benchmark, "benchmark name", line.find(r.benchmark, at)),
        std::make_tuple(&key, "key", key_at)}) {
    if (auto bad = FindInvalidUtf8(*part)) {
      return fail(std::string("legacy ") + name + " is not valid UTF-8 (byte " +
                  std::to_string(offset + bad->offset) + " of the line: " + bad->reason + ")");
    }
  }
  r.key = key;
  r.value = nullptr;
  if (colon != std::string::npos) {
    std::string val = line.substr(colon + 1);
    size_t first = val.find_first_not_of(" \r");
    if (first != std::string::npos) {
      val = val.substr(first);
      if (auto bad = FindInvalidUtf8(val)) {
        const size_t offset = colon + 1 + first + bad->offset;
        return fail("legacy value of " + key + " is not valid UTF-8 (byte " +
                    std::to_string(offset) + " of the line: " + bad->reason + ")");
      }
      if (JsonNestingDepth(val) > kMaxJsonDepth) {
        return fail("legacy value nests deeper than " + std::to_string(kMaxJsonDepth) + " levels");
      }
      try {
        r.value = ParseJson(val);
      } catch (const JsonError&) {
        // v0.5 logs hold some Python literals (True, None, 'strings'); keep them as text.
        r.value = val;
      }
    }
  }
  r.metadata = Json::object();
  return r;
}

}  // namespace

const LogRecord* ParsedLog::Find(const std::string& key) const {
  for (const auto& r : records)
    if (r.key == key) return &r;
  return nullptr;
}

std::vector<const LogRecord*> ParsedLog::FindAll(const std::string& key) const {
  std::vector<const LogRecord*> out;
  for (const auto& r : records)
    if (r.key == key) out.push_back(&r);
  return out;
}

std::optional<LogRecord> ParseLogLine(const std::string& line, int line_no, LogFormat* format,
                                      LogParseError* error) {
  size_t at = line.find(kMllogMarker);
  if (at != std::string::npos) {
    if (format) *format = LogFormat::kMllog;
    return ParseMllog(line, at, line_no, error);
  }
  at = line.find(kLegacyMarker);
  if (at != std::string::npos) {
    if (format) *format = LogFormat::kLegacyV05;
    return ParseLegacy(line, at, line_no, error);
  }
  return std::nullopt;
}

ParsedLog ParseLog(std::istream& in, const std::string& path) {
  ParsedLog log;
  log.path = path;
  std::string line;
  int line_no = 0;
  int first_marker_line = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    LogFormat fmt = LogFormat::kUnknown;
    LogParseError err;
    err.line_no = 0;
    auto rec = ParseLogLine(line, line_no, &fmt, &err);
    if (fmt != LogFormat::kUnknown && log.format == LogFormat::kUnknown) {
      log.format = fmt;
      first_marker_line = line_no;
    }
    if (fmt != LogFormat::kUnknown && fmt != log.format) {
      // A log is written by one logger in one format; a line of the other one was spliced in.
      // The official checkers read only their own format's lines, so it is kept out of records.
      auto marker = [](LogFormat f) {
        return f == LogFormat::kMllog ? ":::MLLOG" : ":::MLPv0.5.0";
      };
      log.other_format_lines.push_back(
          {line_no, line,
           std::string("a ") + marker(fmt) + " line" + (rec ? " (key " + rec->key + ")" : "") +
               " in a log whose first marked line (" + std::to_string(first_marker_line) + ") is " +
               marker(log.format)});
      continue;
    }
    if (rec) {
      log.records.push_back(std::move(*rec));
    } else if (err.line_no != 0) {
      log.errors.push_back(std::move(err));
    }
  }
  return log;
}

std::string NotRegularFileReason(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  switch (st.type()) {
    case fs::file_type::regular:
    case fs::file_type::not_found:  // opening it says so
      return "";
    case fs::file_type::directory:
      return "is a directory, not a regular file";
    case fs::file_type::fifo:
      return "is a FIFO, not a regular file";
    case fs::file_type::socket:
      return "is a socket, not a regular file";
    case fs::file_type::block:
    case fs::file_type::character:
      return "is a device, not a regular file";
    default:
      return ec ? "cannot read: " + ec.message() : "is not a regular file";
  }
}

ParsedLog ReadLogFile(const std::string& path) {
  // Opening a FIFO blocks until a writer comes; a device may never end.
  const std::string not_regular = NotRegularFileReason(path);
  if (!not_regular.empty()) throw FileError(path, 0, not_regular);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw FileError(path, 0, "cannot open log file");
  return ParseLog(in, path);
}

}  // namespace trainbench::core

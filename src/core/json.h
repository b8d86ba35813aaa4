// JSON for trainbench: nlohmann's ordered_json (keys keep insertion order, as MLLOG needs),
// and a serializer that writes exactly what Python's json.dumps writes (", " and ": "
// separators, ASCII-only strings, Python float repr), which is what MLLOG lines contain.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace trainbench::core {

using Json = nlohmann::ordered_json;

// The deepest nesting of arrays and objects any JSON text may have in trainbench. Every JSON
// entry point (logs, COCO files, dataset manifests, the history) refuses deeper text before
// building anything: nlohmann's copies and dumps recurse per level, so a 100 KB line of '['
// would otherwise overflow the stack. Python's json module, which the official tools use,
// stops near 1000 levels (its recursion limit); real files nest fewer than 10.
inline constexpr int kMaxJsonDepth = 512;

// Why a JSON text could not be read, in words that name no library ("number 1e400 is out of
// range", "nesting deeper than 512 levels at offset 17", nlohmann's syntax message). The
// caller adds the file and line.
class JsonError : public std::runtime_error {
 public:
  explicit JsonError(const std::string& what) : std::runtime_error(what) {}
};

// The deepest nesting of arrays and objects in text (0 for a scalar), stopping as soon as it
// exceeds `limit` (then the returned value is limit + 1 and *offset, when given, is the byte
// offset of the bracket that went past it). Strings and their escapes are skipped; the text
// need not be valid JSON.
int JsonNestingDepth(std::string_view text, int limit = kMaxJsonDepth, size_t* offset = nullptr);

// Parses text as one JSON value. Throws JsonError, never a library exception: on syntax errors,
// on nesting deeper than kMaxJsonDepth, and on numbers outside the range of a double (Python
// would read 1e400 as inf; trainbench refuses it rather than guess).
Json ParseJson(std::string_view text);

// Serializes like Python's json.dumps(value) with default arguments.
std::string PythonJsonDumps(const Json& value);

// The first dotted key path whose value differs between objects a and b ("corpus.seed";
// a key present on one side only counts), "(value)" when non-objects differ, "" when equal.
// For messages like "options.seed is 3, requested 2017" about a dataset's recorded options.
std::string JsonFirstDifference(const Json& a, const Json& b, const std::string& prefix = "");
// The JSON text of the value at a dotted key path, "(absent)" when there is none.
std::string JsonValueAt(const Json& j, const std::string& dotted);

// The number at obj[field]; nullopt when obj is not an object, has no such field, or its value
// is not a number.
inline std::optional<double> NumberField(const Json& obj, const char* field) {
  if (!obj.is_object()) return std::nullopt;
  auto it = obj.find(field);
  if (it == obj.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

// Python repr of a double ("0.0001", "5e-05", "2.0", "1e+16", "NaN", "Infinity").
std::string PythonFloatRepr(double v);

}  // namespace trainbench::core

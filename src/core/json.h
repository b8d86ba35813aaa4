// JSON for trainbench: nlohmann's ordered_json (keys keep insertion order, as MLLOG needs),
// and a serializer that writes exactly what Python's json.dumps writes (", " and ": "
// separators, ASCII-only strings, Python float repr), which is what MLLOG lines contain.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace trainbench::core {

using Json = nlohmann::ordered_json;

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

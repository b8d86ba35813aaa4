#include "core/config_reader.h"

#include <limits>

namespace trainbench::core {

ConfigReader::ConfigReader(const Json& config) : config_(config) {}

Error ConfigReader::KeyError(const std::string& key, const std::string& message) {
  return Error("configuration key \"" + key + "\": " + message);
}

bool ConfigReader::Has(const std::string& key) const {
  return config_.is_object() && config_.contains(key);
}

const Json& ConfigReader::Raw(const std::string& key) const {
  if (!Has(key)) throw KeyError(key, "missing from the configuration");
  return config_.at(key);
}

int64_t ConfigReader::Int(const std::string& key) const {
  const Json& v = Raw(key);
  if (v.is_number_integer()) return v.get<int64_t>();
  if (v.is_number_unsigned() &&
      v.get<uint64_t>() <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    return v.get<int64_t>();
  }
  throw KeyError(key, "expected an integer, got " + v.dump());
}

int ConfigReader::Int32(const std::string& key) const {
  const int64_t v = Int(key);
  if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max()) {
    throw KeyError(key, "expected an integer that fits 32 bits, got " + std::to_string(v));
  }
  return static_cast<int>(v);
}

double ConfigReader::Float(const std::string& key) const {
  const Json& v = Raw(key);
  if (v.is_number()) return v.get<double>();
  throw KeyError(key, "expected a number, got " + v.dump());
}

bool ConfigReader::Bool(const std::string& key) const {
  const Json& v = Raw(key);
  if (v.is_boolean()) return v.get<bool>();
  throw KeyError(key, "expected true or false, got " + v.dump());
}

std::string ConfigReader::String(const std::string& key) const {
  const Json& v = Raw(key);
  if (v.is_string()) return v.get<std::string>();
  throw KeyError(key, "expected a string, got " + v.dump());
}

std::string ConfigReader::OneOf(const std::string& key,
                                const std::vector<std::string>& allowed) const {
  std::string v = String(key);
  for (const std::string& a : allowed) {
    if (v == a) return v;
  }
  std::string list;
  for (size_t i = 0; i < allowed.size(); ++i) {
    list += (i == 0 ? "" : i + 1 == allowed.size() ? " or " : ", ") + allowed[i];
  }
  throw KeyError(key, "expected " + list + ", got \"" + v + "\"");
}

}  // namespace trainbench::core

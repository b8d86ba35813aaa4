// Typed reads of a resolved configuration (core::ResolveConfig's `effective`): one place where a
// workload's options struct turns JSON into C++ values. Every failure is a core::Error naming
// the key: `configuration key "batch_size": expected an integer, got "x"`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/json.h"

namespace trainbench::core {

class ConfigReader {
 public:
  // `config` must outlive the reader.
  explicit ConfigReader(const Json& config);

  bool Has(const std::string& key) const;
  int64_t Int(const std::string& key) const;
  // An integer that also fits an int (counts of threads, layers, ...).
  int Int32(const std::string& key) const;
  // A number: integers are accepted (YAML `1` for a float key).
  double Float(const std::string& key) const;
  bool Bool(const std::string& key) const;
  std::string String(const std::string& key) const;
  // A string that must be one of `allowed`: "expected fp32, bf16 or fp16, got \"x\"".
  std::string OneOf(const std::string& key, const std::vector<std::string>& allowed) const;
  // The value as it is, for shapes the reader does not type (lists, objects).
  const Json& Raw(const std::string& key) const;

  // core::Error("configuration key \"<key>\": <message>"), for checks that span values.
  static Error KeyError(const std::string& key, const std::string& message);

 private:
  const Json& config_;
};

}  // namespace trainbench::core

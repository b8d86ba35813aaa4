// `trainbench prepare ... --set key=value`: the generator options of a dataset, each key bound
// to a field of the generator's options struct. One parser for every dataset, so each one
// states only its keys; every error names the key and the value.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace trainbench::cli {

class SetOptions {
 public:
  // `unknown`: what an unknown key's error says after "--set <key>: ".
  explicit SetOptions(std::string unknown) : unknown_(std::move(unknown)) {}

  // Integers, checked against the field's range ("is out of range").
  SetOptions& Int(const char* key, int* field);
  SetOptions& Int(const char* key, long long* field);
  SetOptions& Int(const char* key, long* field);
  SetOptions& Int(const char* key, unsigned* field);
  SetOptions& Int(const char* key, unsigned long* field);
  SetOptions& Int(const char* key, unsigned long long* field);
  SetOptions& Float(const char* key, double* field);
  SetOptions& Text(const char* key, std::string* field);
  // 0, 1, true or false.
  SetOptions& Flag(const char* key, bool* field);

  // Applies `set` (key=value items; a later item wins) to the bound fields; throws core::Error
  // on an unknown key, a malformed item or a value that does not parse or fit.
  void Apply(const std::vector<std::string>& set) const;

 private:
  SetOptions& Bind(const char* key, std::function<void(const std::string&)> parse);

  std::string unknown_;
  std::vector<std::pair<std::string, std::function<void(const std::string&)>>> keys_;
};

}  // namespace trainbench::cli

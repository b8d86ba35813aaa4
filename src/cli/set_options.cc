#include "cli/set_options.h"

#include <limits>
#include <stdexcept>
#include <type_traits>

#include "core/benchmark_def.h"
#include "core/error.h"

namespace trainbench::cli {

namespace {

long long ParseInt(const std::string& v) {
  size_t used = 0;
  const long long x = std::stoll(v, &used);
  if (used != v.size()) throw std::invalid_argument(v);
  return x;
}

template <typename T>
std::function<void(const std::string&)> IntInto(T* field) {
  return [field](const std::string& v) {
    const long long x = ParseInt(v);
    if constexpr (std::is_signed_v<T>) {
      if (x < static_cast<long long>(std::numeric_limits<T>::min()) ||
          x > static_cast<long long>(std::numeric_limits<T>::max())) {
        throw std::out_of_range(v);
      }
    } else {
      if (x < 0 || static_cast<unsigned long long>(x) > std::numeric_limits<T>::max())
        throw std::out_of_range(v);
    }
    *field = static_cast<T>(x);
  };
}

}  // namespace

SetOptions& SetOptions::Bind(const char* key, std::function<void(const std::string&)> parse) {
  keys_.emplace_back(key, std::move(parse));
  return *this;
}

SetOptions& SetOptions::Int(const char* key, int* field) { return Bind(key, IntInto(field)); }
SetOptions& SetOptions::Int(const char* key, long long* field) { return Bind(key, IntInto(field)); }
SetOptions& SetOptions::Int(const char* key, long* field) { return Bind(key, IntInto(field)); }
SetOptions& SetOptions::Int(const char* key, unsigned* field) { return Bind(key, IntInto(field)); }
SetOptions& SetOptions::Int(const char* key, unsigned long* field) {
  return Bind(key, IntInto(field));
}
SetOptions& SetOptions::Int(const char* key, unsigned long long* field) {
  return Bind(key, IntInto(field));
}

SetOptions& SetOptions::Float(const char* key, double* field) {
  return Bind(key, [field](const std::string& v) {
    size_t used = 0;
    const double x = std::stod(v, &used);
    if (used != v.size()) throw std::invalid_argument(v);
    *field = x;
  });
}

SetOptions& SetOptions::Text(const char* key, std::string* field) {
  return Bind(key, [field](const std::string& v) { *field = v; });
}

SetOptions& SetOptions::Flag(const char* key, bool* field) {
  const std::string k = key;
  return Bind(key, [field, k](const std::string& v) {
    if (v == "1" || v == "true") {
      *field = true;
    } else if (v == "0" || v == "false") {
      *field = false;
    } else {
      throw core::Error("--set " + k + ": \"" + v + "\" is not 0, 1, true or false");
    }
  });
}

void SetOptions::Apply(const std::vector<std::string>& set) const {
  for (const auto& [key, value] : core::ParseOverrides(set)) {
    const std::function<void(const std::string&)>* parse = nullptr;
    for (const auto& k : keys_) {
      if (k.first == key) parse = &k.second;
    }
    if (!parse) throw core::Error("--set " + key + ": " + unknown_);
    try {
      (*parse)(value);
    } catch (const std::invalid_argument&) {
      throw core::Error("--set " + key + ": \"" + value + "\" is not a number");
    } catch (const std::out_of_range&) {
      throw core::Error("--set " + key + ": \"" + value + "\" is out of range");
    }
  }
}

}  // namespace trainbench::cli

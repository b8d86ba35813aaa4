#include "core/json.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace trainbench::core {

std::string PythonFloatRepr(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  // Shortest representation that round-trips (what Python's repr does).
  char buf[40];
  int precision = 1;
  for (; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof(buf), "%.*e", precision - 1, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  // buf holds d.ddde[+-]XX with `precision` significant digits.
  std::string s(buf);
  size_t e = s.find('e');
  std::string mant = s.substr(0, e);
  int exp10 = std::atoi(s.c_str() + e + 1);
  bool neg = false;
  if (!mant.empty() && mant[0] == '-') {
    neg = true;
    mant.erase(0, 1);
  }
  std::string digits;
  for (char c : mant)
    if (c != '.') digits += c;
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  std::string out;
  // Python repr: scientific when exponent < -4 or >= 16.
  if (exp10 < -4 || exp10 >= 16) {
    out = digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    char eb[8];
    std::snprintf(eb, sizeof(eb), "e%c%02d", exp10 < 0 ? '-' : '+', std::abs(exp10));
    out += eb;
  } else if (exp10 < 0) {
    out = "0." + std::string(static_cast<size_t>(-exp10 - 1), '0') + digits;
  } else {
    size_t int_len = static_cast<size_t>(exp10) + 1;
    if (digits.size() <= int_len) {
      out = digits + std::string(int_len - digits.size(), '0') + ".0";
    } else {
      out = digits.substr(0, int_len) + "." + digits.substr(int_len);
    }
  }
  return neg ? "-" + out : out;
}

namespace {

void Dump(const Json& v, std::string& out) {
  switch (v.type()) {
    case Json::value_t::object: {
      out += '{';
      bool first = true;
      for (auto it = v.begin(); it != v.end(); ++it) {
        if (!first) out += ", ";
        first = false;
        out += Json(it.key()).dump(-1, ' ', /*ensure_ascii=*/true);
        out += ": ";
        Dump(it.value(), out);
      }
      out += '}';
      break;
    }
    case Json::value_t::array: {
      out += '[';
      bool first = true;
      for (const auto& e : v) {
        if (!first) out += ", ";
        first = false;
        Dump(e, out);
      }
      out += ']';
      break;
    }
    case Json::value_t::number_float:
      out += PythonFloatRepr(v.get<double>());
      break;
    case Json::value_t::discarded:
      out += "null";
      break;
    default:
      out += v.dump(-1, ' ', /*ensure_ascii=*/true);
  }
}

}  // namespace

std::string PythonJsonDumps(const Json& value) {
  std::string out;
  Dump(value, out);
  return out;
}

}  // namespace trainbench::core

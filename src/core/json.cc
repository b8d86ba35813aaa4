#include "core/json.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace trainbench::core {

int JsonNestingDepth(std::string_view text, int limit, size_t* offset) {
  int depth = 0, deepest = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > deepest) deepest = depth;
      if (deepest > limit) {
        if (offset) *offset = i;
        return deepest;
      }
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

Json ParseJson(std::string_view text) {
  size_t at = 0;
  if (JsonNestingDepth(text, kMaxJsonDepth, &at) > kMaxJsonDepth) {
    throw JsonError("JSON nesting deeper than " + std::to_string(kMaxJsonDepth) +
                    " levels at offset " + std::to_string(at));
  }
  try {
    return Json::parse(text);
  } catch (const Json::out_of_range& e) {
    // nlohmann: "[json.exception.out_of_range.406] number overflow parsing '1e400'".
    std::string what = e.what();
    size_t q = what.find('\'');
    std::string number = q == std::string::npos ? "" : what.substr(q);
    throw JsonError("number " + number + " is out of the range of a double");
  } catch (const Json::exception& e) {
    std::string what = e.what();
    size_t close = what.find("] ");
    throw JsonError(close == std::string::npos ? what : what.substr(close + 2));
  }
}

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

std::string JsonFirstDifference(const Json& a, const Json& b, const std::string& prefix) {
  if (a.is_object() && b.is_object()) {
    for (auto it = a.begin(); it != a.end(); ++it) {
      const std::string key = prefix + it.key();
      if (!b.contains(it.key())) return key;
      std::string d = JsonFirstDifference(it.value(), b[it.key()], key + ".");
      if (!d.empty()) return d;
    }
    for (auto it = b.begin(); it != b.end(); ++it) {
      if (!a.contains(it.key())) return prefix + it.key();
    }
    return "";
  }
  if (a != b) return prefix.empty() ? "(value)" : prefix.substr(0, prefix.size() - 1);
  return "";
}

std::string JsonValueAt(const Json& j, const std::string& dotted) {
  const Json* cur = &j;
  size_t start = 0;
  while (start <= dotted.size()) {
    size_t end = dotted.find('.', start);
    if (end == std::string::npos) end = dotted.size();
    const std::string k = dotted.substr(start, end - start);
    if (!cur->is_object() || !cur->contains(k)) return "(absent)";
    cur = &(*cur)[k];
    start = end + 1;
  }
  return cur->dump();
}

}  // namespace trainbench::core

#include "compliance/rules.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <sstream>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/yaml_json.h"

namespace trainbench::compliance {

namespace fs = std::filesystem;

namespace {

constexpr const char* kManifestName = "ruleset.yaml";

const char* const kCheckNames[] = {"type",
                                   "one_of",
                                   "not_one_of",
                                   "range",
                                   "min_length",
                                   "has_metadata",
                                   "has_metadata_any",
                                   "seen_before",
                                   "not_seen_before",
                                   "not_seen_after",
                                   "time_since_first",
                                   "length",
                                   "contains",
                                   "is_integer"};
const char* const kTypeNames[] = {"number", "integer", "string", "bool", "null", "list", "object"};

std::string JoinNames(const char* const* begin, const char* const* end) {
  std::string out;
  for (auto it = begin; it != end; ++it) {
    if (!out.empty()) out += ", ";
    out += *it;
  }
  return out;
}

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

using core::YamlScalarToJson;
using core::YamlToJson;

// Reads one YAML document of the rule schema, naming the file and line in every error.
class Parser {
 public:
  explicit Parser(std::string path) : path_(std::move(path)) {}

  core::Error Fail(const YAML::Node& n, const std::string& msg) const {
    long line = (n.IsDefined() && n.Mark().line >= 0) ? n.Mark().line + 1 : 0;
    return core::FileError(path_, line, msg);
  }

  // Every key of map `n` must be in `allowed`.
  void OnlyFields(const YAML::Node& n, const std::string& what,
                  std::initializer_list<const char*> allowed) const {
    for (const auto& kv : n) {
      const std::string& k = kv.first.Scalar();
      bool ok = std::any_of(allowed.begin(), allowed.end(), [&](const char* a) { return k == a; });
      if (!ok) {
        throw Fail(kv.first, "unknown field \"" + k + "\" in " + what +
                                 " (allowed: " + JoinNames(allowed.begin(), allowed.end()) + ")");
      }
    }
  }

  YAML::Node Required(const YAML::Node& map, const char* key, const std::string& what) const {
    YAML::Node n = map[key];
    if (!n.IsDefined() || n.IsNull()) throw Fail(map, what + " lacks \"" + key + "\"");
    return n;
  }

  std::string String(const YAML::Node& n, const std::string& what) const {
    if (!n.IsScalar()) throw Fail(n, what + ": expected a string");
    return n.Scalar();
  }

  double Number(const YAML::Node& n, const std::string& what) const {
    Json j = n.IsScalar() ? YamlScalarToJson(n) : Json();
    if (!j.is_number()) throw Fail(n, what + ": expected a number");
    return j.get<double>();
  }

  bool Bool(const YAML::Node& n, const std::string& what) const {
    Json j = n.IsScalar() ? YamlScalarToJson(n) : Json();
    if (!j.is_boolean()) throw Fail(n, what + ": expected true or false");
    return j.get<bool>();
  }

  // A string or a non-empty list of strings.
  std::vector<std::string> Names(const YAML::Node& n, const std::string& what) const {
    std::vector<std::string> out;
    if (n.IsScalar()) {
      out.push_back(n.Scalar());
    } else if (n.IsSequence()) {
      for (const auto& e : n) out.push_back(String(e, what));
    } else {
      throw Fail(n, what + ": expected a name or a list of names");
    }
    if (out.empty()) throw Fail(n, what + ": the list is empty");
    for (const auto& s : out) {
      if (s.empty()) throw Fail(n, what + ": empty name");
    }
    return out;
  }

  Occurs ParseOccurs(const YAML::Node& n, Rule* rule) const {
    std::string s = Trim(String(n, "occurs"));
    if (s == "EXACTLY_ONE") return Occurs::kExactlyOne;
    if (s == "AT_LEAST_ONE") return Occurs::kAtLeastOne;
    if (s == "OPTIONAL") return Occurs::kOptional;
    auto args = [&](const std::string& prefix) -> std::optional<std::string> {
      if (s.compare(0, prefix.size(), prefix) != 0 || s.back() != ')') return std::nullopt;
      return Trim(s.substr(prefix.size(), s.size() - prefix.size() - 1));
    };
    if (auto a = args("AT_LEAST_ONE_OR(")) {
      std::stringstream ss(*a);
      std::string part;
      while (std::getline(ss, part, ',')) {
        part = Trim(part);
        if (part.empty()) throw Fail(n, "occurs: empty alternative in \"" + s + "\"");
        rule->alternatives.push_back(part);
      }
      if (rule->alternatives.empty()) throw Fail(n, "occurs: no alternative in \"" + s + "\"");
      return Occurs::kAtLeastOneOr;
    }
    if (auto a = args("AT_LEAST(")) {
      char* end = nullptr;
      long v = std::strtol(a->c_str(), &end, 10);
      if (a->empty() || *end != '\0' || v < 1) {
        throw Fail(n, "occurs: AT_LEAST(n) needs a positive integer n, got \"" + s + "\"");
      }
      rule->at_least = static_cast<int>(v);
      return Occurs::kAtLeastN;
    }
    throw Fail(n, "occurs: unknown requirement \"" + s +
                      "\" (EXACTLY_ONE, AT_LEAST_ONE, AT_LEAST(n), OPTIONAL, "
                      "AT_LEAST_ONE_OR(key, ...))");
  }

  std::string Field(const YAML::Node& n) const {
    std::string f = String(n, "field");
    if (IsFieldPath(f)) return f;
    throw Fail(n,
               "field: expected \"value\", \"value.<name>\", \"value[<index>]\" or "
               "\"metadata.<name>\", got \"" +
                   f + "\"");
  }

  Check ParseCheck(const YAML::Node& n) const {
    if (!n.IsMap()) throw Fail(n, "a check is a map such as {one_of: [a, b]}");
    Check c;
    c.line = n.Mark().line + 1;
    bool has_kind = false;
    YAML::Node kind_val;
    std::string kind;
    bool has_field = false;
    for (const auto& kv : n) {
      const std::string& k = kv.first.Scalar();
      if (k == "field") {
        c.field = Field(kv.second);
        has_field = true;
        continue;
      }
      if (k == "when_has_metadata") {
        c.when_has_metadata = String(kv.second, "when_has_metadata");
        continue;
      }
      bool known = std::any_of(std::begin(kCheckNames), std::end(kCheckNames),
                               [&](const char* name) { return k == name; });
      if (!known) {
        throw Fail(kv.first, "unknown check \"" + k + "\" (checks: " +
                                 JoinNames(std::begin(kCheckNames), std::end(kCheckNames)) +
                                 "; modifiers: field, when_has_metadata)");
      }
      if (has_kind) {
        throw Fail(kv.first, "a check has exactly one kind; this one has \"" + kind + "\" and \"" +
                                 k + "\" (write two checks)");
      }
      kind = k;
      has_kind = true;
      kind_val = kv.second;
    }
    if (!has_kind)
      throw Fail(n, "a check needs a kind (" +
                        JoinNames(std::begin(kCheckNames), std::end(kCheckNames)) + ")");
    bool value_check = false;
    if (kind == "type") {
      c.kind = CheckKind::kType;
      c.type_name = kind_val.IsNull() ? "null" : String(kind_val, "type");
      bool ok = std::any_of(std::begin(kTypeNames), std::end(kTypeNames),
                            [&](const char* t) { return c.type_name == t; });
      if (!ok) {
        throw Fail(kind_val, "type: unknown type \"" + c.type_name + "\" (" +
                                 JoinNames(std::begin(kTypeNames), std::end(kTypeNames)) + ")");
      }
      value_check = true;
    } else if (kind == "one_of" || kind == "not_one_of") {
      c.kind = kind == "one_of" ? CheckKind::kOneOf : CheckKind::kNotOneOf;
      if (!kind_val.IsSequence() || kind_val.size() == 0) {
        throw Fail(kind_val, kind + ": expected a non-empty list of values");
      }
      for (const auto& e : kind_val) c.values.push_back(YamlToJson(e));
      value_check = true;
    } else if (kind == "range") {
      c.kind = CheckKind::kRange;
      if (!kind_val.IsMap()) throw Fail(kind_val, "range: expected a map such as {gt: 0, lt: 1}");
      OnlyFields(kind_val, "range", {"gt", "ge", "lt", "le"});
      for (const auto& kv : kind_val) {
        const std::string& k = kv.first.Scalar();
        double v = Number(kv.second, "range." + k);
        if (k == "gt") c.gt = v;
        if (k == "ge") c.ge = v;
        if (k == "lt") c.lt = v;
        if (k == "le") c.le = v;
      }
      if (!c.gt && !c.ge && !c.lt && !c.le) throw Fail(kind_val, "range: give gt, ge, lt or le");
      value_check = true;
    } else if (kind == "min_length" || kind == "length") {
      c.kind = kind == "length" ? CheckKind::kLength : CheckKind::kMinLength;
      double v = Number(kind_val, kind);
      if (v < 0 || v != std::floor(v)) throw Fail(kind_val, kind + ": expected an integer >= 0");
      (kind == "length" ? c.length : c.min_length) = static_cast<int64_t>(v);
      value_check = true;
    } else if (kind == "contains") {
      c.kind = CheckKind::kContains;
      if (!kind_val.IsScalar()) throw Fail(kind_val, "contains: expected a scalar");
      c.contains = YamlToJson(kind_val);
      value_check = true;
    } else if (kind == "is_integer") {
      c.kind = CheckKind::kIsInteger;
      if (!kind_val.IsMap()) {
        throw Fail(kind_val, "is_integer: expected a map such as {divide_by: 0.001}");
      }
      OnlyFields(kind_val, "is_integer", {"divide_by", "log2", "add", "times"});
      c.divide_by = Number(Required(kind_val, "divide_by", "is_integer"), "is_integer.divide_by");
      if (c.divide_by == 0) throw Fail(kind_val["divide_by"], "is_integer.divide_by: not 0");
      if (kind_val["log2"].IsDefined()) c.log2 = Bool(kind_val["log2"], "is_integer.log2");
      if (kind_val["add"].IsDefined()) c.add = Number(kind_val["add"], "is_integer.add");
      if (kind_val["times"].IsDefined()) c.times = Number(kind_val["times"], "is_integer.times");
      value_check = true;
    } else if (kind == "has_metadata" || kind == "has_metadata_any") {
      c.kind = kind == "has_metadata" ? CheckKind::kHasMetadata : CheckKind::kHasMetadataAny;
      c.names = Names(kind_val, kind);
    } else if (kind == "seen_before" || kind == "not_seen_before" || kind == "not_seen_after") {
      c.kind = kind == "seen_before"       ? CheckKind::kSeenBefore
               : kind == "not_seen_before" ? CheckKind::kNotSeenBefore
                                           : CheckKind::kNotSeenAfter;
      c.names = Names(kind_val, kind);
    } else if (kind == "time_since_first") {
      c.kind = CheckKind::kTimeSinceFirst;
      if (!kind_val.IsMap()) throw Fail(kind_val, "time_since_first: expected a map");
      OnlyFields(kind_val, "time_since_first",
                 {"key", "less_than_minutes", "less_than_minutes_by"});
      c.since_key = String(Required(kind_val, "key", "time_since_first"), "time_since_first.key");
      YAML::Node fixed = kind_val["less_than_minutes"];
      YAML::Node by = kind_val["less_than_minutes_by"];
      if (fixed.IsDefined() == by.IsDefined()) {
        throw Fail(kind_val,
                   "time_since_first: give exactly one of less_than_minutes, less_than_minutes_by");
      }
      if (fixed.IsDefined()) {
        c.limit_minutes = Number(fixed, "time_since_first.less_than_minutes");
      } else {
        if (!by.IsMap()) throw Fail(by, "less_than_minutes_by: expected a map");
        OnlyFields(by, "less_than_minutes_by", {"key", "values", "otherwise"});
        c.limit_key =
            String(Required(by, "key", "less_than_minutes_by"), "less_than_minutes_by.key");
        YAML::Node values = Required(by, "values", "less_than_minutes_by");
        if (!values.IsMap()) throw Fail(values, "less_than_minutes_by.values: expected a map");
        for (const auto& kv : values) {
          c.limit_by_value[kv.first.Scalar()] =
              Number(kv.second, "less_than_minutes_by.values." + kv.first.Scalar());
        }
        if (by["otherwise"].IsDefined()) {
          c.limit_otherwise = Number(by["otherwise"], "less_than_minutes_by.otherwise");
        }
      }
    }
    if (has_field && !value_check) {
      throw Fail(n,
                 "field applies to value checks only (type, one_of, not_one_of, range, "
                 "min_length, length, contains, is_integer), not to " +
                     kind);
    }
    return c;
  }

  std::vector<Check> ParseChecks(const YAML::Node& n, const std::string& what) const {
    if (!n.IsSequence()) throw Fail(n, what + ": expected a list of checks");
    std::vector<Check> out;
    for (const auto& e : n) out.push_back(ParseCheck(e));
    return out;
  }

  AtLeastOne ParseAtLeastOne(const YAML::Node& n) const {
    AtLeastOne a;
    a.line = n.Mark().line + 1;
    if (n.IsSequence()) {
      a.checks = ParseChecks(n, "at_least_one");
    } else if (n.IsMap()) {
      OnlyFields(n, "at_least_one", {"checks", "when"});
      a.checks = ParseChecks(Required(n, "checks", "at_least_one"), "at_least_one.checks");
      YAML::Node w = n["when"];
      if (w.IsDefined()) {
        if (!w.IsMap()) throw Fail(w, "when: expected {key: ..., field: ..., equals: ...}");
        OnlyFields(w, "when", {"key", "field", "equals"});
        Condition c;
        c.line = w.Mark().line + 1;
        c.key = String(Required(w, "key", "when"), "when.key");
        if (w["field"].IsDefined()) c.field = Field(w["field"]);
        YAML::Node eq = w["equals"];
        if (!eq.IsDefined()) throw Fail(w, "when lacks \"equals\"");
        c.equals = YamlToJson(eq);
        a.when = c;
      }
    } else {
      throw Fail(n, "at_least_one: expected a list of checks or {checks: [...], when: {...}}");
    }
    if (a.checks.empty()) throw Fail(n, "at_least_one: no checks");
    return a;
  }

  Include ParseInclude(const YAML::Node& n) const {
    Include inc;
    inc.line = n.Mark().line + 1;
    if (n.IsScalar()) {
      inc.pattern = n.Scalar();
      std::string probe = inc.pattern;
      for (size_t p; (p = probe.find("{value}")) != std::string::npos;) probe.replace(p, 7, "x");
      if (!IsPlainRuleFileName(probe)) {
        throw Fail(n, "include: \"" + inc.pattern +
                          "\" is not a rule-file name (letters, digits, _ . -, ending in .yaml; "
                          "\"{value}\" stands for the line's value)");
      }
    } else if (n.IsMap()) {
      for (const auto& kv : n) {
        std::string file = String(kv.second, "include." + kv.first.Scalar());
        if (!IsPlainRuleFileName(file)) {
          throw Fail(kv.second, "include: \"" + file + "\" is not a plain rule-file name");
        }
        inc.by_value[kv.first.Scalar()] = file;
      }
      if (inc.by_value.empty()) throw Fail(n, "include: the map is empty");
    } else {
      throw Fail(n, "include: expected a file-name pattern or a map {value: file}");
    }
    return inc;
  }

  Rule ParseRule(const YAML::Node& n) const {
    if (!n.IsMap()) throw Fail(n, "a rule is a map with at least \"key\" and \"occurs\"");
    OnlyFields(n, "a rule",
               {"key", "occurs", "note", "duplicates", "first_only", "takes_over_target", "checks",
                "at_least_one", "include"});
    Rule r;
    r.line = n.Mark().line + 1;
    r.key = String(Required(n, "key", "a rule"), "key");
    if (r.key.empty()) throw Fail(n, "key: empty");
    const std::string what = "rule \"" + r.key + "\"";
    r.occurs = ParseOccurs(Required(n, "occurs", what), &r);
    if (n["note"].IsDefined()) r.note = String(n["note"], "note");
    if (n["duplicates"].IsDefined()) {
      std::string d = String(n["duplicates"], "duplicates");
      if (d == "same_value") {
        r.duplicates = Duplicates::kSameValue;
      } else if (d == "same_event") {
        r.duplicates = Duplicates::kSameEvent;
      } else if (d == "error") {
        r.duplicates = Duplicates::kError;
      } else {
        throw Fail(n["duplicates"],
                   "duplicates: unknown policy \"" + d + "\" (same_value, same_event, error)");
      }
      if (r.occurs != Occurs::kExactlyOne) {
        throw Fail(n["duplicates"], "duplicates applies to occurs: EXACTLY_ONE only");
      }
    }
    if (n["first_only"].IsDefined()) r.first_only = Bool(n["first_only"], "first_only");
    if (n["takes_over_target"].IsDefined()) {
      r.takes_over_target = Bool(n["takes_over_target"], "takes_over_target");
      if (r.takes_over_target && !n["at_least_one"].IsDefined()) {
        throw Fail(n["takes_over_target"], "takes_over_target needs an at_least_one");
      }
    }
    if (n["checks"].IsDefined()) r.checks = ParseChecks(n["checks"], "checks");
    if (n["at_least_one"].IsDefined()) r.at_least_one = ParseAtLeastOne(n["at_least_one"]);
    if (n["include"].IsDefined()) r.include = ParseInclude(n["include"]);
    return r;
  }

 private:
  std::string path_;
};

// The configuration YAML reader (core::LoadYamlText): bounded depth and alias expansion (an
// alias bomb in a rule file would otherwise hang `check`), string keys, UTF-8, errors as
// file:line:column.
YAML::Node LoadYaml(const std::string& text, const std::string& path) {
  return core::LoadYamlText(text, path);
}

struct Manifest {
  std::string description;
  std::string extends;
  std::string entry;
  std::optional<bool> log_sanity;
};

Manifest ReadManifest(const std::string& dir, const std::string& name) {
  std::string path = dir + "/" + kManifestName;
  YAML::Node root = LoadYaml(core::ReadFile(path), path);
  Parser p(path);
  try {
    if (!root.IsMap()) throw p.Fail(root, "a ruleset manifest is a map");
    p.OnlyFields(root, "a ruleset manifest",
                 {"schema_version", "ruleset", "description", "extends", "entry", "log_sanity"});
    double version = p.Number(p.Required(root, "schema_version", "the manifest"), "schema_version");
    if (version != kRuleSchemaVersion) {
      throw p.Fail(root["schema_version"], "schema_version " + FormatNumber(version) +
                                               " is not supported (this checker reads " +
                                               std::to_string(kRuleSchemaVersion) + ")");
    }
    Manifest m;
    if (root["ruleset"].IsDefined()) {
      std::string declared = p.String(root["ruleset"], "ruleset");
      if (declared != name) {
        throw p.Fail(root["ruleset"],
                     "ruleset \"" + declared + "\" does not match its folder \"" + name + "\"");
      }
    }
    if (root["description"].IsDefined())
      m.description = p.String(root["description"], "description");
    if (root["extends"].IsDefined()) m.extends = p.String(root["extends"], "extends");
    if (root["entry"].IsDefined()) {
      m.entry = p.String(root["entry"], "entry");
      if (!IsPlainRuleFileName(m.entry)) throw p.Fail(root["entry"], "entry: not a rule-file name");
    }
    if (root["log_sanity"].IsDefined()) m.log_sanity = p.Bool(root["log_sanity"], "log_sanity");
    return m;
  } catch (const YAML::Exception& e) {
    throw core::FileError(path, e.mark.line + 1, e.msg);
  }
}

std::string AsIncludeText(const Json& v, std::string* error) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer() || v.is_number_unsigned() || v.is_boolean()) return v.dump();
  *error = "value " + v.dump() + " cannot name a rule file";
  return "";
}

}  // namespace

std::string FormatNumber(double v) {
  std::ostringstream os;
  os.precision(15);
  os << v;
  return os.str();
}

bool IsFieldPath(const std::string& f) {
  if (f == "value") return true;
  auto named = [&](const std::string& prefix) {
    return f.rfind(prefix, 0) == 0 && f.size() > prefix.size();
  };
  if (named("metadata.") || named("value.")) return true;
  if (f.rfind("value[", 0) == 0 && f.size() > 7 && f.back() == ']') {
    std::string digits = f.substr(6, f.size() - 7);
    return digits.size() <= 9 && std::all_of(digits.begin(), digits.end(), [](char ch) {
             return std::isdigit(static_cast<unsigned char>(ch));
           });
  }
  return false;
}

bool IsPlainRuleFileName(const std::string& name) {
  if (name.empty() || name[0] == '.') return false;
  const std::string ext = ".yaml";
  if (name.size() <= ext.size() || name.compare(name.size() - ext.size(), ext.size(), ext) != 0) {
    return false;
  }
  return std::all_of(name.begin(), name.end(), [](char ch) {
    return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '.' || ch == '-';
  });
}

std::string Check::Describe() const {
  std::ostringstream os;
  auto list = [&](const std::vector<std::string>& v) {
    os << "[";
    for (size_t i = 0; i < v.size(); ++i) os << (i ? ", " : "") << v[i];
    os << "]";
  };
  switch (kind) {
    case CheckKind::kType:
      os << "type " << type_name;
      break;
    case CheckKind::kOneOf:
    case CheckKind::kNotOneOf: {
      os << (kind == CheckKind::kOneOf ? "one_of [" : "not_one_of [");
      for (size_t i = 0; i < values.size(); ++i) os << (i ? ", " : "") << values[i].dump();
      os << "]";
      break;
    }
    case CheckKind::kRange: {
      os << "range {";
      const char* sep = "";
      auto part = [&](const char* name, const std::optional<double>& v) {
        if (!v) return;
        os << sep << name << ": " << FormatNumber(*v);
        sep = ", ";
      };
      part("gt", gt);
      part("ge", ge);
      part("lt", lt);
      part("le", le);
      os << "}";
      break;
    }
    case CheckKind::kMinLength:
      os << "min_length " << min_length;
      break;
    case CheckKind::kLength:
      os << "length " << length;
      break;
    case CheckKind::kContains:
      os << "contains " << contains.dump();
      break;
    case CheckKind::kIsInteger: {
      std::string y = "v / " + FormatNumber(divide_by);
      if (log2) y = "log2(" + y + ")";
      if (add != 0) y = "(" + y + (add < 0 ? " - " : " + ") + FormatNumber(std::fabs(add)) + ")";
      if (times != 1) y = FormatNumber(times) + " * " + y;
      os << "is_integer(" << y << ")";
      break;
    }
    case CheckKind::kHasMetadata:
      os << "has_metadata ";
      list(names);
      break;
    case CheckKind::kHasMetadataAny:
      os << "has_metadata_any ";
      list(names);
      break;
    case CheckKind::kSeenBefore:
      os << "seen_before ";
      list(names);
      break;
    case CheckKind::kNotSeenBefore:
      os << "not_seen_before ";
      list(names);
      break;
    case CheckKind::kNotSeenAfter:
      os << "not_seen_after ";
      list(names);
      break;
    case CheckKind::kTimeSinceFirst:
      os << "time_since_first " << since_key << " < ";
      if (limit_minutes) {
        os << FormatNumber(*limit_minutes) << " min";
      } else {
        os << "limit by " << limit_key;
      }
      break;
  }
  if (field != "value") os << " on " << field;
  if (!when_has_metadata.empty()) os << " (when metadata has " << when_has_metadata << ")";
  return os.str();
}

std::optional<std::string> Include::Resolve(const Json& value, std::string* error) const {
  error->clear();
  if (!by_value.empty()) {
    std::string text = AsIncludeText(value, error);
    if (!error->empty()) {
      error->clear();  // a value the map cannot hold includes nothing
      return std::nullopt;
    }
    auto it = by_value.find(text);
    if (it == by_value.end()) return std::nullopt;
    return it->second;
  }
  std::string name = pattern;
  if (name.find("{value}") != std::string::npos) {
    std::string text = AsIncludeText(value, error);
    if (!error->empty()) return std::nullopt;
    for (size_t p; (p = name.find("{value}")) != std::string::npos;) name.replace(p, 7, text);
  }
  if (!IsPlainRuleFileName(name)) {
    *error = "\"" + name + "\" is not a plain rule-file name";
    return std::nullopt;
  }
  return name;
}

const Rule* RuleFile::Find(const std::string& key) const {
  for (const auto& r : rules) {
    if (r.key == key) return &r;
  }
  return nullptr;
}

const std::vector<RuleFile>* Ruleset::Find(const std::string& file_name) const {
  auto it = files.find(file_name);
  return it == files.end() ? nullptr : &it->second;
}

RuleFile ParseRuleFile(const std::string& text, const std::string& path, const std::string& name,
                       const std::string& layer) {
  YAML::Node root = LoadYaml(text, path);
  Parser p(path);
  RuleFile f;
  f.name = name;
  f.layer = layer;
  f.path = path;
  try {
    if (!root.IsMap()) {
      throw core::FileError(
          path, 0, "a rule file is a map with schema_version and rules (see docs/rules.md)");
    }
    p.OnlyFields(root, "a rule file", {"schema_version", "description", "replaces_base", "rules"});
    double version =
        p.Number(p.Required(root, "schema_version", "the rule file"), "schema_version");
    if (version != kRuleSchemaVersion) {
      throw p.Fail(root["schema_version"], "schema_version " + FormatNumber(version) +
                                               " is not supported (this checker reads " +
                                               std::to_string(kRuleSchemaVersion) + ")");
    }
    if (root["description"].IsDefined()) {
      f.description = p.String(root["description"], "description");
    }
    if (root["replaces_base"].IsDefined()) {
      f.replaces_base = p.Bool(root["replaces_base"], "replaces_base");
    }
    YAML::Node rules = p.Required(root, "rules", "the rule file");
    if (!rules.IsSequence()) throw p.Fail(rules, "rules: expected a list of rules");
    std::map<std::string, int> seen;
    for (const auto& n : rules) {
      Rule r = p.ParseRule(n);
      auto [it, fresh] = seen.emplace(r.key, r.line);
      if (!fresh) {
        throw core::FileError(path, r.line,
                              "a second rule for key \"" + r.key + "\" (the first is at line " +
                                  std::to_string(it->second) + ")");
      }
      f.rules.push_back(std::move(r));
    }
  } catch (const YAML::Exception& e) {
    throw core::FileError(path, e.mark.line + 1, e.msg);
  }
  return f;
}

std::vector<std::string> ListRulesets(const std::string& rules_dir) {
  std::vector<std::string> out;
  std::error_code ec;
  if (!fs::is_directory(rules_dir, ec)) return out;
  for (const auto& e : fs::directory_iterator(rules_dir, ec)) {
    if (e.is_directory(ec) && fs::is_regular_file(e.path() / kManifestName, ec)) {
      out.push_back(e.path().filename().string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

Ruleset LoadRuleset(const std::string& rules_dir, const std::string& name) {
  std::error_code ec;
  if (!fs::is_directory(rules_dir, ec)) {
    throw core::FileError(rules_dir, 0, "rules directory not found");
  }
  auto unknown = [&](const std::string& n, const std::string& context) {
    std::string known;
    for (const auto& r : ListRulesets(rules_dir)) known += (known.empty() ? "" : ", ") + r;
    return core::Error("unknown ruleset \"" + n + "\"" + context + " in " + rules_dir +
                       " (rulesets: " + (known.empty() ? "none" : known) + ")");
  };
  Ruleset rs;
  rs.name = name;
  rs.dir = rules_dir + "/" + name;

  // The chain of manifests, this ruleset first.
  std::vector<std::pair<std::string, Manifest>> chain;
  std::string current = name;
  std::string context;
  while (true) {
    bool plain = !current.empty() && current != "." && current != ".." &&
                 current.find('/') == std::string::npos;
    std::string dir = rules_dir + "/" + current;
    if (!plain || !fs::is_regular_file(dir + "/" + kManifestName, ec))
      throw unknown(current, context);
    for (const auto& [seen, m] : chain) {
      if (seen == current) {
        throw core::FileError(rules_dir + "/" + chain.back().first + "/" + kManifestName, 0,
                              "extends cycle through ruleset \"" + current + "\"");
      }
    }
    chain.emplace_back(current, ReadManifest(dir, current));
    if (chain.back().second.extends.empty()) break;
    context = " (extended by " + current + ")";
    current = chain.back().second.extends;
  }
  rs.description = chain.front().second.description;
  for (const auto& [layer, m] : chain) {
    if (!m.entry.empty()) {
      rs.entry = m.entry;
      break;
    }
  }
  for (const auto& [layer, m] : chain) {
    if (m.log_sanity) {
      rs.log_sanity = *m.log_sanity;
      break;
    }
  }

  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    const std::string& layer = it->first;
    rs.layers.push_back(layer);
    std::string dir = rules_dir + "/" + layer;
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
      std::string file = e.path().filename().string();
      if (file == kManifestName || !IsPlainRuleFileName(file)) continue;
      names.push_back(file);
    }
    std::sort(names.begin(), names.end());
    for (const auto& file : names) {
      std::string path = dir + "/" + file;
      RuleFile parsed = ParseRuleFile(core::ReadFile(path), path, file, layer);
      auto& same_name = rs.files[file];
      if (parsed.replaces_base) same_name.clear();
      same_name.push_back(std::move(parsed));
    }
  }

  if (!rs.Find(rs.entry)) {
    throw core::Error("ruleset \"" + name + "\" in " + rules_dir + " has no entry rule file \"" +
                      rs.entry + "\"");
  }
  // Map-form includes name their files up front: they must exist.
  for (const auto& [file_name, layers] : rs.files) {
    for (const auto& f : layers) {
      for (const auto& r : f.rules) {
        if (!r.include) continue;
        for (const auto& [value, target] : r.include->by_value) {
          if (!rs.Find(target)) {
            throw core::FileError(f.path, r.include->line,
                                  "include: no rule file \"" + target + "\" in ruleset " + name);
          }
        }
      }
    }
  }
  return rs;
}

}  // namespace trainbench::compliance

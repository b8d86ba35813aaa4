#include "core/benchmark_def.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "core/error.h"
#include "core/paths.h"
#include "core/utf8.h"
#include "core/yaml_json.h"

namespace trainbench::core {

const char* DivisionName(Division d) { return d == Division::kClosed ? "closed" : "open"; }

Division ParseDivision(const std::string& s) {
  if (s == "closed") return Division::kClosed;
  if (s == "open") return Division::kOpen;
  throw Error("invalid division \"" + s + "\": expected closed or open");
}

const HyperparameterDef* ScaleDef::Find(const std::string& name) const {
  for (const auto& h : hyperparameters)
    if (h.name == name) return &h;
  return nullptr;
}

Json WithPreset(const Json& effective, const Json& preset) {
  Json merged = effective;
  for (auto it = preset.begin(); it != preset.end(); ++it) merged[it.key()] = it.value();
  return merged;
}

const ScaleDef& BenchmarkDef::Scale(const std::string& scale) const {
  auto it = scales.find(scale);
  if (it == scales.end()) {
    std::string known;
    for (const auto& [k, v] : scales) known += (known.empty() ? "" : ", ") + k;
    throw Error("benchmark " + name + " has no scale \"" + scale + "\" (scales: " + known + ")");
  }
  return it->second;
}

namespace {

using core::YamlScalarToJson;
using core::YamlToJson;

class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  Error Fail(const YAML::Node& n, const std::string& key, const std::string& msg) const {
    long line = n.IsDefined() ? n.Mark().line + 1 : 0;
    return FileError(file_, line, "key \"" + key + "\": " + msg);
  }
  YAML::Node Required(const YAML::Node& parent, const std::string& path, const char* key) const {
    YAML::Node n = parent[key];
    if (!n.IsDefined() || n.IsNull()) throw Fail(parent, path + key, "missing");
    return n;
  }
  std::string Str(const YAML::Node& parent, const std::string& path, const char* key,
                  const std::string* def = nullptr) const {
    YAML::Node n = parent[key];
    if (!n.IsDefined() || n.IsNull()) {
      if (def) return *def;
      throw Fail(parent, path + key, "missing");
    }
    if (!n.IsScalar()) throw Fail(n, path + key, "expected a string");
    return n.Scalar();
  }
  double Num(const YAML::Node& parent, const std::string& path, const char* key,
             std::optional<double> def = std::nullopt) const {
    YAML::Node n = parent[key];
    if (!n.IsDefined() || n.IsNull()) {
      if (def) return *def;
      throw Fail(parent, path + key, "missing");
    }
    Json j = n.IsScalar() ? YamlScalarToJson(n) : Json();
    if (!j.is_number())
      throw Fail(n, path + key,
                 "expected a number, got \"" +
                     (n.IsScalar() ? n.Scalar() : std::string("a non-scalar")) + "\"");
    return j.get<double>();
  }
  int Int(const YAML::Node& parent, const std::string& path, const char* key,
          std::optional<int> def = std::nullopt) const {
    double d = Num(parent, path, key, def ? std::optional<double>(*def) : std::nullopt);
    if (d != std::floor(d)) throw Fail(parent[key], path + key, "expected an integer");
    return static_cast<int>(d);
  }

  const std::string& file() const { return file_; }

 private:
  std::string file_;
};

bool TypeMatches(const std::string& type, const Json& v) {
  if (type == "int") return v.is_number_integer();
  if (type == "float") return v.is_number();
  if (type == "bool") return v.is_boolean();
  if (type == "string") return v.is_string();
  return false;
}

HyperparameterDef ReadHyperparameter(const Reader& r, const std::string& name, const YAML::Node& n,
                                     const std::string& path) {
  HyperparameterDef h;
  h.name = name;
  std::string p = path + name + ".";
  if (!n.IsMap()) throw r.Fail(n, path + name, "expected a map with at least `value` and `type`");
  h.type = r.Str(n, p, "type");
  if (h.type != "int" && h.type != "float" && h.type != "bool" && h.type != "string") {
    throw r.Fail(n["type"], p + "type",
                 "must be int, float, bool or string, not \"" + h.type + "\"");
  }
  h.reference = YamlToJson(r.Required(n, p, "value"));
  if (h.type == "float" && h.reference.is_number_integer()) h.reference = h.reference.get<double>();
  if (!TypeMatches(h.type, h.reference)) {
    throw r.Fail(n["value"], p + "value", "reference value does not have type " + h.type);
  }
  std::string empty;
  h.help = r.Str(n, p, "help", &empty);
  h.mllog = r.Str(n, p, "mllog", &empty);
  if (!h.mllog.empty() &&
      h.mllog.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_") != std::string::npos) {
    throw r.Fail(n["mllog"], p + "mllog",
                 "an MLLOG key is lower case letters, digits and _, not \"" + h.mllog + "\"");
  }
  if (n["min"].IsDefined()) h.min = r.Num(n, p, "min");
  if (n["max"].IsDefined()) h.max = r.Num(n, p, "max");
  if (n["allowed"].IsDefined()) {
    for (const auto& e : n["allowed"]) h.allowed.push_back(YamlToJson(e));
  }
  YAML::Node closed = n["closed"];
  if (!closed.IsDefined() || closed.IsNull()) {
    h.closed_fixed = true;  // default: not changeable in the closed division
  } else if (closed.IsScalar()) {
    if (closed.Scalar() == "fixed") {
      h.closed_fixed = true;
    } else if (closed.Scalar() == "free") {
      h.closed_fixed = false;
    } else {
      throw r.Fail(closed, p + "closed", "expected fixed, free or a map {min, max, allowed}");
    }
  } else if (closed.IsMap()) {
    std::string cp = p + "closed.";
    if (closed["min"].IsDefined()) h.closed_min = r.Num(closed, cp, "min");
    if (closed["max"].IsDefined()) h.closed_max = r.Num(closed, cp, "max");
    if (closed["allowed"].IsDefined()) {
      for (const auto& e : closed["allowed"]) h.closed_allowed.push_back(YamlToJson(e));
    }
  } else {
    throw r.Fail(closed, p + "closed", "expected fixed, free or a map {min, max, allowed}");
  }
  return h;
}

ScaleDef ReadScale(const Reader& r, const std::string& scale, const YAML::Node& n) {
  ScaleDef s;
  s.scale = scale;
  std::string p = "scales." + scale + ".";
  std::string empty;
  s.dataset = r.Str(n, p, "dataset");
  s.data_dir = ExpandDataPath(r.Str(n, p, "data_dir", &empty));
  s.metric = r.Str(n, p, "metric");
  s.quality_target = r.Num(n, p, "quality_target");
  if (YAML::Node st = n["secondary_targets"]; st.IsDefined() && !st.IsNull()) {
    if (!st.IsMap()) throw r.Fail(st, p + "secondary_targets", "expected a map {metric: minimum}");
    for (const auto& kv : st) {
      const std::string name = kv.first.Scalar();
      if (name.empty() || name == s.metric) {
        throw r.Fail(kv.first, p + "secondary_targets",
                     "\"" + name + "\" is not a metric name other than `metric`");
      }
      s.secondary_targets.emplace_back(name, r.Num(st, p + "secondary_targets.", name.c_str()));
    }
  }
  s.runs_per_result = r.Int(n, p, "runs_per_result");
  s.runs_basis = r.Str(n, p, "runs_basis", &empty);
  s.converged_runs_used = r.Int(n, p, "converged_runs_used", 0);
  if (s.converged_runs_used < 0 || s.converged_runs_used > s.runs_per_result) {
    throw r.Fail(n["converged_runs_used"], p + "converged_runs_used",
                 "must be between 0 and runs_per_result");
  }
  s.eval_every_epochs = r.Int(n, p, "eval_every_epochs", 1);
  s.max_epochs = r.Int(n, p, "max_epochs");
  s.reference_time_minutes = r.Num(n, p, "reference_time_minutes", 0.0);
  s.reference_time_note = r.Str(n, p, "reference_time_note", &empty);
  if (s.runs_per_result < 1)
    throw r.Fail(n["runs_per_result"], p + "runs_per_result", "must be >= 1");
  if (s.eval_every_epochs < 1)
    throw r.Fail(n["eval_every_epochs"], p + "eval_every_epochs", "must be >= 1");
  if (s.max_epochs < 1) throw r.Fail(n["max_epochs"], p + "max_epochs", "must be >= 1");
  YAML::Node hp = r.Required(n, p, "hyperparameters");
  if (!hp.IsMap()) throw r.Fail(hp, p + "hyperparameters", "expected a map");
  for (const auto& kv : hp) {
    s.hyperparameters.push_back(
        ReadHyperparameter(r, kv.first.Scalar(), kv.second, p + "hyperparameters."));
  }
  if (YAML::Node pre = n["preset"]; pre.IsDefined() && !pre.IsNull()) {
    if (!pre.IsMap()) throw r.Fail(pre, p + "preset", "expected a map {key: value}");
    for (const auto& kv : pre) {
      const std::string key = kv.first.Scalar();
      const std::string kp = p + "preset." + key;
      if (s.Find(key)) {
        throw r.Fail(kv.first, kp,
                     "is also a hyperparameter: a key is fixed by the scale or set, not both");
      }
      const bool scalar = kv.second.IsScalar();
      bool list_of_scalars = kv.second.IsSequence();
      if (list_of_scalars) {
        for (const auto& e : kv.second) list_of_scalars = list_of_scalars && e.IsScalar();
      }
      if (!scalar && !list_of_scalars) {
        throw r.Fail(kv.second, kp, "expected a scalar or a list of scalars");
      }
      s.preset[key] = YamlToJson(kv.second);
    }
  }
  return s;
}

std::string JsonText(const Json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

bool InList(const std::vector<Json>& list, const Json& v) {
  for (const auto& a : list) {
    if (a == v) return true;
    if (a.is_number() && v.is_number() && a.get<double>() == v.get<double>()) return true;
  }
  return false;
}

std::string ListText(const std::vector<Json>& list) {
  std::string s;
  for (const auto& a : list) s += (s.empty() ? "" : ", ") + JsonText(a);
  return "{" + s + "}";
}

Json ParseValue(const HyperparameterDef& h, const std::string& text) {
  auto bad = [&]() {
    return Error("configuration key \"" + h.name + "\": \"" + text + "\" is not a valid " + h.type);
  };
  if (h.type == "string") {
    // The value goes into the result log as JSON text, which must be Unicode.
    if (auto e = FindInvalidUtf8(text)) {
      throw Error("configuration key \"" + h.name + "\": value is not text: " + e->Message());
    }
    return text;
  }
  if (h.type == "bool") {
    if (text == "true" || text == "1") return true;
    if (text == "false" || text == "0") return false;
    throw bad();
  }
  char* end = nullptr;
  errno = 0;
  if (h.type == "int") {
    long long v = std::strtoll(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0' || errno != 0) throw bad();
    return v;
  }
  double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || errno != 0 || !std::isfinite(v)) throw bad();
  return v;
}

}  // namespace

BenchmarkDef LoadBenchmarkDef(const std::string& path) {
  Reader r(path);
  std::string open_error;
  const YAML::Node root = LoadYamlFile(path, &open_error);
  if (!open_error.empty()) {
    throw FileError(path, 0, "cannot open benchmark definition: " + open_error);
  }
  if (!root.IsMap()) throw FileError(path, 0, "expected a YAML map at the top level");
  BenchmarkDef b;
  b.source = path;
  try {
    std::string empty;
    b.name = r.Str(root, "", "name");
    b.log_name = r.Str(root, "", "log_name");
    b.area = r.Str(root, "", "area", &empty);
    b.description = r.Str(root, "", "description", &empty);
    YAML::Node scales = r.Required(root, "", "scales");
    if (!scales.IsMap()) throw r.Fail(scales, "scales", "expected a map of scales");
    for (const auto& kv : scales) {
      b.scales[kv.first.Scalar()] = ReadScale(r, kv.first.Scalar(), kv.second);
    }
  } catch (const YAML::Exception& e) {
    throw FileError(path, e.mark.line + 1, e.msg);
  }
  return b;
}

std::vector<BenchmarkDef> LoadAllBenchmarks(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw FileError(dir, 0, "benchmark definitions directory not found");
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() == ".yaml") files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  std::vector<BenchmarkDef> out;
  for (const auto& f : files) out.push_back(LoadBenchmarkDef(f));
  return out;
}

BenchmarkDef FindBenchmark(const std::string& dir, const std::string& name) {
  std::string known;
  for (auto& b : LoadAllBenchmarks(dir)) {
    if (b.name == name) return b;
    known += (known.empty() ? "" : ", ") + b.name;
  }
  throw Error("unknown benchmark \"" + name + "\" (known: " + known + ")");
}

std::map<std::string, std::string> ParseOverrides(const std::vector<std::string>& set) {
  std::map<std::string, std::string> out;
  for (const auto& kv : set) {
    auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw Error("--set \"" + kv + "\": expected key=value");
    }
    out[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  return out;
}

ResolvedConfig ResolveConfig(const ScaleDef& scale,
                             const std::map<std::string, std::string>& overrides,
                             Division division) {
  ResolvedConfig out;
  out.requested = Json::object();
  out.effective = Json::object();
  for (const auto& [key, text] : overrides) {
    if (!scale.Find(key)) {
      std::string known;
      for (const auto& h : scale.hyperparameters) known += (known.empty() ? "" : ", ") + h.name;
      throw Error("unknown configuration key \"" + key + "\" (known: " + known + ")");
    }
    out.requested[key] = text;
  }
  for (const auto& h : scale.hyperparameters) {
    Json v = h.reference;
    auto it = overrides.find(h.name);
    if (it != overrides.end()) {
      v = ParseValue(h, it->second);
      std::string where = "configuration key \"" + h.name + "\" = " + it->second + ": ";
      if (h.min && v.get<double>() < *h.min)
        throw Error(where + "below the minimum " + JsonText(Json(*h.min)));
      if (h.max && v.get<double>() > *h.max)
        throw Error(where + "above the maximum " + JsonText(Json(*h.max)));
      if (!h.allowed.empty() && !InList(h.allowed, v))
        throw Error(where + "not one of " + ListText(h.allowed));
      if (division == Division::kClosed) {
        std::string cw = where + "closed division: ";
        if (h.closed_fixed && v != h.reference &&
            !(v.is_number() && h.reference.is_number() &&
              v.get<double>() == h.reference.get<double>())) {
          throw Error(cw + "fixed at the reference value " + JsonText(h.reference) +
                      " (use --division open)");
        }
        if (h.closed_min && v.get<double>() < *h.closed_min)
          throw Error(cw + "below " + JsonText(Json(*h.closed_min)));
        if (h.closed_max && v.get<double>() > *h.closed_max)
          throw Error(cw + "above " + JsonText(Json(*h.closed_max)));
        if (!h.closed_allowed.empty() && !InList(h.closed_allowed, v)) {
          throw Error(cw + "not one of " + ListText(h.closed_allowed));
        }
      }
    }
    out.effective[h.name] = v;
  }
  return out;
}

}  // namespace trainbench::core

#include "core/tuning.h"

#include <yaml-cpp/yaml.h>

#include "core/error.h"
#include "core/paths.h"
#include "core/strings.h"
#include "core/yaml_json.h"

namespace trainbench::core {

namespace {

long LineOf(const YAML::Node& n) { return n.Mark().line >= 0 ? n.Mark().line + 1 : 0; }

}  // namespace

std::string TuningsDir() { return DataRoot() + "/configs/tunings"; }

Tuning LoadTuning(const std::string& name, const std::string& benchmark, const std::string& scale) {
  Tuning t;
  const bool is_path = name.find('/') != std::string::npos || EndsWith(name, ".yaml");
  t.path = is_path ? name : TuningsDir() + "/" + name + ".yaml";
  std::string open_error;
  const YAML::Node root = LoadYamlFile(t.path, &open_error);
  if (!open_error.empty()) {
    throw FileError(t.path, 0,
                    is_path ? "cannot open tuning file"
                            : "no tuning named \"" + name + "\" (cannot open the file)");
  }
  if (!root.IsMap()) throw FileError(t.path, 0, "expected a YAML map at the top level");
  if (!root["name"] || !root["name"].IsScalar())
    throw FileError(t.path, LineOf(root), "key \"name\": expected a string");
  t.name = root["name"].as<std::string>();
  if (root["description"] && root["description"].IsScalar())
    t.description = root["description"].as<std::string>();
  const YAML::Node benches = root["benchmarks"];
  if (!benches || !benches.IsMap())
    throw FileError(t.path, LineOf(root), "key \"benchmarks\": expected a map");
  std::string has;
  for (const auto& b : benches) {
    if (!b.second.IsMap()) {
      throw FileError(t.path, LineOf(b.second),
                      "benchmarks." + b.first.as<std::string>() + ": expected a map of scales");
    }
    for (const auto& s : b.second)
      has +=
          (has.empty() ? "" : ", ") + b.first.as<std::string>() + " " + s.first.as<std::string>();
  }
  const YAML::Node of_benchmark = benches[benchmark];
  const YAML::Node settings =
      of_benchmark && of_benchmark.IsMap() ? of_benchmark[scale] : YAML::Node();
  if (!settings.IsDefined() || settings.IsNull()) {
    throw FileError(t.path, 0,
                    "tuning \"" + t.name + "\" has no settings for " + benchmark + " " + scale +
                        " (it has: " + (has.empty() ? "none" : has) + ")");
  }
  if (!settings.IsMap()) {
    throw FileError(t.path, LineOf(settings),
                    "benchmarks." + benchmark + "." + scale + ": expected a map of key: value");
  }
  const std::string where = "benchmarks." + benchmark + "." + scale + ".";
  for (const auto& kv : settings) {
    const std::string key = kv.first.as<std::string>();
    if (key == "launch") {
      if (!kv.second.IsMap())
        throw FileError(t.path, LineOf(kv.second),
                        where + "launch: expected a map (nproc, threads)");
      for (const auto& l : kv.second) {
        const std::string lk = l.first.as<std::string>();
        if (lk != "nproc" && lk != "threads") {
          throw FileError(t.path, LineOf(l.first),
                          where + "launch." + lk + ": unknown key (expected nproc or threads)");
        }
        int v = 0;
        try {
          v = l.second.IsScalar() ? l.second.as<int>() : 0;
        } catch (const YAML::Exception&) {
          v = 0;
        }
        if (v < 1)
          throw FileError(t.path, LineOf(l.second),
                          where + "launch." + lk + ": expected an integer >= 1");
        (lk == "nproc" ? t.nproc : t.threads) = v;
      }
      continue;
    }
    if (!kv.second.IsScalar()) {
      throw FileError(t.path, LineOf(kv.second), where + key + ": expected a single value");
    }
    t.overrides[key] = kv.second.as<std::string>();
  }
  return t;
}

}  // namespace trainbench::core

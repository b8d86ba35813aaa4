#include "core/tuning.h"

#include <yaml-cpp/yaml.h>

#include "core/error.h"
#include "core/paths.h"
#include "core/provenance.h"
#include "core/strings.h"
#include "core/yaml_json.h"

namespace trainbench::core {

namespace {

long LineOf(const YAML::Node& n) { return n.Mark().line >= 0 ? n.Mark().line + 1 : 0; }

// One entry of a scale's settings: key: value overrides, `launch` and `requires`.
Tuning ReadEntry(const std::string& path, const YAML::Node& settings, const std::string& where) {
  Tuning t;
  if (!settings.IsMap()) {
    throw FileError(
        path, LineOf(settings),
        where.substr(0, where.size() - 1) + ": expected a map of key: value (or a list of them)");
  }
  for (const auto& kv : settings) {
    const std::string key = kv.first.as<std::string>();
    if (key == "requires") {
      const YAML::Node r = kv.second;
      bool ok = r.IsScalar() || r.IsSequence();
      if (r.IsSequence()) {
        for (const auto& f : r) ok = ok && f.IsScalar();
      }
      if (!ok) {
        throw FileError(path, LineOf(r),
                        where + "requires: expected a CPU feature or a list of them (avx512_bf16)");
      }
      if (r.IsScalar()) {
        t.requires.push_back(r.as<std::string>());
      } else {
        for (const auto& f : r) t.requires.push_back(f.as<std::string>());
      }
      continue;
    }
    if (key == "launch") {
      if (!kv.second.IsMap())
        throw FileError(path, LineOf(kv.second), where + "launch: expected a map (nproc, threads)");
      for (const auto& l : kv.second) {
        const std::string lk = l.first.as<std::string>();
        if (lk != "nproc" && lk != "threads") {
          throw FileError(path, LineOf(l.first),
                          where + "launch." + lk + ": unknown key (expected nproc or threads)");
        }
        int v = 0;
        try {
          v = l.second.IsScalar() ? l.second.as<int>() : 0;
        } catch (const YAML::Exception&) {
          v = 0;
        }
        if (v < 1)
          throw FileError(path, LineOf(l.second),
                          where + "launch." + lk + ": expected an integer >= 1");
        (lk == "nproc" ? t.nproc : t.threads) = v;
      }
      continue;
    }
    if (!kv.second.IsScalar()) {
      throw FileError(path, LineOf(kv.second), where + key + ": expected a single value");
    }
    t.overrides[key] = kv.second.as<std::string>();
  }
  return t;
}

}  // namespace

std::string TuningsDir() { return DataRoot() + "/configs/tunings"; }

Tuning LoadTuning(const std::string& name, const std::string& benchmark, const std::string& scale) {
  return LoadTuning(name, benchmark, scale, CpuFlags());
}

Tuning LoadTuning(const std::string& name, const std::string& benchmark, const std::string& scale,
                  const std::set<std::string>& cpu_flags) {
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
  const std::string where = "benchmarks." + benchmark + "." + scale;
  std::vector<YAML::Node> entries;
  if (settings.IsSequence()) {
    for (const auto& e : settings) entries.push_back(e);
    if (entries.empty()) throw FileError(t.path, LineOf(settings), where + ": an empty list");
  } else {
    entries.push_back(settings);
  }
  // Each entry is read (so a bad one is an error on every machine); the first this CPU can run
  // is used.
  std::string passed_over;
  bool chosen = false;
  for (size_t i = 0; i < entries.size(); ++i) {
    const std::string at =
        entries.size() > 1 ? where + "[" + std::to_string(i + 1) + "]." : where + ".";
    Tuning e = ReadEntry(t.path, entries[i], at);
    std::string missing;
    for (const std::string& f : e.requires) {
      if (!cpu_flags.count(f)) missing += (missing.empty() ? "" : ", ") + f;
    }
    const std::string label = "entry " + std::to_string(i + 1);
    if (!missing.empty()) {
      passed_over += (passed_over.empty() ? "" : "; ") + label + " needs " + missing +
                     ", which this CPU lacks";
      continue;
    }
    if (chosen) continue;
    chosen = true;
    t.overrides = e.overrides;
    t.nproc = e.nproc;
    t.threads = e.threads;
    t.requires = e.requires;
    t.entry = static_cast<int>(i + 1);
    t.entries = static_cast<int>(entries.size());
    if (entries.size() > 1) {
      t.choice = label + " of " + std::to_string(entries.size());
      if (!e.requires.empty()) {
        std::string needs;
        for (const std::string& f : e.requires) needs += (needs.empty() ? "" : ", ") + f;
        t.choice += " (this CPU has " + needs + ")";
      }
      if (!passed_over.empty()) t.choice += "; " + passed_over;
    }
  }
  if (!chosen) {
    throw FileError(t.path, LineOf(settings),
                    where + ": no entry this CPU can run (" + passed_over +
                        "); end the list with an entry that requires nothing");
  }
  return t;
}

}  // namespace trainbench::core

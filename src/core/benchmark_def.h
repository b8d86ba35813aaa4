// Benchmark definitions are data: configs/benchmarks/<name>.yaml holds, per scale (mini,
// full), the dataset, quality target, reference hyperparameters with their allowed values in
// the closed division, runs per result, eval cadence, epoch limit and the reference time used
// for the score. This file loads them and resolves a user's overrides into an effective
// configuration, validating every value.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/json.h"

namespace trainbench::core {

enum class Division { kClosed, kOpen };
const char* DivisionName(Division d);
// Throws core::Error for anything but "closed" / "open".
Division ParseDivision(const std::string& s);

struct HyperparameterDef {
  std::string name;
  std::string type;  // "int", "float", "string", "bool"
  Json reference;    // the reference value (the default)
  std::string help;
  // The MLLOG key under which the workload logs this value as configured (`mllog:` in the
  // YAML; e.g. model_hp_d_model), through train::LoggedSetting; empty: not logged as itself
  // (a trainbench-only knob, or logged only in a derived form). The rules tests check the
  // closed rule files against it.
  std::string mllog;
  // Closed division: `closed_fixed` means the reference value only; otherwise the value must
  // lie in [closed_min, closed_max] and, when `closed_allowed` is non-empty, be one of them.
  bool closed_fixed = false;
  std::optional<double> closed_min, closed_max;
  std::vector<Json> closed_allowed;
  // Any division: hard bounds (e.g. a batch size must be >= 1).
  std::optional<double> min, max;
  std::vector<Json> allowed;
};

struct ScaleDef {
  std::string scale;  // "mini" or "full"
  std::string dataset;
  std::string data_dir;  // default data location
  std::string metric;    // e.g. "top1"
  double quality_target = 0;
  // Further targets a run must also reach in the same evaluation (Mask R-CNN's mask AP next to
  // its box AP): metric name -> minimum, the name being a field of the evaluation's metadata
  // (train::EvalResult::extra). In the YAML, `secondary_targets: {segm_map: 0.339}`.
  std::vector<std::pair<std::string, double>> secondary_targets;
  int runs_per_result = 5;
  // Why the count is what it is (`runs_basis:`; `trainbench list` shows it), e.g. "MLPerf's count
  // for gnmt (10)".
  std::string runs_basis;
  // > 0: of the runs_per_result runs, the first this many that converge make the result and
  // the others are discarded, not counted as failures (MLPerf v0.5 NCF: 50 of 100). 0: all.
  int converged_runs_used = 0;
  int eval_every_epochs = 1;
  int max_epochs = 1;
  double reference_time_minutes = 0;  // 0: not measured
  std::string reference_time_note;
  std::vector<HyperparameterDef> hyperparameters;
  // What the scale fixes that is not a setting: model shape and dataset facts (the mini ResNet's
  // stages, the full SSD's backbone, the test file names), `preset: {key: value}` in the YAML.
  // No --set changes them and the run does not log them as configuration; the workload's options
  // struct reads them with the hyperparameters (WithPreset). A key is a hyperparameter or a
  // preset, never both.
  Json preset = Json::object();

  const HyperparameterDef* Find(const std::string& name) const;
};

// The effective configuration with the scale's preset added: what a workload's options struct
// reads (core::ConfigReader) to see every value of its scale in one place.
Json WithPreset(const Json& effective, const Json& preset);

struct BenchmarkDef {
  std::string name;      // trainbench name, e.g. "image_classification"
  std::string log_name;  // MLLOG submission_benchmark, e.g. "resnet"
  std::string area;
  std::string description;
  std::string source;  // the YAML file it was read from
  std::map<std::string, ScaleDef> scales;

  // Throws core::Error naming the benchmark and the scales it has.
  const ScaleDef& Scale(const std::string& scale) const;
};

// Throws core::Error naming the file and key (or line) on any malformed or missing field; the
// file is read with LoadYamlFile (yaml_json.h), which refuses what is not a regular file, alias
// bombs and non-string keys by line and column.
BenchmarkDef LoadBenchmarkDef(const std::string& path);
// All *.yaml under `dir`, sorted by name.
std::vector<BenchmarkDef> LoadAllBenchmarks(const std::string& dir);
// Throws core::Error listing the known names when `name` is unknown.
BenchmarkDef FindBenchmark(const std::string& dir, const std::string& name);

struct ResolvedConfig {
  Json requested;  // what the user asked for: {key: value-as-given}
  Json effective;  // every hyperparameter with its effective, typed value
};

// `--set key=value` arguments -> {key: value} (a repeated key: the last one). Throws core::Error
// naming the argument when it has no '=' or an empty key.
std::map<std::string, std::string> ParseOverrides(const std::vector<std::string>& set);

// Applies `overrides` (key -> text as given on the command line) to the scale's reference
// hyperparameters. Throws core::Error naming the key for an unknown key, a value of the wrong
// type, out of range, or not allowed in the division.
ResolvedConfig ResolveConfig(const ScaleDef& scale,
                             const std::map<std::string, std::string>& overrides,
                             Division division);

}  // namespace trainbench::core

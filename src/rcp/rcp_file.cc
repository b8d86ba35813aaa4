#include "rcp/rcp_file.h"

#include <map>

#include "core/atomic_file.h"
#include "core/benchmark_def.h"
#include "core/error.h"
#include "core/log_reader.h"
#include "core/paths.h"

namespace trainbench::rcp {

std::vector<RcpRecord> ParseRcpJson(const std::string& text, const std::string& path) {
  core::Json j;
  try {
    j = core::ParseJson(text);
  } catch (const core::JsonError& e) {
    throw core::FileError(path, 0, std::string("not JSON: ") + e.what());
  }
  if (!j.is_object()) throw core::FileError(path, 0, "an RCP file is a JSON object of records");
  std::vector<RcpRecord> out;
  for (const auto& [name, rec] : j.items()) {
    auto bad = [&](const std::string& why) {
      return core::FileError(path, 0, "record \"" + name + "\": " + why);
    };
    if (!rec.is_object()) throw bad("is not an object");
    RcpRecord r;
    r.name = name;
    if (!rec.contains("Benchmark") || !rec["Benchmark"].is_string()) {
      throw bad("no \"Benchmark\" string");
    }
    r.benchmark = rec["Benchmark"].get<std::string>();
    if (!rec.contains("BS") || !rec["BS"].is_number()) throw bad("no \"BS\" number");
    r.bs = rec["BS"].get<double>();
    if (!rec.contains("Hyperparams")) throw bad("no \"Hyperparams\"");
    const char* unit = (r.benchmark == "llama2_70b_lora" || r.benchmark == "flux1")
                           ? "samples to converge"
                           : "Epochs to converge";
    if (!rec.contains(unit) || !rec[unit].is_array()) {
      throw bad(std::string("no \"") + unit + "\" list");
    }
    for (const auto& e : rec[unit]) {
      if (!e.is_number()) throw bad(std::string("\"") + unit + "\" holds a non-number");
      r.epochs.push_back(e.get<double>());
    }
    // The official checker divides by zero (and stops) below 3 runs.
    const size_t need = 2 * static_cast<size_t>(SamplesRejected(r.benchmark)) + 1;
    if (r.epochs.size() < need) {
      throw bad(std::string("\"") + unit + "\" needs at least " + std::to_string(need) +
                " runs for an olympic mean, has " + std::to_string(r.epochs.size()));
    }
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<RcpRecord> LoadRcpFile(const std::string& path) {
  const std::string reason = core::NotRegularFileReason(path);
  if (!reason.empty()) throw core::FileError(path, 0, reason);
  return ParseRcpJson(core::ReadFile(path), path);
}

std::string RcpDir() { return core::DataRoot() + "/configs/rcp"; }

std::string RcpFilePath(const std::string& benchmark, const std::string& scale) {
  return RcpDir() + "/" + benchmark + "_" + scale + ".json";
}

int SubmissionRuns(const std::string& log_name, const std::string& scale) {
  if (auto n = OfficialSubmissionRuns(log_name)) return *n;
  for (const auto& def : core::LoadAllBenchmarks(core::BenchmarksDir())) {
    if (def.log_name != log_name) continue;
    auto it = def.scales.find(scale);
    if (it != def.scales.end()) return it->second.runs_per_result;
  }
  throw core::Error("benchmark " + log_name + " (scale " + scale +
                    "): neither the official RCP checker nor a trainbench definition gives its "
                    "submission run count");
}

core::Json BuildRcpJson(const std::vector<LogConvergence>& runs, const RcpOptions& o,
                        std::vector<std::string>* skipped) {
  // (log name, batch size) -> runs, in batch-size order.
  std::map<std::pair<std::string, double>, std::vector<const LogConvergence*>> groups;
  for (const auto& r : runs) {
    if (!r.benchmark) throw core::FileError(r.path, 0, "no submission_benchmark in this log");
    if (!r.bs.is_number() || r.bs == -1) {
      throw core::FileError(r.path, 0, "no global_batch_size in this log");
    }
    if (!r.converged) {
      if (skipped) skipped->push_back(r.path);
      continue;
    }
    groups[{*r.benchmark, r.bs.get<double>()}].push_back(&r);
  }
  core::Json out = core::Json::object();
  for (const auto& [key, group] : groups) {
    const LogConvergence& first = *group.front();
    for (const LogConvergence* r : group) {
      if (r->trainbench_benchmark != first.trainbench_benchmark ||
          r->trainbench_scale != first.trainbench_scale) {
        throw core::FileError(r->path, 0,
                              "benchmark/scale " + r->trainbench_benchmark + "/" +
                                  r->trainbench_scale + " differs from " + first.path + "'s " +
                                  first.trainbench_benchmark + "/" + first.trainbench_scale);
      }
      if (r->hyperparams != first.hyperparams) {
        throw core::FileError(r->path, 0,
                              "hyperparameters differ from " + first.path + "'s (" +
                                  core::JsonFirstDifference(first.hyperparams, r->hyperparams) +
                                  "): one RCP record is one reference configuration");
      }
    }
    if (group.size() < 3) {
      throw core::FileError(first.path, 0,
                            "batch size " + core::PythonJsonDumps(first.bs) + " of " + key.first +
                                " has " + std::to_string(group.size()) +
                                " converged runs; an RCP needs at least 3");
    }
    RcpRecord rec;
    rec.benchmark = key.first;
    rec.bs = key.second;
    core::Json epochs = core::Json::array(), samples = core::Json::array(),
               sources = core::Json::array();
    for (const LogConvergence* r : group) {
      rec.epochs.push_back(r->epochs);
      // Whole numbers are written as integers, as the official files hold them.
      if (r->epochs == static_cast<double>(static_cast<long long>(r->epochs))) {
        epochs.push_back(static_cast<long long>(r->epochs));
      } else {
        epochs.push_back(r->epochs);
      }
      samples.push_back(static_cast<long long>(r->samples));
      sources.push_back(r->path);
    }
    RcpOptions ro = o;
    ro.submission_runs = SubmissionRuns(key.first, first.trainbench_scale);
    ComputeStats(rec, ro);
    const std::string name = key.first + "_ref_" + core::PythonJsonDumps(first.bs);
    core::Json j = core::Json::object();
    j["Benchmark"] = key.first;
    j["Creator"] = "trainbench";
    j["When"] = "trainbench " + first.trainbench_scale + " calibration";
    j["Platform"] = first.platform;
    j["BS"] = first.bs;
    j["Hyperparams"] = first.hyperparams;
    j["Epochs to converge"] = epochs;
    core::Json tb = core::Json::object();
    tb["benchmark"] = first.trainbench_benchmark;
    tb["scale"] = first.trainbench_scale;
    tb["runs"] = sources;
    tb["samples_to_converge"] = samples;
    core::Json stats = core::Json::object();
    stats["runs"] = group.size();
    stats["olympic_mean_epochs"] = rec.mean;
    stats["stdev_epochs"] = rec.stdev;
    stats["submission_runs"] = ro.submission_runs;
    stats["min_epochs"] = rec.min_epochs;
    stats["max_speedup"] = rec.max_speedup;
    tb["stats"] = stats;
    tb["note"] =
        "derived, for readers: the RCP test recomputes them from \"Epochs to converge\" "
        "(olympic mean; population stdev of all runs; min_epochs: the one-sided t-test bound)";
    j["trainbench"] = tb;
    out[name] = j;
  }
  return out;
}

}  // namespace trainbench::rcp

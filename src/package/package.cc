#include "package/package.h"

#include <unistd.h>

#include <filesystem>
#include <map>
#include <sstream>
#include <system_error>

#include "compliance/check_command.h"
#include "compliance/checker.h"
#include "compliance/rules.h"
#include "core/atomic_file.h"
#include "core/benchmark_def.h"
#include "core/error.h"
#include "core/log_reader.h"
#include "package/official_benchmarks.h"
#include "package/system_description.h"
#include "summary/results_scan.h"

namespace trainbench::package {
namespace {

namespace fs = std::filesystem;

struct Run {
  std::string path;     // the source log
  std::string name;     // result_<i>.txt
  std::string content;  // its bytes, as checked
  bool official_pass = true;
  std::string official_first_error;  // "<path>:<line>: <message>" of the first, when failing
};

struct Result {
  std::string system, log_name;
  std::string folder;  // the source folder of its logs
  std::vector<Run> runs;
  std::vector<LogFacts> facts;
};

void CheckComponent(const char* what, const std::string& name) {
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos ||
      name.find('\0') != std::string::npos) {
    throw core::Error(std::string(what) + " \"" + name +
                      "\" must be one folder name (no '/', not '.' or '..')");
  }
}

const compliance::Finding* FirstError(const compliance::CheckReport& r) {
  for (const compliance::Finding& f : r.findings) {
    if (f.severity == compliance::Severity::kError) return &f;
  }
  return nullptr;
}

std::string Describe(const std::string& path, const compliance::Finding* f) {
  if (!f) return path;
  return (f->line_no > 0 ? path + ":" + std::to_string(f->line_no) : path) + ": " + f->message;
}

// The system a log belongs to, from its place below the results folder `dir`:
// DIR/<system>/<benchmark>/result_<i>.txt, or DIR/<benchmark>/result_<i>.txt (DIR is the
// system's folder). Throws core::Error naming the file otherwise.
std::string SystemOf(const std::string& dir, const std::string& file) {
  fs::path rel = fs::path(file).lexically_relative(dir);
  std::vector<std::string> parts(rel.begin(), rel.end());
  if (parts.size() >= 3) return parts[parts.size() - 3];
  if (parts.size() == 2) {
    std::string name = fs::absolute(dir).lexically_normal().filename().string();
    if (name.empty()) name = fs::absolute(dir).lexically_normal().parent_path().filename();
    return name;
  }
  throw core::Error(file +
                    ": no system folder above it (the layout is RESULTS/<system>/<benchmark>/"
                    "result_<i>.txt); name the system with --system");
}

std::string Value(const core::ParsedLog& log, const char* key) {
  const core::LogRecord* r = log.Find(key);
  return r && r->value.is_string() ? r->value.get<std::string>() : "";
}

std::string Join(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

void WriteTree(const std::string& root, const PackageOptions& o,
               const std::map<std::pair<std::string, std::string>, Result>& results,
               const std::map<std::string, core::Json>& systems) {
  for (const auto& [key, r] : results) {
    std::string folder = root + "/" + o.org + "/results/" + r.system + "/" + r.log_name;
    core::MakeDirs(folder);
    for (const Run& run : r.runs) core::WriteFileAtomically(folder + "/" + run.name, run.content);
  }
  core::MakeDirs(root + "/" + o.org + "/systems");
  for (const auto& [system, desc] : systems) {
    core::WriteFileAtomically(root + "/" + o.org + "/systems/" + system + ".json",
                              desc.dump(4) + "\n");
  }
}

using Results = std::map<std::pair<std::string, std::string>, Result>;  // (system, log name)

// The output must be a new or empty folder: package never overwrites.
void CheckOptions(const PackageOptions& o) {
  CheckComponent("--org", o.org);
  if (!o.system.empty()) CheckComponent("--system", o.system);
  if (o.output.empty()) throw core::Error("-o: the output folder is empty");
  std::error_code ec;
  if (fs::exists(o.output, ec) &&
      (!fs::is_directory(o.output, ec) || !fs::is_empty(o.output, ec))) {
    throw core::Error(o.output +
                      ": exists and is not an empty folder; package never overwrites: "
                      "name a new folder");
  }
}

// Every log of the results folders, checked (`trainbench check`'s rules and the official 4.0.0
// ones) and grouped by system and MLLOG benchmark name. A log that fails the check is named on
// `err` and counted in *refused; a layout that cannot be packaged throws core::Error.
Results CollectResults(const PackageOptions& o, const compliance::Ruleset& own,
                       const compliance::Ruleset& official,
                       const std::map<std::string, std::string>& log_names, std::ostream& err,
                       int* refused_out) {
  Results results;
  int refused = 0;
  std::error_code ec;
  for (const std::string& dir : o.results) {
    if (!fs::is_directory(dir, ec)) throw core::Error(dir + ": not a results folder");
    std::vector<std::string> not_regular;
    std::vector<std::string> files = compliance::FindResultFiles(dir, &not_regular);
    if (!not_regular.empty()) throw core::Error(not_regular[0] + ": not a regular file");
    if (files.empty()) throw core::Error(dir + ": no result_<i>.txt below it");
    for (const std::string& file : files) {
      std::string name = fs::path(file).filename().string();
      if (!summary::IsResultFileName(name)) {
        throw core::Error(file + ": not named result_<digits>.txt");
      }
      Run run{file, name, core::ReadFile(file)};
      std::istringstream in(run.content);
      core::ParsedLog log = core::ParseLog(in, file);
      compliance::CheckReport report = compliance::CheckLog(log, own);
      if (!report.passed()) {
        err << "trainbench package: " << Describe(file, FirstError(report))
            << " (fails `trainbench check --ruleset " << o.ruleset << "`: " << report.errors()
            << " errors)\n";
        ++refused;
        continue;
      }
      compliance::CheckReport off = compliance::CheckLog(log, official);
      run.official_pass = off.passed();
      if (!run.official_pass) run.official_first_error = Describe(file, FirstError(off));

      std::string tb = Value(log, "trainbench_benchmark");
      std::string logged = Value(log, "submission_benchmark");
      std::string log_name = logged;
      auto def = log_names.find(tb);
      if (def != log_names.end()) {
        log_name = def->second;
        if (!logged.empty() && logged != log_name) {
          throw core::Error(file + ": submission_benchmark \"" + logged + "\" but " + tb +
                            " is \"" + log_name + "\" in its definition");
        }
      }
      if (log_name.empty()) throw core::Error(file + ": names no benchmark (submission_benchmark)");
      CheckComponent("submission_benchmark", log_name);
      std::string system = o.system.empty() ? SystemOf(dir, file) : o.system;
      CheckComponent("the system", system);

      Result& r = results[{system, log_name}];
      std::string folder = fs::path(file).parent_path().string();
      if (r.folder.empty()) {
        r.system = system;
        r.log_name = log_name;
        r.folder = folder;
      } else if (r.folder != folder) {
        throw core::Error("two results for " + system + "/" + log_name + ": " + r.folder + " and " +
                          folder + "; package one of them (or name another --system)");
      }
      r.facts.push_back(ReadLogFacts(log));
      r.runs.push_back(std::move(run));
    }
  }
  *refused_out = refused;
  return results;
}

// systems/<system>.json for each system, and what the official tools will say about them.
std::map<std::string, core::Json> DescribeSystems(const PackageOptions& o, const Results& results,
                                                  std::vector<std::string>* warnings_out,
                                                  std::vector<std::string>* notes_out) {
  std::vector<std::string>& warnings = *warnings_out;
  std::vector<std::string>& notes = *notes_out;
  // The system descriptions.
  std::map<std::string, DescriptionInput> inputs;
  for (const auto& [key, r] : results) {
    DescriptionInput& in = inputs[r.system];
    in.org = o.org;
    in.system = r.system;
    in.logs.insert(in.logs.end(), r.facts.begin(), r.facts.end());
  }
  std::map<std::string, core::Json> systems;
  for (const auto& [system, in] : inputs) {
    std::vector<std::string> differ;
    core::Json d = DescribeSystem(in, &differ);
    if (!o.system_json.empty()) ApplyOverrides(o.system_json, &d);
    for (const std::string& n : differ) notes.push_back("systems/" + system + ".json: " + n);
    std::vector<std::string> unknown = UnknownFields(d);
    if (!unknown.empty()) {
      notes.push_back("systems/" + system + ".json: " + std::to_string(unknown.size()) + " of " +
                      std::to_string(RequiredFields().size()) +
                      " required fields are \"unknown\" (the logs do not say): " + Join(unknown) +
                      "; give them in --system-json");
    }
    std::vector<std::string> not_int;
    for (const std::string& k : IntegerFields()) {
      const std::string v = d[k].get<std::string>();
      if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos) not_int.push_back(k);
    }
    if (!not_int.empty()) {
      warnings.push_back("systems/" + system + ".json: the official result summarizer reads " +
                         Join(not_int) + (not_int.size() == 1 ? " as an integer" : " as integers") +
                         " and stops on anything else: give it in --system-json");
    }
    if (d["status"] == kUnknown) {
      warnings.push_back("systems/" + system +
                         ".json: status unknown: the official checker "
                         "wants one of \"Available on-premise\", \"Available cloud\", "
                         "\"Research, Development, or Internal (RDI)\", \"Preview\"");
    }
    systems[system] = std::move(d);
  }

  return systems;
}

// What the official package checker will say about each result (counts, benchmarks it skips,
// logs its rules reject).
void JudgeResults(const PackageOptions& o, const Results& results,
                  std::vector<std::string>* warnings_out, std::vector<std::string>* notes_out) {
  std::vector<std::string>& warnings = *warnings_out;
  std::vector<std::string>& notes = *notes_out;
  for (const auto& [key, r] : results) {
    const std::string where = o.org + "/results/" + r.system + "/" + r.log_name;
    const OfficialBenchmark* b = FindOfficialBenchmark(r.log_name);
    if (!b) {
      warnings.push_back(where + ": " + r.log_name + " is no MLPerf Training benchmark");
      continue;
    }
    if (static_cast<int>(r.runs.size()) != b->result_files) {
      warnings.push_back(where + ": " + std::to_string(r.runs.size()) +
                         " result files; the official package checker wants exactly " +
                         std::to_string(b->result_files) + " for " + r.log_name +
                         " and reports an error");
    }
    if (!b->in_training_4_0) {
      warnings.push_back(where + ": MLPerf Training " + kOfficialRuleset + " has no " + r.log_name +
                         ": its package checker skips it (\"Skipping benchmark\")");
      continue;
    }
    int failing = 0;
    std::string first;
    for (const Run& run : r.runs) {
      if (run.official_pass) continue;
      if (failing++ == 0) first = run.official_first_error;
    }
    if (failing > 1) {
      warnings.push_back(where + ": " + std::to_string(failing) + " of " +
                         std::to_string(r.runs.size()) + " logs fail the official " +
                         kOfficialRuleset + " rules (rules/" + kOfficialRuleset +
                         "): the official package checker rejects this result; first: " + first);
    } else if (failing == 1) {
      notes.push_back(where + ": 1 log fails the official " + std::string(kOfficialRuleset) +
                      " rules (accepted under olympic scoring): " + first);
    }
  }
}

// The tree is built beside the output and renamed into place: a failure leaves nothing.
void WriteInPlace(const PackageOptions& o, const Results& results,
                  const std::map<std::string, core::Json>& systems) {
  std::error_code ec;
  fs::path target = fs::absolute(o.output).lexically_normal();
  if (target.filename().empty()) target = target.parent_path();
  if (!target.parent_path().empty()) core::MakeDirs(target.parent_path().string());
  const std::string tmp = target.string() + ".tmp." + std::to_string(::getpid());
  try {
    WriteTree(tmp, o, results, systems);
    fs::rename(tmp, target);
  } catch (const std::exception& e) {
    fs::remove_all(tmp, ec);
    if (dynamic_cast<const core::Error*>(&e)) throw;
    throw core::Error(o.output + ": cannot move the package into place: " + e.what());
  }
}

int Package(const PackageOptions& o, std::ostream& out, std::ostream& err) {
  CheckOptions(o);
  const compliance::Ruleset own = compliance::LoadRuleset(o.rules_dir, o.ruleset);
  const compliance::Ruleset official = compliance::LoadRuleset(o.rules_dir, kOfficialRuleset);
  std::map<std::string, std::string> log_names;  // trainbench name -> MLLOG name
  for (const core::BenchmarkDef& d : core::LoadAllBenchmarks(o.benchmarks_dir)) {
    log_names[d.name] = d.log_name;
  }

  int refused = 0;
  const Results results = CollectResults(o, own, official, log_names, err, &refused);
  if (refused > 0) {
    err << "trainbench package: " << refused
        << " log(s) fail the check; nothing was written (see `trainbench check` for the "
           "report)\n";
    return 2;
  }

  std::vector<std::string> warnings, notes;
  const std::map<std::string, core::Json> systems = DescribeSystems(o, results, &warnings, &notes);
  JudgeResults(o, results, &warnings, &notes);
  WriteInPlace(o, results, systems);
  for (const std::string& n : notes) err << "note: " << n << "\n";
  for (const std::string& w : warnings) err << "warning: " << w << "\n";
  out << "wrote " << o.output << "/" << o.org << ":\n";
  for (const auto& [key, r] : results) {
    out << "  results/" << r.system << "/" << r.log_name << "  " << r.runs.size() << " runs  (from "
        << r.folder << ")\n";
  }
  for (const auto& [system, d] : systems) out << "  systems/" << system << ".json\n";
  out << "official check: python3 -m mlperf_logging.package_checker " << o.output << "/" << o.org
      << " training " << kOfficialRuleset << "\n";
  return 0;
}

}  // namespace

int RunPackageCommand(const PackageOptions& o, std::ostream& out, std::ostream& err) {
  try {
    return Package(o, out, err);
  } catch (const core::Error& e) {
    err << "trainbench package: " << e.what() << "\n";
    return 2;
  }
}

}  // namespace trainbench::package

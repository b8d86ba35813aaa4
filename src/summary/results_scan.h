// Walks a results folder and reads every run log in it. Two layouts are understood, and any
// folder above them may be given:
//   trainbench:       DIR/<system>/<benchmark>/result_<i>.txt
//   published MLPerf: <org>/results/<system>/<benchmark>/result_<i>.txt (v0.5 has one more
//                     level: <org>/<submission>/results/<system>/<benchmark>/result_<i>.txt)
// so DIR may be trainbench's results folder, an org (or v0.5 submission) folder, its results/
// folder, or a folder of orgs. A result file is named result_<digits>.txt; partial files
// (*.part) and atomic-write temporaries (*.tmp.*) are never read. Files that cannot be used are
// reported as skipped, with the reason, never fatal.
#pragma once

#include <string>
#include <vector>

#include "summary/run_result.h"

namespace trainbench::summary {

struct ScanResult {
  std::vector<RunResult> runs;      // sorted by path
  std::vector<FileIssue> skipped;   // result files that could not be used, sorted by path
  std::vector<FileIssue> warnings;  // caveats on used files
};

// Scans `dir` recursively (symlinked directories are not followed). For each run:
//  - benchmark_folder = the file's parent folder name, system = its grandparent's name; when the
//    folder above the system is named "results" and lies inside `dir`, system is prefixed with
//    the folders between `dir` and results/ (or with `dir`'s own name when results/ is directly
//    in it): "<org>/<system>", v0.5 "<org>/<submission>/<system>", so systems of different
//    submissions stay apart (v0.5 Google named several systems "tpu");
//  - division, when the log does not say (legacy logs), comes from the published system
//    description: results/<system>/entry.json (v0.5) or <org>/systems/<system>.json, field
//    "division"; unreadable descriptions are ignored.
// Paths in the result are `dir` + "/" + the path below it.
// Throws core::Error naming `dir` when it does not exist or is not a directory.
ScanResult ScanResults(const std::string& dir);

// True for "result_<digits>.txt".
bool IsResultFileName(const std::string& name);

}  // namespace trainbench::summary

// The runs of one or more results folders with everything the report and the history need:
// the summary library's scan and scores (summary::BuildReport's rules), and per run its curves,
// configuration and provenance (run_details.h) and the SHA-256 of its log file. Files that
// cannot be used are listed as skipped, with the reason, as `summarize` lists them.
#pragma once

#include <string>
#include <vector>

#include "core/benchmark_def.h"
#include "report/run_details.h"
#include "summary/summarize.h"

namespace trainbench::report {

struct LoadedRun {
  summary::RunResult result;  // `system` as shown in the report (see LoadResults)
  std::string found_system;   // the system as the folder layout names it
  size_t dir_index = 0;       // which of the given folders it came from
  std::string content_hash;   // Sha256Hex of the file's bytes
  RunDetails details;
};

struct LoadedResults {
  std::vector<std::string> dirs;
  std::vector<LoadedRun> runs;     // sorted by path within each folder, folders in the given order
  summary::SummaryReport summary;  // scored over all runs; runs carry the shown system names
};

// Scans every folder (summary::ScanResults), reads each usable log again for its details and
// hash, and scores all runs together (summary::Summarize). When several folders are given and
// the same system name appears in more than one, each of those runs is shown as
// "<folder>:<system>" (the folder's base name, or the folder as given when base names repeat)
// so the folders stay side by side instead of being pooled.
// Throws core::Error naming a folder that does not exist; never for a bad file (it is skipped).
LoadedResults LoadResults(const std::vector<std::string>& dirs,
                          const std::vector<core::BenchmarkDef>& defs);

// The run whose log is `path`, or nullptr.
const LoadedRun* FindRun(const LoadedResults& results, const std::string& path);

}  // namespace trainbench::report

// `trainbench check`: checks result logs, or every result_*.txt below results folders, against
// a ruleset and prints a report per log and an overall verdict. The CLI owns the flags and
// passes them here; this function owns the output and the exit code.
#pragma once

#include <iostream>
#include <ostream>
#include <string>
#include <vector>

#include "core/paths.h"

namespace trainbench::compliance {

// trainbench's own ruleset: everything the official 4.0.0 rules check, plus trainbench's
// mini-scale rules.
inline constexpr const char* kDefaultRuleset = "trainbench-1.0";

// Exit codes of RunCheckCommand.
inline constexpr int kExitPass = 0;      // every log passed (warnings allowed)
inline constexpr int kExitFail = 1;      // at least one log failed a rule
inline constexpr int kExitBadInput = 2;  // a missing path, an unknown ruleset, a broken rule
                                         // file, a folder without result files

// Checks each path: a file is checked as a log whatever its name; a folder is searched
// (recursively) for result logs, see FindResultFiles. Writes to `out`, for each log, the report
// of CheckLog (findings with their lines, then "<log>: SUCCESS|FAILED (...)"); when more than one
// log was checked or a folder was given, a last line "overall: SUCCESS|FAILED (...)". A log that
// cannot be read fails alone ("<log>: error: cannot check this log: ..."; the others are still
// checked); entries named like logs that are not regular files are named as skipped. Bad input
// is reported as one "trainbench check: error: ..." line naming the path, ruleset or rule file
// and line, and nothing is checked.
int RunCheckCommand(const std::vector<std::string>& paths,
                    const std::string& ruleset = kDefaultRuleset,
                    const std::string& rules_dir = core::RulesDir(), std::ostream& out = std::cout);

// `trainbench check --rcp`: the RCP test (src/rcp, as mlperf_logging's rcp_checker runs it) of
// each results folder holding result_*.txt files below `paths`: each such folder is one
// submission set. Writes per set a line naming its logs, batch size and epochs to converge and
// the RCP file, then "<folder>: RCP PASSED|FAILED|MISSING: <the official message> (...)", and
// last "overall: ..." Returns kExitPass when every set passed, kExitFail when one failed or had
// no RCP (MISSING), kExitBadInput (one "trainbench check: error:" line) for a missing path, a
// folder without logs, an unknown ruleset, a malformed RCP file or log.
struct RcpCheckOptions {
  std::string rcp_file;           // empty: configs/rcp/<benchmark>_<scale>.json per set
  std::string ruleset = "6.0.0";  // the official RCP ruleset (1.0.0 .. 6.1.0)
  bool pruned = true;             // false: judge against all RCPs (official full_rcps)
  bool bert_train_samples = false;
};
int RunCheckRcpCommand(const std::vector<std::string>& paths, const RcpCheckOptions& o,
                       std::ostream& out = std::cout);

// Every result log below `dir`, sorted: files named result_*.txt, at any depth (the layouts
// DIR/<system>/<benchmark>/result_<i>.txt and <org>/results/<system>/<benchmark>/result_<i>.txt
// both fit). Files being written (".part", ".tmp.*") are skipped. Entries so named that are not
// regular files (a FIFO, a folder, a device) are not returned; when `not_regular` is given they
// are listed there, sorted. Throws core::Error when `dir` cannot be read.
std::vector<std::string> FindResultFiles(const std::string& dir,
                                         std::vector<std::string>* not_regular = nullptr);

}  // namespace trainbench::compliance

// The compliance engine: checks one parsed result log against a Ruleset and returns a report
// of every failed rule (with the log line and the rule-file line) and every warning.
//
// Semantics follow mlcommons/logging's compliance checker (mlp_compliance.py):
//  - Rule files are processed one after another, starting with the ruleset's entry file; a
//    rule's `include` queues another file when a line of its key is met (enqueue_config). Each
//    file makes its own pass over the whole log, in log order.
//  - A rule file that has a rule for a key takes that key over: the errors (and warnings) that
//    files processed before it reported for that key are dropped (the official "overwritable"
//    messages).
//  - Extra occurrences of an EXACTLY_ONE key with the same value are a warning, not an error.
//  - A malformed MLLOG line is an error (the official "Log lines had parsing errors").
//  - With Ruleset::log_sanity (trainbench's rulesets, not the official mirrors), an MLLOG log
//    must also be plausible: every time_ms between 2000-01-01 and 2200-01-01; metadata
//    epoch_num, first_epoch_num and epoch_count whole numbers from 0 to 1e9; no line of the
//    legacy format in it (ParsedLog::other_format_lines); no list or object as the value of an
//    INTERVAL_START/END event. These findings have log_sanity set.
// Threading: CheckLog is a pure function of its arguments.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "compliance/rules.h"
#include "core/log_reader.h"

namespace trainbench::compliance {

enum class Severity { kError, kWarning };

struct Finding {
  Severity severity = Severity::kError;
  std::string key;  // the log key the finding is about ("" for the whole log)
  std::string message;
  int line_no = 0;        // 1-based log line; 0 when it concerns the whole log
  std::string line;       // the raw log line ("" when line_no is 0)
  std::string rule_file;  // e.g. "4.0.0/common.yaml" ("" for findings of no rule file)
  int rule_line = 0;      // line of the rule (or check) in rule_file
  // A finding of trainbench's log sanity checks (Ruleset::log_sanity), not of a rule file: it
  // is stricter than the official checker, and the report says so.
  bool log_sanity = false;
};

struct CheckReport {
  std::string path;                     // the log, as given
  std::string ruleset;                  // the ruleset's name
  std::vector<std::string> rule_files;  // rule files applied, in order ("4.0.0/common.yaml")
  std::vector<Finding> findings;        // sorted by log line; whole-log findings last

  int errors() const;
  int warnings() const;
  bool passed() const { return errors() == 0; }
};

// Checks `log` against `ruleset`. Never throws for anything in the log.
CheckReport CheckLog(const core::ParsedLog& log, const Ruleset& ruleset);

// Reads and checks one log file. Throws core::Error when the file cannot be read.
CheckReport CheckLogFile(const std::string& path, const Ruleset& ruleset);

// "<path>: SUCCESS (0 errors, 1 warning)" or "<path>: FAILED (3 errors, 0 warnings)".
std::string VerdictLine(const CheckReport& report);

// Writes the report: a header naming the ruleset and the rule files applied, one entry per
// finding ("<path>:<line>: error: <message> [<rule file>:<line>]" and the log line indented
// below it), then the verdict line.
void WriteReport(const CheckReport& report, std::ostream& out);

}  // namespace trainbench::compliance

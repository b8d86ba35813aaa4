// Compliance rules as data: the in-memory form of the declarative rule files under rules/
// (the schema is documented in docs/rules.md) and their loader.
//
// A ruleset is a folder rules/<name>/ holding a manifest, ruleset.yaml (description, the
// ruleset it extends, the entry file), and rule files (common.yaml, closed_common.yaml,
// closed_<benchmark>.yaml, ...). A rule file is a list of rules, one per log key: how often the
// key must occur, checks on each of its lines, an optional "at least one line must pass" check
// (the quality target), and an optional include of another rule file named from the line's
// value (how the division and benchmark files get loaded). There is no code and no expression
// language: every check is one of the fixed kinds of CheckKind.
//
// Loading is eager: LoadRuleset parses every rule file of the ruleset and of the rulesets it
// extends, so a broken rule file is reported (file and line) before any log is checked.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/json.h"

namespace trainbench::compliance {

using core::Json;

// The rule-file schema version this loader reads (`schema_version:` in every file).
inline constexpr int kRuleSchemaVersion = 1;

// How often a key must occur in a log (`occurs:`).
enum class Occurs {
  kOptional,      // OPTIONAL: any number of times, including none
  kExactlyOne,    // EXACTLY_ONE
  kAtLeastOne,    // AT_LEAST_ONE
  kAtLeastN,      // AT_LEAST(n)
  kAtLeastOneOr,  // AT_LEAST_ONE_OR(a, b, ...): this key or one of the alternatives at least once
};

// What more than one occurrence of an EXACTLY_ONE key is (`duplicates:`).
enum class Duplicates {
  kSameValue,  // same_value (default, as the official checker): a warning when every occurrence
               // has the same value, else an error
  kSameEvent,  // same_event: a warning when every occurrence has the same value and metadata
               // (metadata file and lineno, where it was logged, aside)
  kError,      // error: always an error
};

// The fixed set of checks a rule can run on each line of its key.
enum class CheckKind {
  kType,            // type: number|integer|string|bool|null|list|object
  kOneOf,           // one_of: [values]
  kNotOneOf,        // not_one_of: [values]
  kRange,           // range: {gt|ge|lt|le: number}; a non-number fails
  kMinLength,       // min_length: n (string, list or object); anything else fails
  kHasMetadata,     // has_metadata: [fields]: every field present
  kHasMetadataAny,  // has_metadata_any: [fields]: at least one present
  kSeenBefore,      // seen_before: [keys]: each key occurred on an earlier line
  kNotSeenBefore,   // not_seen_before: [keys]: none occurred on an earlier line
  kNotSeenAfter,    // not_seen_after: [keys]: none occurs on a later line
  kTimeSinceFirst,  // time_since_first: this line's time minus the earliest earlier line of a
                    // key must stay below a limit (the init-time limit)
  kLength,          // length: n: a string, list or object of exactly n (Python len(v) == n)
  kContains,        // contains: x: an object with the key x, a list with an element equal to x,
                    // or a string with the substring x (Python `x in v`)
  kIsInteger,       // is_integer: {divide_by, log2, add, times}: the official
                    // is_integer(times * (f(v / divide_by) + add)), f = log2 or identity
};

// One check. Value checks (type, one_of, not_one_of, range, min_length, length, contains,
// is_integer) look at `field`.
struct Check {
  CheckKind kind = CheckKind::kType;
  int line = 0;  // line in the rule file
  // "value", "value.<name>" (a field of an object value), "value[<i>]" (an element of a list
  // value) or "metadata.<name>".
  std::string field = "value";
  std::string when_has_metadata;  // non-empty: only lines whose metadata has this field

  std::string type_name;                 // kType
  std::vector<Json> values;              // kOneOf, kNotOneOf
  std::optional<double> gt, ge, lt, le;  // kRange
  int64_t min_length = 0;                // kMinLength
  int64_t length = 0;                    // kLength
  Json contains;                         // kContains
  // kIsInteger: |round(y) - y| < 1e-5 for y = times * (f(v / divide_by) + add), f = log2 when
  // `log2`, computed in that order (as the official Python expressions).
  double divide_by = 1, add = 0, times = 1;
  bool log2 = false;
  std::vector<std::string> names;  // metadata fields or log keys

  // kTimeSinceFirst: (time_ms of this line) - (earliest time_ms of the `since_key` lines
  // before it) must be < the limit. The limit is `limit_minutes`, or, when `limit_key` is
  // set, looked up in `limit_by_value` by the value of the first `limit_key` line before this
  // one (`limit_otherwise` for other values); no such line before this one fails the check.
  std::string since_key;
  std::optional<double> limit_minutes;
  std::string limit_key;
  std::map<std::string, double> limit_by_value;
  std::optional<double> limit_otherwise;

  // A short human description, e.g. `range {ge: 0.759, lt: 1}` or `one_of ["sgd", "lars"]`.
  std::string Describe() const;
};

// `when: {key: run_stop, field: metadata.status, equals: success}`: holds when the first line
// with `key` has `field` equal to `equals`.
struct Condition {
  int line = 0;
  std::string key;
  std::string field = "value";
  Json equals;
};

// `at_least_one:`: when the key occurs, at least one of its lines must pass all `checks`
// (the official ATLEAST_ONE_CHECK; e.g. the quality target). With `when`, only when it holds.
struct AtLeastOne {
  int line = 0;
  std::vector<Check> checks;
  std::optional<Condition> when;
};

// `include:` another rule file of the ruleset when a line of the key is met (the official
// enqueue_config). Either a file-name pattern where "{value}" stands for the line's value
// ("{value}_common.yaml"), or a map from values to file names ({mini: closed_resnet_mini.yaml});
// values the map lacks include nothing.
struct Include {
  int line = 0;
  std::string pattern;
  std::map<std::string, std::string> by_value;

  // The file name to include for `value`: nullopt when nothing is to be included or on an
  // error (then *error says why: a non-scalar value, or a name that is not a plain file name).
  std::optional<std::string> Resolve(const Json& value, std::string* error) const;
};

// Everything a rule file says about one log key.
struct Rule {
  std::string key;
  int line = 0;
  std::string note;  // free text from the rule file, shown with this rule's failures
  Occurs occurs = Occurs::kOptional;
  int at_least = 0;                       // kAtLeastN
  std::vector<std::string> alternatives;  // kAtLeastOneOr
  Duplicates duplicates = Duplicates::kSameValue;
  bool first_only = false;  // checks and include run on the first line of the key only
  // trainbench's own extension: this rule's at_least_one replaces the at_least_one failures
  // that earlier files reported for the key (the official checker never drops those). Lets a
  // per-scale file state its own quality target.
  bool takes_over_target = false;
  std::vector<Check> checks;
  std::optional<AtLeastOne> at_least_one;
  std::optional<Include> include;
};

// One rule file of one ruleset layer.
struct RuleFile {
  std::string name;   // logical name, e.g. "closed_resnet.yaml"
  std::string layer;  // the ruleset folder that holds it, e.g. "4.0.0"
  std::string path;   // path on disk (or the name given to ParseRuleFile)
  std::string description;
  // trainbench's own extension: the base layers' file of the same name is not run (a derived
  // ruleset whose benchmark of that name is another one than its base's).
  bool replaces_base = false;
  std::vector<Rule> rules;

  std::string DisplayName() const { return layer + "/" + name; }
  const Rule* Find(const std::string& key) const;
};

struct Ruleset {
  std::string name;
  std::string dir;  // rules/<name>
  std::string description;
  std::string entry = "common.yaml";
  // `log_sanity: true` in the manifest (the nearest layer that says, else false): trainbench's
  // own checks that an MLLOG log is plausible at all (times, epoch numbers, one format, interval
  // values), which the official checkers lack; see CheckLog. The official mirrors leave it
  // off, so they keep the official verdicts.
  bool log_sanity = false;
  std::vector<std::string> layers;  // rulesets this one is made of, the base first, itself last
  // Logical file name -> that file in each layer that has it, base layer first.
  std::map<std::string, std::vector<RuleFile>> files;

  // nullptr when no layer has a file of that name.
  const std::vector<RuleFile>* Find(const std::string& file_name) const;
};

// Parses one rule file's text. `path` names the file in messages; `name` and `layer` fill the
// RuleFile. Throws core::Error "<path>:<line>: ..." for bad YAML or anything the schema does
// not allow (an unknown field, an unknown check, a malformed `occurs`, ...).
RuleFile ParseRuleFile(const std::string& text, const std::string& path, const std::string& name,
                       const std::string& layer);

// Loads rules/<name> and every ruleset it extends. Throws core::Error: for an unknown ruleset
// (naming the rulesets there are), a bad manifest or rule file (file and line), an extends
// cycle, or a map-form include naming a file that no layer has.
Ruleset LoadRuleset(const std::string& rules_dir, const std::string& name);

// Names of the folders under `rules_dir` that hold a ruleset.yaml, sorted.
std::vector<std::string> ListRulesets(const std::string& rules_dir);

// True for a plain rule-file name: [A-Za-z0-9_.-]+, not starting with '.', ending in ".yaml".
bool IsPlainRuleFileName(const std::string& name);

// True for a check's field: "value", "value.<name>", "value[<index>]", "metadata.<name>".
bool IsFieldPath(const std::string& field);

// A number as people write it in messages: "30", "0.759", "1e-05".
std::string FormatNumber(double v);

}  // namespace trainbench::compliance

#include "compliance/checker.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <sstream>

namespace trainbench::compliance {

namespace {

std::string Quote(const std::string& s) { return "\"" + s + "\""; }

// A value as JSON text for messages. The log reader keeps only UTF-8 text, but a message must
// never be where a check throws: a stray byte would become U+FFFD, not a type_error.
std::string DumpJson(const Json& v) {
  return v.dump(-1, ' ', false, Json::error_handler_t::replace);
}

// "a string", "an integer", ... for messages.
std::string TypeOf(const Json& v) {
  if (v.is_null()) return "null";
  if (v.is_boolean()) return "a bool";
  if (v.is_number_integer()) return "an integer";
  if (v.is_number()) return "a number";
  if (v.is_string()) return "a string";
  if (v.is_array()) return "a list";
  return "an object";
}

std::string Article(const std::string& type_name) {
  if (type_name == "null") return "null";
  if (type_name == "integer" || type_name == "object") return "an " + type_name;
  return "a " + type_name;
}

bool TypeMatches(const std::string& type_name, const Json& v) {
  if (type_name == "number") return v.is_number();
  if (type_name == "integer") return v.is_number_integer();
  if (type_name == "string") return v.is_string();
  if (type_name == "bool") return v.is_boolean();
  if (type_name == "null") return v.is_null();
  if (type_name == "list") return v.is_array();
  if (type_name == "object") return v.is_object();
  return false;
}

// The field a check looks at (rules.h, Check::field); nullptr when the line has none (the
// official Python expression would raise: KeyError, IndexError, TypeError).
const Json* FieldOf(const core::LogRecord& r, const std::string& field) {
  if (field == "value") return &r.value;
  const std::string md = "metadata.";
  if (field.rfind(md, 0) == 0) {
    if (!r.metadata.is_object()) return nullptr;
    auto it = r.metadata.find(field.substr(md.size()));
    return it == r.metadata.end() ? nullptr : &*it;
  }
  const std::string member = "value.";
  if (field.rfind(member, 0) == 0) {
    if (!r.value.is_object()) return nullptr;
    auto it = r.value.find(field.substr(member.size()));
    return it == r.value.end() ? nullptr : &*it;
  }
  // value[<i>]
  if (!r.value.is_array()) return nullptr;
  size_t i = std::stoul(field.substr(6, field.size() - 7));
  return i < r.value.size() ? &r.value[i] : nullptr;
}

// A number as Python sees it in a comparison: bools are 0 and 1.
std::optional<double> PyNumber(const Json& v) {
  if (v.is_boolean()) return v.get<bool>() ? 1.0 : 0.0;
  if (v.is_number()) return v.get<double>();
  return std::nullopt;
}

// Python's ==: numbers (and bools) by value, containers element by element.
bool PyEqual(const Json& a, const Json& b) {
  auto x = PyNumber(a), y = PyNumber(b);
  if (x && y) return *x == *y;
  if (x || y) return false;
  if (a.is_array() && b.is_array()) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      if (!PyEqual(a[i], b[i])) return false;
    }
    return true;
  }
  if (a.is_object() && b.is_object()) {
    if (a.size() != b.size()) return false;
    for (auto it = a.begin(); it != a.end(); ++it) {
      auto jt = b.find(it.key());
      if (jt == b.end() || !PyEqual(it.value(), *jt)) return false;
    }
    return true;
  }
  return a == b;
}

// The text a value stands for in a lookup table: strings as they are, other scalars as JSON.
std::string LookupText(const Json& v) { return v.is_string() ? v.get<std::string>() : DumpJson(v); }

std::string LineList(const std::vector<const core::LogRecord*>& recs) {
  std::ostringstream os;
  size_t shown = std::min<size_t>(recs.size(), 5);
  for (size_t i = 0; i < shown; ++i) os << (i ? ", " : "") << recs[i]->line_no;
  if (recs.size() > shown) os << ", ...";
  return os.str();
}

// The metadata that describes the event: all but where it was logged (file, lineno).
Json EventMetadata(const core::LogRecord& r) {
  Json md = r.metadata;
  md.erase("file");
  md.erase("lineno");
  return md;
}

std::string Plural(int n, const char* word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

// The plausible times of an MLLOG event (log sanity): 2000-01-01 and 2200-01-01 UTC in ms since
// the Unix epoch. Loggers write the wall clock; anything outside is a broken clock or an edit.
constexpr double kEarliestPlausibleMs = 946684800000.0;
constexpr double kLatestPlausibleMs = 7258118400000.0;
// The largest epoch number log sanity accepts: runs take at most thousands of epochs.
constexpr double kMaxEpochNumber = 1e9;

struct Queued {
  std::string file;
  std::string origin;  // what asked for it: "submission_division = \"closed\""
  const core::LogRecord* trigger = nullptr;
  std::string includer;
  int include_line = 0;
};

class Engine {
 public:
  Engine(const core::ParsedLog& log, const Ruleset& rs, CheckReport* report)
      : log_(log), rs_(rs), report_(report) {
    for (const auto& r : log_.records) by_key_[r.key].push_back(&r);
  }

  void Run() {
    for (const auto& e : log_.errors) {
      Finding f;
      f.message = "malformed log line: " + e.message;
      f.line_no = e.line_no;
      f.line = e.line;
      Add(std::move(f), /*overridable=*/false);
    }
    if (rs_.log_sanity && log_.format == core::LogFormat::kMllog) CheckSanity();
    if (log_.format == core::LogFormat::kLegacyV05) {
      Finding f;
      f.message = "this is a legacy MLPerf v0.5 log (:::MLPv0.5.0 lines); ruleset " + rs_.name +
                  " checks MLLOG logs";
      Add(std::move(f), false);
      Finish();
      return;
    }
    if (log_.records.empty()) {
      Finding f;
      f.message = "no valid MLLOG line in the log";
      Add(std::move(f), false);
      Finish();
      return;
    }
    Enqueue(Queued{rs_.entry, "", nullptr, "", 0});
    while (!queue_.empty()) {
      Queued q = queue_.front();
      queue_.pop_front();
      const std::vector<RuleFile>* layers = rs_.Find(q.file);
      if (!layers) {
        Finding f;
        f.key = q.trigger ? q.trigger->key : "";
        f.message = "no rule file " + Quote(q.file) + " in ruleset " + rs_.name +
                    " to include for " + q.origin;
        if (q.trigger) {
          f.line_no = q.trigger->line_no;
          f.line = q.trigger->line;
        }
        f.rule_file = q.includer;
        f.rule_line = q.include_line;
        Add(std::move(f), false);
        continue;
      }
      for (const auto& file : *layers) RunFile(file);
    }
    Finish();
  }

 private:
  enum class Outcome { kPass, kFail, kTypeError, kSkip };

  // What may drop a finding later: a file that takes its key over (overridable: the official
  // keyed messages), or only a rule with takes_over_target (target: at_least_one failures, which
  // the official checker never drops), or nothing (neither).
  struct Entry {
    Finding finding;
    bool overridable;
    bool target = false;
  };

  void Add(Finding f, bool overridable, bool target = false) {
    entries_.push_back({std::move(f), overridable, target});
  }

  static Finding MakeFinding(Severity severity, const RuleFile& file, int rule_line,
                             const std::string& key, const std::string& message,
                             const core::LogRecord* rec) {
    Finding f;
    f.severity = severity;
    f.key = key;
    f.message = message;
    if (rec) {
      f.line_no = rec->line_no;
      f.line = rec->line;
    }
    f.rule_file = file.DisplayName();
    f.rule_line = rule_line;
    return f;
  }

  enum class Kind { kKeyed, kTarget, kFixed };

  void AddSanityError(const std::string& key, const std::string& message, int line_no,
                      const std::string& line) {
    Finding f;
    f.key = key;
    f.message = message;
    f.line_no = line_no;
    f.line = line;
    f.log_sanity = true;
    Add(std::move(f), /*overridable=*/false);
  }

  // trainbench's log sanity checks (Ruleset::log_sanity): what no rule file can say, because
  // the official checkers, whose rules they mirror, accept it. A time of -1e29 or 1.8e19 ms, an
  // epoch 1e308, a spliced-in line of the other format and a list as an interval's value all
  // passed `check` and then broke the readers of the log (NaN run times, casts).
  void CheckSanity() {
    for (const auto& o : log_.other_format_lines) {
      AddSanityError("", o.message + "; the official checker ignores it", o.line_no, o.line);
    }
    for (const auto& r : log_.records) {
      if (!(r.time_ms >= kEarliestPlausibleMs && r.time_ms < kLatestPlausibleMs)) {
        AddSanityError(r.key,
                       r.key + ": time_ms " + core::PythonFloatRepr(r.time_ms) +
                           " is not a time between 2000-01-01 and 2200-01-01 (ms since 1970)",
                       r.line_no, r.line);
      }
      for (const char* field : {"epoch_num", "first_epoch_num", "epoch_count"}) {
        auto it = r.metadata.find(field);
        if (it == r.metadata.end()) continue;
        const std::optional<double> v =
            it->is_number() ? std::optional<double>(it->get<double>()) : std::nullopt;
        if (!v || !(*v >= 0 && *v <= kMaxEpochNumber) || std::nearbyint(*v) != *v) {
          AddSanityError(r.key,
                         r.key + ": metadata." + field + " " + DumpJson(*it) +
                             " is not a whole number from 0 to " + FormatNumber(kMaxEpochNumber),
                         r.line_no, r.line);
        }
      }
      if ((r.type == core::EventType::kIntervalStart || r.type == core::EventType::kIntervalEnd) &&
          (r.value.is_array() || r.value.is_object())) {
        AddSanityError(r.key,
                       r.key + ": the value of an interval event is " + TypeOf(r.value) +
                           "; it marks a time and holds null or a single number, string or bool",
                       r.line_no, r.line);
      }
    }
  }

  void AddError(const RuleFile& file, int rule_line, const std::string& key,
                const std::string& message, const core::LogRecord* rec, const Rule* rule,
                Kind kind = Kind::kKeyed) {
    Finding f = MakeFinding(Severity::kError, file, rule_line, key, message, rec);
    if (rule && !rule->note.empty()) f.message += " (" + rule->note + ")";
    Add(std::move(f), kind == Kind::kKeyed, kind == Kind::kTarget);
  }

  // One warning per key, as the official checker: a later one replaces an earlier one. A file
  // that takes a key over also drops its earlier warnings (it judges the key anew).
  void AddWarning(const RuleFile& file, int rule_line, const std::string& key,
                  const std::string& message, const core::LogRecord* rec) {
    entries_.erase(std::remove_if(entries_.begin(), entries_.end(),
                                  [&](const Entry& e) {
                                    return e.finding.severity == Severity::kWarning &&
                                           e.finding.key == key;
                                  }),
                   entries_.end());
    Add(MakeFinding(Severity::kWarning, file, rule_line, key, message, rec), true);
  }

  void Enqueue(Queued q) {
    if (!queued_.insert(q.file).second) return;
    queue_.push_back(std::move(q));
  }

  const std::vector<const core::LogRecord*>& Lines(const std::string& key) const {
    static const std::vector<const core::LogRecord*> kNone;
    auto it = by_key_.find(key);
    return it == by_key_.end() ? kNone : it->second;
  }

  // Index of a record in log order (records are stored contiguously).
  size_t Index(const core::LogRecord* r) const {
    return static_cast<size_t>(r - log_.records.data());
  }

  // The official is_integer(times * (f(x / divide_by) + add)): |round(y) - y| < 1e-5; a value
  // Python cannot take the log of or round (<= 0 under log2, inf, nan) is an error there.
  static Outcome IsInteger(const Check& c, double x, const std::string& what, std::string* why) {
    double y = x / c.divide_by;
    if (c.log2) {
      if (!(y > 0)) {
        *why = what + ": log2 of " + FormatNumber(y) + " is undefined";
        return Outcome::kTypeError;
      }
      y = std::log2(y);
    }
    y = c.times * (y + c.add);
    if (!std::isfinite(y)) {
      *why = what + ": " + c.Describe() + " is not finite";
      return Outcome::kTypeError;
    }
    if (std::fabs(std::nearbyint(y) - y) < 0.00001) return Outcome::kPass;
    *why = what + ": " + c.Describe() + " = " + FormatNumber(y) + " is not an integer";
    return Outcome::kFail;
  }

  // Python's `x in v`: a key of an object, an element of a list, a substring of a string.
  static Outcome Contains(const Check& c, const Json& v, const std::string& what,
                          std::string* why) {
    bool in = false;
    if (v.is_object()) {
      if (!c.contains.is_string()) {
        *why =
            what + " is an object, whose keys are strings; " + DumpJson(c.contains) + " is not one";
        return Outcome::kFail;
      }
      in = v.contains(c.contains.get<std::string>());
    } else if (v.is_array()) {
      in = std::any_of(v.begin(), v.end(), [&](const Json& e) { return PyEqual(e, c.contains); });
    } else if (v.is_string()) {
      if (!c.contains.is_string()) {
        *why = what + " is a string; only a string can be looked for in it";
        return Outcome::kTypeError;
      }
      in = v.get_ref<const std::string&>().find(c.contains.get<std::string>()) != std::string::npos;
    } else {
      *why = what + " is " + TypeOf(v) + ", which contains nothing";
      return Outcome::kTypeError;
    }
    if (in) return Outcome::kPass;
    *why = what + " does not contain " + DumpJson(c.contains);
    return Outcome::kFail;
  }

  Outcome Evaluate(const Check& c, const core::LogRecord& rec, std::string* why) const {
    if (!c.when_has_metadata.empty() && !rec.metadata.contains(c.when_has_metadata)) {
      return Outcome::kSkip;
    }
    const size_t here = Index(&rec);
    switch (c.kind) {
      case CheckKind::kType:
      case CheckKind::kOneOf:
      case CheckKind::kNotOneOf:
      case CheckKind::kRange:
      case CheckKind::kMinLength:
      case CheckKind::kLength:
      case CheckKind::kContains:
      case CheckKind::kIsInteger: {
        const Json* v = FieldOf(rec, c.field);
        if (!v) {
          *why = c.field + " is missing";
          return Outcome::kTypeError;
        }
        const std::string what = c.field + " " + DumpJson(*v);
        if (c.kind == CheckKind::kType) {
          if (TypeMatches(c.type_name, *v)) return Outcome::kPass;
          *why = what + " is " + TypeOf(*v) + ", not " + Article(c.type_name);
          return Outcome::kFail;
        }
        if (c.kind == CheckKind::kOneOf || c.kind == CheckKind::kNotOneOf) {
          bool in = std::any_of(c.values.begin(), c.values.end(),
                                [&](const Json& a) { return PyEqual(a, *v); });
          if (in == (c.kind == CheckKind::kOneOf)) return Outcome::kPass;
          std::string set;
          for (size_t i = 0; i < c.values.size(); ++i) {
            set += (i ? ", " : "") + DumpJson(c.values[i]);
          }
          *why = what + (in ? " is not allowed (not one of [" : " is not one of [") + set + "]" +
                 (in ? ")" : "");
          return Outcome::kFail;
        }
        if (c.kind == CheckKind::kRange || c.kind == CheckKind::kIsInteger) {
          std::optional<double> number = PyNumber(*v);
          if (!number) {
            *why = what + " is " + TypeOf(*v) + ", not a number";
            return Outcome::kTypeError;
          }
          double x = *number;
          if (c.kind == CheckKind::kIsInteger) return IsInteger(c, x, what, why);
          auto bad = [&](const char* op, double bound) {
            *why = what + " is not " + op + " " + FormatNumber(bound);
            return Outcome::kFail;
          };
          if (c.gt && !(x > *c.gt)) return bad(">", *c.gt);
          if (c.ge && !(x >= *c.ge)) return bad(">=", *c.ge);
          if (c.lt && !(x < *c.lt)) return bad("<", *c.lt);
          if (c.le && !(x <= *c.le)) return bad("<=", *c.le);
          return Outcome::kPass;
        }
        if (c.kind == CheckKind::kContains) return Contains(c, *v, what, why);
        // kMinLength, kLength. A string's length is in bytes: the official parser reads logs
        // as latin-1, one character per byte.
        if (!v->is_string() && !v->is_array() && !v->is_object()) {
          *why = what + " is " + TypeOf(*v) + ", which has no length";
          return Outcome::kTypeError;
        }
        int64_t len = v->is_string() ? static_cast<int64_t>(v->get_ref<const std::string&>().size())
                                     : static_cast<int64_t>(v->size());
        if (c.kind == CheckKind::kLength) {
          if (len == c.length) return Outcome::kPass;
          *why = what + " has length " + std::to_string(len) + ", not " + std::to_string(c.length);
          return Outcome::kFail;
        }
        if (len >= c.min_length) return Outcome::kPass;
        *why = what + " has length " + std::to_string(len) + ", less than " +
               std::to_string(c.min_length);
        return Outcome::kFail;
      }
      case CheckKind::kHasMetadata: {
        std::string missing;
        for (const auto& n : c.names) {
          if (!rec.metadata.contains(n)) missing += (missing.empty() ? "" : ", ") + Quote(n);
        }
        if (missing.empty()) return Outcome::kPass;
        *why = "metadata lacks " + missing;
        return Outcome::kFail;
      }
      case CheckKind::kHasMetadataAny: {
        std::string names;
        for (const auto& n : c.names) {
          if (rec.metadata.contains(n)) return Outcome::kPass;
          names += (names.empty() ? "" : " or ") + Quote(n);
        }
        *why = "metadata has neither " + names;
        if (c.names.size() == 1) *why = "metadata lacks " + names;
        return Outcome::kFail;
      }
      case CheckKind::kSeenBefore: {
        for (const auto& n : c.names) {
          const auto& lines = Lines(n);
          if (lines.empty() || Index(lines.front()) >= here) {
            *why = "no " + n + " before this " + rec.key;
            return Outcome::kFail;
          }
        }
        return Outcome::kPass;
      }
      case CheckKind::kNotSeenBefore: {
        for (const auto& n : c.names) {
          const auto& lines = Lines(n);
          if (!lines.empty() && Index(lines.front()) < here) {
            *why = rec.key + " must come before " + n + ", which is logged earlier, at line " +
                   std::to_string(lines.front()->line_no);
            return Outcome::kFail;
          }
        }
        return Outcome::kPass;
      }
      case CheckKind::kNotSeenAfter: {
        for (const auto& n : c.names) {
          for (const auto* r : Lines(n)) {
            if (Index(r) > here) {
              *why = n + " is logged after this " + rec.key + ", at line " +
                     std::to_string(r->line_no);
              return Outcome::kFail;
            }
          }
        }
        return Outcome::kPass;
      }
      case CheckKind::kTimeSinceFirst: {
        const core::LogRecord* first = nullptr;
        for (const auto* r : Lines(c.since_key)) {
          if (Index(r) >= here) break;
          if (!first || r->time_ms < first->time_ms) first = r;
        }
        if (!first) return Outcome::kPass;  // the order checks report a missing start
        double limit = 0;
        std::string limit_text;
        if (c.limit_minutes) {
          limit = *c.limit_minutes;
        } else {
          const auto& by = Lines(c.limit_key);
          if (by.empty() || Index(by.front()) >= here) {
            // As the official checker: the limit stays 0 until the key that sets it is met.
            double elapsed_ms = rec.time_ms - first->time_ms;
            if (elapsed_ms < 0) return Outcome::kPass;
            *why = "the limit on the time since " + c.since_key + " depends on " + c.limit_key +
                   ", which is not logged before this " + rec.key + " (it must come first)";
            return Outcome::kFail;
          }
          std::string text = LookupText(by.front()->value);
          auto it = c.limit_by_value.find(text);
          if (it != c.limit_by_value.end()) {
            limit = it->second;
          } else if (c.limit_otherwise) {
            limit = *c.limit_otherwise;
          } else {
            *why = "no limit on the time since " + c.since_key + " for " + c.limit_key + " = " +
                   DumpJson(by.front()->value);
            return Outcome::kFail;
          }
          limit_text = " for " + c.limit_key + " = " + DumpJson(by.front()->value);
        }
        double elapsed_ms = rec.time_ms - first->time_ms;
        if (elapsed_ms < limit * 60.0 * 1000.0) return Outcome::kPass;
        char minutes[32];
        std::snprintf(minutes, sizeof(minutes), "%.2f", elapsed_ms / 60000.0);
        *why = rec.key + " is " + FormatNumber(elapsed_ms) + " ms (" + minutes +
               " min) after the first " + c.since_key + " (line " + std::to_string(first->line_no) +
               "); the limit is " + FormatNumber(limit) + " min" + limit_text;
        return Outcome::kFail;
      }
    }
    return Outcome::kPass;
  }

  bool ConditionHolds(const Condition& c) const {
    const auto& lines = Lines(c.key);
    if (lines.empty()) return false;
    const Json* v = FieldOf(*lines.front(), c.field);
    return v && *v == c.equals;
  }

  void RunFile(const RuleFile& file) {
    report_->rule_files.push_back(file.DisplayName());
    // This file takes over the keys it has rules for.
    std::set<std::string> keys, targets;
    for (const auto& r : file.rules) {
      keys.insert(r.key);
      if (r.takes_over_target) targets.insert(r.key);
    }
    entries_.erase(std::remove_if(entries_.begin(), entries_.end(),
                                  [&](const Entry& e) {
                                    return (e.overridable && keys.count(e.finding.key) > 0) ||
                                           (e.target && targets.count(e.finding.key) > 0);
                                  }),
                   entries_.end());

    // Line checks and includes, in log order.
    std::map<const Rule*, int> seen;
    for (const auto& rec : log_.records) {
      const Rule* rule = file.Find(rec.key);
      if (!rule) continue;
      if (++seen[rule] > 1 && rule->first_only) continue;
      for (const auto& check : rule->checks) {
        std::string why;
        Outcome o = Evaluate(check, rec, &why);
        if (o == Outcome::kFail || o == Outcome::kTypeError) {
          AddError(file, check.line, rule->key, rule->key + ": " + why, &rec, rule);
        }
      }
      if (rule->include) {
        std::string error;
        std::optional<std::string> target = rule->include->Resolve(rec.value, &error);
        if (!error.empty()) {
          AddError(file, rule->include->line, rule->key,
                   rule->key + ": cannot include a rule file: " + error, &rec, rule);
        } else if (target) {
          Enqueue(Queued{*target, rule->key + " = " + DumpJson(rec.value), &rec, file.DisplayName(),
                         rule->include->line});
        }
      }
    }

    // Whole-log requirements, in rule order.
    std::set<std::set<std::string>> alternatives_done;
    for (const auto& rule : file.rules) {
      const auto& lines = Lines(rule.key);
      if (rule.at_least_one && !lines.empty() &&
          (!rule.at_least_one->when || ConditionHolds(*rule.at_least_one->when))) {
        CheckAtLeastOne(file, rule, lines);
      }
      CheckOccurs(file, rule, lines, &alternatives_done);
    }
  }

  void CheckAtLeastOne(const RuleFile& file, const Rule& rule,
                       const std::vector<const core::LogRecord*>& lines) {
    const AtLeastOne& a = *rule.at_least_one;
    std::string describe;
    for (const auto& c : a.checks) describe += (describe.empty() ? "" : " and ") + c.Describe();
    // Each line's checks run in order and stop at the first that fails, as the official
    // `a and b and ...`; a check Python could not evaluate (a string compared with a number, a
    // missing field) is an error of its own: there the official checker stops with an
    // exception, failing the log whatever the other lines hold.
    bool any = false;
    for (const auto* rec : lines) {
      bool all = true;
      for (const auto& c : a.checks) {
        std::string why;
        Outcome o = Evaluate(c, *rec, &why);
        if (o == Outcome::kTypeError) {
          AddError(file, c.line, rule.key,
                   rule.key + ": cannot check " + c.Describe() + ": " + why +
                       " (the official checker stops with an exception here)",
                   rec, &rule, Kind::kTarget);
        }
        if (o == Outcome::kFail || o == Outcome::kTypeError) {
          all = false;
          break;
        }
      }
      any = any || all;
    }
    if (any) return;
    std::string values;
    for (size_t i = 0; i < lines.size() && i < 5; ++i) {
      values += (i ? ", " : "") + DumpJson(lines[i]->value) + " (line " +
                std::to_string(lines[i]->line_no) + ")";
    }
    if (lines.size() > 5) values += ", ... " + std::to_string(lines.size() - 5) + " more";
    AddError(file, a.line, rule.key,
             rule.key + ": no line passes " + describe + "; values: " + values, lines.back(), &rule,
             Kind::kTarget);
  }

  void CheckOccurs(const RuleFile& file, const Rule& rule,
                   const std::vector<const core::LogRecord*>& lines,
                   std::set<std::set<std::string>>* alternatives_done) {
    const int n = static_cast<int>(lines.size());
    const std::string key = Quote(rule.key);
    switch (rule.occurs) {
      case Occurs::kOptional:
        return;
      case Occurs::kExactlyOne: {
        if (n == 0) {
          AddError(file, rule.line, rule.key, key + " is required exactly once but is missing",
                   nullptr, &rule);
          return;
        }
        if (n == 1) return;
        bool same = rule.duplicates != Duplicates::kError;
        for (const auto* r : lines) {
          if (!same) break;
          same = r->value == lines.front()->value &&
                 (rule.duplicates != Duplicates::kSameEvent ||
                  EventMetadata(*r) == EventMetadata(*lines.front()));
        }
        const std::string where =
            key + " occurs " + std::to_string(n) + " times (lines " + LineList(lines) + ")";
        if (same) {
          AddWarning(
              file, rule.line, rule.key,
              where + ", all with the same " +
                  (rule.duplicates == Duplicates::kSameEvent ? "value and metadata" : "value") +
                  "; expected exactly once (duplicates such as several ranks logging the "
                  "same event are a warning)",
              lines[1]);
          return;
        }
        std::string detail;
        if (rule.duplicates == Duplicates::kSameValue) {
          std::vector<std::string> distinct;
          for (const auto* r : lines) {
            std::string d = DumpJson(r->value);
            if (std::find(distinct.begin(), distinct.end(), d) == distinct.end()) {
              distinct.push_back(d);
            }
          }
          detail = " with different values: ";
          for (size_t i = 0; i < distinct.size(); ++i) detail += (i ? ", " : "") + distinct[i];
        } else if (rule.duplicates == Duplicates::kSameEvent) {
          detail = " with different values or metadata";
        }
        AddError(file, rule.line, rule.key, where + detail + "; expected exactly once", lines[1],
                 &rule);
        return;
      }
      case Occurs::kAtLeastOne:
        if (n == 0) {
          AddError(file, rule.line, rule.key, key + " is required at least once but is missing",
                   nullptr, &rule);
        }
        return;
      case Occurs::kAtLeastN:
        if (n < rule.at_least) {
          AddError(file, rule.line, rule.key,
                   key + " is required at least " + std::to_string(rule.at_least) +
                       " times but occurs " + std::to_string(n) + " times",
                   nullptr, &rule);
        }
        return;
      case Occurs::kAtLeastOneOr: {
        std::set<std::string> group(rule.alternatives.begin(), rule.alternatives.end());
        group.insert(rule.key);
        if (!alternatives_done->insert(group).second) return;
        for (const auto& k : group) {
          if (!Lines(k).empty()) return;
        }
        std::string names;
        size_t i = 0;
        for (const auto& k : group) {
          names += (i == 0 ? "" : (i + 1 == group.size() ? " or " : ", ")) + Quote(k);
          ++i;
        }
        AddError(file, rule.line, rule.key, names + " is required at least once; none is logged",
                 nullptr, &rule, Kind::kFixed);
        return;
      }
    }
  }

  void Finish() {
    report_->findings.clear();
    for (auto& e : entries_) report_->findings.push_back(std::move(e.finding));
    std::stable_sort(report_->findings.begin(), report_->findings.end(),
                     [](const Finding& a, const Finding& b) {
                       int la = a.line_no > 0 ? a.line_no : INT_MAX;
                       int lb = b.line_no > 0 ? b.line_no : INT_MAX;
                       return la < lb;
                     });
  }

  const core::ParsedLog& log_;
  const Ruleset& rs_;
  CheckReport* report_;
  std::map<std::string, std::vector<const core::LogRecord*>> by_key_;
  std::deque<Queued> queue_;
  std::set<std::string> queued_;
  std::vector<Entry> entries_;
};

}  // namespace

int CheckReport::errors() const {
  return static_cast<int>(std::count_if(findings.begin(), findings.end(), [](const Finding& f) {
    return f.severity == Severity::kError;
  }));
}

int CheckReport::warnings() const { return static_cast<int>(findings.size()) - errors(); }

CheckReport CheckLog(const core::ParsedLog& log, const Ruleset& ruleset) {
  CheckReport report;
  report.path = log.path;
  report.ruleset = ruleset.name;
  Engine(log, ruleset, &report).Run();
  return report;
}

CheckReport CheckLogFile(const std::string& path, const Ruleset& ruleset) {
  return CheckLog(core::ReadLogFile(path), ruleset);
}

std::string VerdictLine(const CheckReport& report) {
  return report.path + ": " + (report.passed() ? "SUCCESS" : "FAILED") + " (" +
         Plural(report.errors(), "error") + ", " + Plural(report.warnings(), "warning") + ")";
}

void WriteReport(const CheckReport& report, std::ostream& out) {
  out << "checking " << report.path << " against ruleset " << report.ruleset << "\n";
  if (!report.rule_files.empty()) {
    out << "  rule files:";
    for (size_t i = 0; i < report.rule_files.size(); ++i) {
      out << (i ? ", " : " ") << report.rule_files[i];
    }
    out << "\n";
  }
  for (const auto& f : report.findings) {
    out << report.path;
    if (f.line_no > 0) out << ":" << f.line_no;
    out << ": " << (f.severity == Severity::kError ? "error" : "warning") << ": " << f.message;
    if (f.log_sanity) {
      out << " [trainbench log sanity, not an official rule]";
    } else if (!f.rule_file.empty()) {
      out << " [" << f.rule_file;
      if (f.rule_line > 0) out << ":" << f.rule_line;
      out << "]";
    }
    out << "\n";
    if (!f.line.empty()) out << "    " << f.line << "\n";
  }
  out << VerdictLine(report) << "\n";
}

}  // namespace trainbench::compliance

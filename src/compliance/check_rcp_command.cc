#include <cstdio>
#include <filesystem>
#include <map>

#include "compliance/check_command.h"
#include "core/error.h"
#include "core/json.h"
#include "rcp/rcp_check.h"

namespace trainbench::compliance {

namespace fs = std::filesystem;

namespace {

std::string Fmt(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4f", v);
  return buf;
}

std::string EpochList(const std::vector<rcp::LogConvergence>& logs) {
  std::string s = "[";
  for (size_t i = 0; i < logs.size(); ++i) {
    if (i) s += ", ";
    s += logs[i].converged ? core::PythonJsonDumps(core::Json(logs[i].epochs)) : "not converged";
  }
  return s + "]";
}

}  // namespace

int RunCheckRcpCommand(const std::vector<std::string>& paths, const RcpCheckOptions& o,
                       std::ostream& out) {
  auto bad = [&](const std::string& m) {
    out << "trainbench check: error: " << m << "\n";
    return kExitBadInput;
  };
  if (paths.empty()) return bad("no results folder given");
  if (!rcp::IsKnownRuleset(o.ruleset)) {
    return bad("unknown RCP ruleset " + o.ruleset + " (the official checker knows 1.0.0 .. 6.1.0)");
  }
  // Each folder holding result logs is one set, as the official checker globs
  // <folder>/result_*.txt.
  std::map<std::string, std::vector<std::string>> sets;
  for (const auto& p : paths) {
    std::error_code ec;
    if (!fs::is_directory(p, ec)) {
      return bad(p + ": not a results folder (the RCP test judges the runs of a folder together)");
    }
    std::vector<std::string> found;
    try {
      found = FindResultFiles(p);
    } catch (const core::Error& e) {
      return bad(e.what());
    }
    if (found.empty()) return bad(p + ": no result_*.txt files below this folder");
    for (const auto& f : found) sets[fs::path(f).parent_path().string()].push_back(f);
  }
  if (!o.rcp_file.empty()) {
    std::error_code ec;
    if (!fs::is_regular_file(o.rcp_file, ec)) return bad(o.rcp_file + ": no such RCP file");
  }

  rcp::SetOptions so;
  so.rcp_file = o.rcp_file;
  so.ruleset = o.ruleset;
  so.pruned = o.pruned;
  so.bert_train_samples = o.bert_train_samples;
  std::vector<std::pair<std::string, rcp::SetResult>> results;
  for (const auto& [dir, logs] : sets) {
    try {
      results.emplace_back(dir, rcp::CheckSet(logs, so));
    } catch (const core::Error& e) {
      return bad(e.what());
    }
  }
  int passed = 0, failed = 0, missing = 0;
  for (const auto& [dir, r] : results) {
    out << "RCP check of " << dir << ": " << r.logs.size() << " logs, "
        << (r.benchmark.empty() ? "no benchmark" : r.benchmark) << ", global batch size "
        << r.bs_text << ", epochs to converge " << EpochList(r.logs);
    if (!r.rcp_file.empty()) {
      out << "; RCP file " << r.rcp_file << " (" << (o.pruned ? "pruned" : "full")
          << " RCPs, ruleset " << o.ruleset << ", " << r.submission_runs << " submission runs)";
    }
    out << "\n";
    for (const auto& w : r.warnings) out << dir << ": warning: " << w << "\n";
    const rcp::Verdict& v = r.verdict;
    out << dir << ": RCP " << rcp::OutcomeName(v.outcome) << ": " << v.message;
    if (v.rcp) {
      const rcp::RcpRecord& rec = *v.rcp;
      out << " (olympic mean " << Fmt(v.submission_mean) << (v.passed ? " >= " : " < ") << "min "
          << Fmt(rec.mean / rec.max_speedup) << " epochs; "
          << (rec.interpolated ? "interpolated RCP at BS " + r.bs_text : "RCP " + rec.name)
          << ": mean " << Fmt(rec.mean) << ", stdev " << Fmt(rec.stdev) << ", max speedup "
          << Fmt(rec.max_speedup) << ")";
      if (v.passed && v.norm_factor > 1) {
        out << "; faster than the RCP mean within the bound: score to be normalized by "
            << Fmt(v.norm_factor);
      }
    }
    out << "\n";
    switch (v.outcome) {
      case rcp::Outcome::kPass:
        ++passed;
        break;
      case rcp::Outcome::kFail:
        ++failed;
        break;
      case rcp::Outcome::kMissing:
        ++missing;
        break;
    }
  }
  const int n = static_cast<int>(results.size());
  out << "overall: RCP " << (passed == n ? "PASSED" : "FAILED") << " (" << n
      << (n == 1 ? " set: " : " sets: ") << passed << " passed, " << failed << " failed, "
      << missing << " missing)\n";
  return passed == n ? kExitPass : kExitFail;
}

}  // namespace trainbench::compliance

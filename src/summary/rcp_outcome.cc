// summarize's and report's RCP column: the official RCP test of each closed result's runs.
#include <cstdio>
#include <string>
#include <vector>

#include "core/error.h"
#include "rcp/rcp_check.h"
#include "summary/summarize.h"

namespace trainbench::summary {

namespace {

std::string Fmt(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.4g", v);
  return buf;
}

}  // namespace

void AttachRcpOutcomes(std::vector<BenchmarkSummary>* results) {
  for (BenchmarkSummary& s : *results) {
    // RCPs judge the closed division's recipe; trainbench's are per benchmark and scale.
    if (s.division != "closed" || s.scale.empty() || s.runs.empty()) continue;
    // The test's olympic mean drops the fastest and the slowest run: with fewer than 3 runs the
    // official arithmetic gives NaN and a failure, which says nothing yet.
    if (s.runs.size() < 3) {
      s.rcp_detail = "not judged yet: " + std::to_string(s.runs.size()) +
                     " run(s); the test's olympic mean needs at least 3";
      continue;
    }
    std::vector<std::string> logs;
    for (const RunResult& r : s.runs) logs.push_back(r.path);
    try {
      const rcp::SetResult r = rcp::CheckSet(logs, rcp::SetOptions());
      const rcp::Verdict& v = r.verdict;
      s.rcp_outcome = rcp::OutcomeName(v.outcome);
      s.rcp_detail = v.message;
      if (v.rcp) {
        s.rcp_detail += " (olympic mean " + Fmt(v.submission_mean) + (v.passed ? " >= " : " < ") +
                        "min " + Fmt(v.rcp->mean / v.rcp->max_speedup) + " epochs)";
      }
    } catch (const core::Error& e) {
      s.rcp_detail = std::string("not judged: ") + e.what();
    }
  }
}

}  // namespace trainbench::summary

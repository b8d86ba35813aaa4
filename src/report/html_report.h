// The HTML report: one self-contained page (inline CSS, SVG and script; nothing fetched) of the
// runs of one or more results folders. Per benchmark (and scale): the eval metric against
// wall-clock minutes for every run with the quality target as a line, the run times per system
// with the olympic mean and the dropped runs marked, the training throughput over time, and each
// run's configuration and provenance in a <details> element. On top the score table as
// `summarize` prints it, with a speed-up column; at the bottom the skipped files and warnings.
//
// Every string that comes from a log or a path is escaped (html_escape.h): a log whose values
// hold HTML or script shows them as text. The summary JSON (summary::SummaryToJson) is embedded
// in <script type="application/json" id="trainbench-data">.
//
// What a test can read off the page: each benchmark is a <section class="benchmark"
// data-runs=N>; its convergence and throughput plots (data-plot="convergence" / "throughput")
// hold one <polyline class="curve"> per run, its run-times plot (data-plot="run_times") one
// <g class="run-point"> per run. The page's script sets data-curves-ok="true" on <body> when it
// has counted them so in the browser, and records any script error in #js-errors.
#pragma once

#include <string>

#include "report/results_loader.h"
#include "summary/reporter.h"

namespace trainbench::report {

struct HtmlReportOptions {
  summary::ReportContext context;  // folders, definitions, trainbench revision
  // The system each benchmark's speed-ups are relative to; empty or without a result there: the
  // first system with a result, in the order the folders were given (then by name).
  std::string baseline_system;
  std::string history_note;  // one line about the results history ("" for none)
};

// The whole document. Deterministic: the same input gives the same bytes.
std::string RenderHtmlReport(const LoadedResults& results, const HtmlReportOptions& options);

}  // namespace trainbench::report

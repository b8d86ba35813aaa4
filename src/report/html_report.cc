#include "report/html_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <limits>
#include <map>
#include <optional>

#include "report/html_escape.h"
#include "report/svg_plot.h"

namespace trainbench::report {

namespace {

using summary::BenchmarkSummary;

constexpr const char* kNa = "n/a";

constexpr const char* kStyle = R"css(
:root { color-scheme: light; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif;
       margin: 0 auto; max-width: 1560px; padding: 16px 24px 48px; color: #222; background: #fff; }
h1 { font-size: 24px; margin: 8px 0 4px; }
h2 { font-size: 19px; margin: 32px 0 4px; border-bottom: 2px solid #ddd; padding-bottom: 4px; }
h3 { font-size: 15px; margin: 18px 0 6px; }
.meta { color: #555; margin: 2px 0; }
table { border-collapse: collapse; margin: 8px 0; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid #ddd; padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: #f4f4f4; font-weight: 600; }
td.num { text-align: right; }
tr.baseline td { background: #f7fbff; }
.plots { display: flex; flex-wrap: wrap; gap: 12px; }
svg.plot { border: 1px solid #e4e4e4; background: #fff; }
svg.plot text { font: 11px system-ui, "DejaVu Sans", sans-serif; fill: #333; }
svg.plot .plot-title { font-size: 13px; font-weight: 600; }
svg.plot .axis-label { font-size: 12px; }
svg.plot .grid { stroke: #eee; }
svg.plot .frame { fill: none; stroke: #999; }
svg.plot .curve { fill: none; stroke-width: 1.8; }
svg.plot .curve.dashed { stroke-dasharray: 5 3; }
svg.plot .run { opacity: 0.9; }
svg.plot .reference line { stroke: #c00; stroke-width: 1.5; stroke-dasharray: 6 4; }
svg.plot .reference text { fill: #c00; }
svg.plot .mean line { stroke-width: 3; }
svg.plot .no-data { font-size: 14px; fill: #999; }
svg.plot.dim-others .run:not(.hl) { opacity: 0.12; }
.legend-entry { cursor: default; }
details { margin: 2px 0; }
details > summary { cursor: pointer; }
pre { background: #f8f8f8; border: 1px solid #e4e4e4; padding: 6px 8px; overflow-x: auto;
      max-height: 360px; font-size: 12px; }
.issues li { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 12px; }
.ok { color: #1a7f37; } .bad { color: #b42318; }
#js-errors { color: #b42318; }
)css";

// Records script errors into the page (first thing in <body>), so a headless browser's DOM
// dump shows them.
constexpr const char* kErrorScript = R"js(
window.addEventListener('error', function (e) {
  var box = document.getElementById('js-errors');
  if (!box) return;
  var p = document.createElement('p');
  p.textContent = 'script error: ' + e.message + ' (line ' + e.lineno + ')';
  box.appendChild(p);
  box.hidden = false;
});
)js";

// Parses the embedded summary, counts the curves per plot, and highlights a system's runs while
// the pointer is on its legend entry.
constexpr const char* kMainScript = R"js(
(function () {
  var data = JSON.parse(document.getElementById('trainbench-data').textContent);
  document.body.setAttribute('data-results', String(data.results.length));
  var ok = true;
  document.querySelectorAll('section.benchmark').forEach(function (sec) {
    var runs = Number(sec.getAttribute('data-runs'));
    sec.querySelectorAll('svg.plot').forEach(function (svg) {
      var kind = svg.getAttribute('data-plot');
      var n = kind === 'run_times' ? svg.querySelectorAll('g.run-point').length
                                   : svg.querySelectorAll('polyline.curve').length;
      if (n !== runs) ok = false;
    });
  });
  document.body.setAttribute('data-curves-ok', ok ? 'true' : 'false');
  document.querySelectorAll('svg.plot').forEach(function (svg) {
    svg.querySelectorAll('.legend-entry[data-group]').forEach(function (entry) {
      var group = entry.getAttribute('data-group');
      entry.addEventListener('mouseenter', function () {
        svg.querySelectorAll('.run').forEach(function (r) {
          r.classList.toggle('hl', r.getAttribute('data-group') === group);
        });
        svg.classList.add('dim-others');
      });
      entry.addEventListener('mouseleave', function () { svg.classList.remove('dim-others'); });
    });
  });
})();
)js";

std::string Fixed(double v, int precision) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", precision, v);
  return buf;
}
std::string Fixed(const std::optional<double>& v, int precision) {
  return v ? Fixed(*v, precision) : kNa;
}
std::string OrDash(const std::string& s) { return s.empty() ? "-" : s; }

std::string UtcTime(double ms) {
  const std::time_t t = static_cast<std::time_t>(ms / 1000.0);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M UTC", &tm);
  return buf;
}

std::string BaseName(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string E(const std::string& s) { return EscapeHtml(s); }

std::string JsonText(const core::Json& j) {
  return j.dump(2, ' ', false, core::Json::error_handler_t::replace);
}

// The shortest of %g with up to 6 significant digits: 0.91, not 0.9100.
std::string Short(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.6g", v);
  return buf;
}

std::string ScalarText(const core::Json& j) {
  if (j.is_null()) return kNa;
  if (j.is_string()) return j.get<std::string>();
  if (j.is_number_float()) return Fixed(j.get<double>(), 4);
  return j.dump(-1, ' ', false, core::Json::error_handler_t::replace);
}

// A benchmark (and scale) with the results of every system that ran it.
struct BenchmarkGroup {
  std::string benchmark, scale;
  std::vector<const BenchmarkSummary*> systems;  // in folder order, then name
  const BenchmarkSummary* baseline = nullptr;
  size_t runs = 0;
};

size_t FirstDir(const LoadedResults& results, const BenchmarkSummary& s) {
  size_t best = SIZE_MAX;
  for (const auto& run : s.runs) {
    if (const LoadedRun* lr = FindRun(results, run.path)) best = std::min(best, lr->dir_index);
  }
  return best;
}

std::vector<BenchmarkGroup> GroupBenchmarks(const LoadedResults& results,
                                            const std::string& baseline_system) {
  std::map<std::pair<std::string, std::string>, BenchmarkGroup> groups;
  for (const auto& s : results.summary.results) {
    BenchmarkGroup& g = groups[{s.benchmark, s.scale}];
    g.benchmark = s.benchmark;
    g.scale = s.scale;
    g.systems.push_back(&s);
    g.runs += s.runs.size();
  }
  std::vector<BenchmarkGroup> out;
  for (auto& [key, g] : groups) {
    std::stable_sort(g.systems.begin(), g.systems.end(),
                     [&](const BenchmarkSummary* a, const BenchmarkSummary* b) {
                       const size_t da = FirstDir(results, *a), db = FirstDir(results, *b);
                       if (da != db) return da < db;
                       return a->system < b->system;
                     });
    for (const auto* s : g.systems) {
      if (s->olympic_mean_minutes && s->system == baseline_system) g.baseline = s;
    }
    for (const auto* s : g.systems) {
      if (!g.baseline && s->olympic_mean_minutes && *s->olympic_mean_minutes > 0) g.baseline = s;
    }
    out.push_back(std::move(g));
  }
  return out;
}

// Per run of `s`: how it appears in the run-times plot.
std::vector<PointKind> RunKinds(const BenchmarkSummary& s) {
  std::vector<PointKind> kinds(s.runs.size(), PointKind::kOutsideWindow);
  std::vector<size_t> used;
  for (size_t i = 0; i < s.runs.size(); ++i) {
    if (!s.runs[i].converged) {
      kinds[i] = PointKind::kNotConverged;
    } else if (i < s.used.size() && s.used[i]) {
      kinds[i] = PointKind::kCounted;
    }
    if (i < s.used.size() && s.used[i]) used.push_back(i);
  }
  // The olympic mean drops the fastest and the slowest of the window's runs when there are at
  // least 3; a failed run in the window (not with NCF's K rule) counts as the slowest (stats.h).
  int failures = 0;
  if (s.rule.converged_used == 0) {
    for (size_t i = s.window_first; i < s.window_first + s.window_size && i < s.runs.size(); ++i) {
      if (!s.runs[i].converged) ++failures;
    }
  }
  if (s.has_result && used.size() + failures >= 3) {
    std::stable_sort(used.begin(), used.end(),
                     [&](size_t a, size_t b) { return s.runs[a].minutes < s.runs[b].minutes; });
    kinds[used.front()] = PointKind::kDropped;
    if (failures == 0) kinds[used.back()] = PointKind::kDropped;
  }
  return kinds;
}

std::string RunLabel(const summary::RunResult& r) {
  std::string l = OrDash(r.system) + " · " + BaseName(r.path);
  if (!r.seed.is_null()) l += " · seed " + ScalarText(r.seed);
  l += " · " + Fixed(r.minutes, 2) + " min · " + OrDash(r.status);
  return l;
}

std::string ScoreTable(const std::vector<BenchmarkGroup>& groups) {
  std::string s =
      "<table class=\"scores\"><thead><tr><th>benchmark</th><th>scale</th><th>system</th>"
      "<th>division</th><th>runs</th><th>converged</th><th>olympic_min</th><th>min</th>"
      "<th>max</th><th>cv</th><th>epochs</th><th>score</th><th>speed-up</th><th>status</th>"
      "</tr></thead><tbody>\n";
  for (const auto& g : groups) {
    for (const BenchmarkSummary* r : g.systems) {
      const bool is_base = r == g.baseline;
      std::string speedup = kNa;
      if (g.systems.size() == 1) {
        speedup = "-";  // nothing to compare with
      } else if (g.baseline && r->olympic_mean_minutes && *r->olympic_mean_minutes > 0) {
        speedup = Fixed(*g.baseline->olympic_mean_minutes / *r->olympic_mean_minutes, 2) + "×";
        if (is_base) speedup += " (baseline)";
      }
      const std::string runs =
          std::to_string(r->runs.size()) + "/" +
          (r->rule.runs_required > 0 ? std::to_string(r->rule.runs_required) : std::string("?"));
      s +=
          std::string("<tr") + (is_base && g.systems.size() > 1 ? " class=\"baseline\"" : "") + ">";
      s += "<td>" + E(r->benchmark) + "</td><td>" + E(OrDash(r->scale)) + "</td><td>" +
           E(OrDash(r->system)) + "</td><td>" + E(OrDash(r->division)) + "</td>";
      s += "<td class=\"num\">" + E(runs) + "</td><td class=\"num\">" +
           std::to_string(r->converged_runs) + "</td>";
      s += "<td class=\"num\">" + Fixed(r->olympic_mean_minutes, 2) + "</td><td class=\"num\">" +
           Fixed(r->min_minutes, 2) + "</td><td class=\"num\">" + Fixed(r->max_minutes, 2) +
           "</td>";
      s += "<td class=\"num\">" + (r->cv ? Fixed(*r->cv * 100.0, 1) + "%" : std::string(kNa)) +
           "</td><td class=\"num\">" + Fixed(r->mean_epochs, 1) + "</td><td class=\"num\">" +
           Fixed(r->score, 2) + "</td><td class=\"num\">" + E(speedup) + "</td>";
      const std::string status = r->Status();
      s += std::string("<td class=\"") + (r->has_result ? "ok" : "bad") + "\">" + E(status) +
           "</td></tr>\n";
    }
  }
  s += "</tbody></table>\n";
  s += "<p class=\"meta\">Times in minutes (run_start to run_stop); cv = sample stddev / mean of "
       "the converged runs used; score = reference time / olympic mean; speed-up = the "
       "baseline's olympic mean / this one.</p>\n";
  std::string notes;
  for (const auto& g : groups) {
    for (const BenchmarkSummary* r : g.systems) {
      for (const auto& n : r->notes) {
        notes += "<li>" + E(r->benchmark + " " + r->scale + " on " + OrDash(r->system)) + ": " +
                 E(n) + "</li>\n";
      }
    }
  }
  if (!notes.empty()) s += "<h3>Notes</h3><ul class=\"notes\">\n" + notes + "</ul>\n";
  // The RCP test of the closed results (summary::AttachRcpOutcomes; docs/rcp.md).
  std::string rcp;
  for (const auto& g : groups) {
    for (const BenchmarkSummary* r : g.systems) {
      if (r->rcp_detail.empty()) continue;
      rcp += "<li>" + E(r->benchmark + " " + r->scale + " on " + OrDash(r->system)) + ": " +
             (r->rcp_outcome.empty() ? "" : "<strong>RCP " + E(r->rcp_outcome) + "</strong>: ") +
             E(r->rcp_detail) + "</li>\n";
    }
  }
  if (!rcp.empty()) {
    s += "<h3>RCP test (the official rcp_checker's, closed division)</h3><ul class=\"notes\">\n" +
         rcp + "</ul>\n";
  }
  return s;
}

std::string RunDetailsBlock(const LoadedRun* lr, const summary::RunResult& r, PointKind kind) {
  std::string s = "<details class=\"run-details\"><summary>" + E(RunLabel(r)) + " — " +
                  PointKindName(kind) + "</summary>\n<table>";
  auto row = [&](const std::string& k, const std::string& v) {
    s += "<tr><th>" + E(k) + "</th><td>" + E(v) + "</td></tr>";
  };
  row("file", r.path);
  row("benchmark (logged)",
      OrDash(r.trainbench_benchmark.empty() ? r.log_name : r.trainbench_benchmark));
  row("organisation", OrDash(r.org));
  row("started", UtcTime(r.start_ms));
  row("minutes", Fixed(r.minutes, 3));
  row("status", OrDash(r.status));
  row("epochs", Fixed(r.epochs, 0));
  row("final accuracy", ScalarText(r.final_accuracy));
  row("seed", ScalarText(r.seed));
  if (lr) {
    row("git revision", OrDash(lr->details.git_revision));
    row("log sha256", lr->content_hash);
  }
  s += "</table>\n";
  if (lr) {
    const struct {
      const char* title;
      const core::Json* value;
    } blocks[] = {
        {"effective configuration (trainbench_config_effective)", &lr->details.config_effective},
        {"requested configuration (trainbench_config_requested)", &lr->details.config_requested},
        {"provenance (trainbench_provenance)", &lr->details.provenance}};
    for (const auto& b : blocks) {
      s += "<h4>" + E(b.title) + "</h4>";
      s += b.value->is_null() ? std::string("<p class=\"meta\">not logged</p>")
                              : "<pre>" + E(JsonText(*b.value)) + "</pre>";
      s += "\n";
    }
  }
  return s + "</details>\n";
}

std::string BenchmarkSection(const LoadedResults& results, const BenchmarkGroup& g, size_t index) {
  // Colours: one per system, in table order.
  std::string s = "<section class=\"benchmark\" id=\"benchmark-" + std::to_string(index) +
                  "\" data-benchmark=\"" + E(g.benchmark) + "\" data-runs=\"" +
                  std::to_string(g.runs) + "\">\n";
  s += "<h2>" + E(g.benchmark) + (g.scale.empty() ? "" : " <small>(" + E(g.scale) + ")</small>") +
       "</h2>\n";

  std::optional<double> target;
  std::string metric = "eval_accuracy";
  for (const auto* sys : g.systems) {
    for (const auto& r : sys->runs) {
      const LoadedRun* lr = FindRun(results, r.path);
      if (lr && lr->details.quality_target && !target) {
        target = lr->details.quality_target;
        metric = lr->details.metric;
      }
    }
  }
  std::string meta = std::to_string(g.systems.size()) + " system" +
                     (g.systems.size() == 1 ? "" : "s") + ", " + std::to_string(g.runs) + " run" +
                     (g.runs == 1 ? "" : "s");
  if (target) meta += "; quality target: " + metric + " ≥ " + Short(*target);
  if (g.baseline && g.systems.size() > 1) {
    meta += "; speed-ups relative to " + OrDash(g.baseline->system);
  }
  s += "<p class=\"meta\">" + E(meta) + "</p>\n";

  LinePlot conv;
  conv.kind = "convergence";
  conv.title = "Quality over time: " + metric + " per evaluation";
  conv.x_label = "wall-clock minutes since run_start";
  conv.y_label = metric;
  conv.reference_y = target;
  if (target) conv.reference_label = "target " + Short(*target);
  LinePlot thr;
  thr.kind = "throughput";
  thr.title = "Training throughput per epoch";
  thr.x_label = "wall-clock minutes since run_start";
  thr.y_label = "samples/s";
  thr.y_from_zero = true;
  StripPlot times;
  times.kind = "run_times";
  times.title = "Run times per system";
  times.x_label = "system";
  times.y_label = "minutes (run_start to run_stop)";

  std::string details;
  for (size_t c = 0; c < g.systems.size(); ++c) {
    const BenchmarkSummary& sys = *g.systems[c];
    const int color = static_cast<int>(c);
    conv.legend.push_back({OrDash(sys.system), color});
    thr.legend.push_back({OrDash(sys.system), color});
    StripColumn col;
    col.label = OrDash(sys.system);
    col.color = color;
    col.mean = sys.olympic_mean_minutes;
    if (col.mean) col.mean_label = "olympic " + Fixed(*col.mean, 2);
    const std::vector<PointKind> kinds = RunKinds(sys);
    details += "<h3>" + E(OrDash(sys.system)) + "</h3>\n";
    for (size_t i = 0; i < sys.runs.size(); ++i) {
      const summary::RunResult& r = sys.runs[i];
      const LoadedRun* lr = FindRun(results, r.path);
      LineSeries cs{r.path, OrDash(sys.system), RunLabel(r), color, !r.converged, {}};
      LineSeries ts = cs;
      if (lr) {
        for (const auto& p : lr->details.eval) cs.points.emplace_back(p.minutes, p.value);
        for (const auto& p : lr->details.throughput) ts.points.emplace_back(p.minutes, p.value);
      }
      conv.series.push_back(std::move(cs));
      thr.series.push_back(std::move(ts));
      col.points.push_back(
          {r.path, RunLabel(r) + " — " + PointKindName(kinds[i]), r.minutes, kinds[i]});
      details += RunDetailsBlock(lr, r, kinds[i]);
    }
    times.columns.push_back(std::move(col));
  }
  s += "<div class=\"plots\">\n" + RenderLinePlot(conv) + RenderStripPlot(times) +
       RenderLinePlot(thr) + "</div>\n";
  s += "<p class=\"meta\">Dashed curves: runs that did not converge. Hover a curve or a point for "
       "its run; open a run below for its configuration and provenance.</p>\n";
  s += "<h3>Runs</h3>\n" + details;
  return s + "</section>\n";
}

std::string IssueList(const char* title, const char* id,
                      const std::vector<summary::FileIssue>& issues) {
  std::string s = "<section id=\"" + std::string(id) + "\"><h2>" + title + " (" +
                  std::to_string(issues.size()) + ")</h2>\n";
  if (issues.empty()) return s + "<p class=\"meta\">none</p></section>\n";
  s += "<ul class=\"issues\">\n";
  for (const auto& i : issues) s += "<li>" + E(i.ToString()) + "</li>\n";
  return s + "</ul></section>\n";
}

}  // namespace

std::string RenderHtmlReport(const LoadedResults& results, const HtmlReportOptions& options) {
  const summary::SummaryReport& rep = results.summary;
  const std::vector<BenchmarkGroup> groups = GroupBenchmarks(results, options.baseline_system);
  size_t run_count = 0;
  for (const auto& r : rep.results) run_count += r.runs.size();
  std::string dirs;
  for (const auto& d : options.context.results_dirs) dirs += (dirs.empty() ? "" : ", ") + d;

  std::string s = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  s += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  // No network: nothing may be fetched, not even a favicon.
  s += "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
       "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n";
  s += "<link rel=\"icon\" href=\"data:,\">\n";
  s += "<title>trainbench report: " + E(dirs) + "</title>\n<style>" + kStyle + "</style>\n";
  s += "</head>\n<body>\n<div id=\"js-errors\" hidden></div>\n<script>" +
       std::string(kErrorScript) + "</script>\n";
  s += "<header><h1>trainbench report</h1>\n";
  s += "<p class=\"meta\">results: " + E(dirs) + "</p>\n";
  s += "<p class=\"meta\">benchmark definitions: " + E(options.context.benchmark_definitions) +
       "; trainbench " + E(options.context.git_revision) + "</p>\n";
  s += "<p class=\"meta\">" + std::to_string(rep.results.size()) + " results from " +
       std::to_string(run_count) + " runs, " + std::to_string(rep.skipped.size()) +
       " files skipped, " + std::to_string(rep.warnings.size()) + " warnings</p>\n";
  if (!options.history_note.empty()) {
    s += "<p class=\"meta\">" + E(options.history_note) + "</p>\n";
  }
  s += "</header>\n";
  if (!groups.empty()) {
    s += "<nav><p>";
    for (size_t i = 0; i < groups.size(); ++i) {
      s += std::string(i ? " · " : "") + "<a href=\"#benchmark-" + std::to_string(i) + "\">" +
           E(groups[i].benchmark + (groups[i].scale.empty() ? "" : " " + groups[i].scale)) + "</a>";
    }
    s += " · <a href=\"#skipped\">skipped files</a></p></nav>\n";
    s += "<h2>Scores</h2>\n" + ScoreTable(groups);
  } else {
    s += "<p class=\"bad\">No usable runs in these folders.</p>\n";
  }
  for (size_t i = 0; i < groups.size(); ++i) s += BenchmarkSection(results, groups[i], i);
  s += IssueList("Skipped files", "skipped", rep.skipped);
  s += IssueList("Warnings", "warnings", rep.warnings);
  s += "<script type=\"application/json\" id=\"trainbench-data\">" +
       JsonForScript(summary::SummaryToJson(options.context, rep)) + "</script>\n";
  s += "<script>" + std::string(kMainScript) + "</script>\n</body>\n</html>\n";
  return s;
}

}  // namespace trainbench::report

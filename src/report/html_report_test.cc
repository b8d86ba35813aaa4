#include "report/html_report.h"

#include <gtest/gtest.h>

#include <regex>

#include "report/test_util.h"
#include "summary/test_logs.h"

namespace trainbench::report {
namespace {

using summary::test_logs::TestDef;
using test_util::Between;
using test_util::Count;
using test_util::Fixture;

std::vector<core::BenchmarkDef> Defs() {
  return {TestDef("image_classification", "resnet", "test", {{"mini", 5, 8.94}})};
}

std::string Render(const std::vector<std::string>& dirs, const std::string& baseline = "") {
  HtmlReportOptions o;
  o.context.results_dirs = dirs;
  o.context.benchmark_definitions = "test";
  o.context.git_revision = "test-rev";
  o.baseline_system = baseline;
  return RenderHtmlReport(LoadResults(dirs, Defs()), o);
}

// The <svg> of plot `kind` in the n-th benchmark section.
std::string Plot(const std::string& html, const std::string& kind, int section = 0) {
  size_t at = 0;
  for (int i = 0; i <= section; ++i) at = html.find("<section class=\"benchmark\"", at + 1);
  return Between(html, "data-plot=\"" + kind + "\"", "</svg>", at);
}

TEST(RenderHtmlReport, EachPlotHoldsOneCurvePerRun) {
  const std::string html = Render({Fixture("results_a"), Fixture("results_b")});
  EXPECT_EQ(Count(html, "<section class=\"benchmark\""), 1u);
  EXPECT_NE(html.find("data-runs=\"10\""), std::string::npos);
  EXPECT_EQ(Count(Plot(html, "convergence"), "<polyline class=\"curve"), 10u);
  EXPECT_EQ(Count(Plot(html, "throughput"), "<polyline class=\"curve"), 10u);
  EXPECT_EQ(Count(Plot(html, "run_times"), "class=\"run-point\""), 10u);
  // One curve per run: each run's path appears as the data-run of one polyline per curve plot.
  EXPECT_EQ(Count(Plot(html, "convergence"), "class=\"curve\" data-run=\"" + Fixture("results_a") +
                                                 "/cpu-2core/image_classification/result_1.txt\""),
            1u);
  // The failed run is dashed.
  EXPECT_EQ(Count(Plot(html, "convergence"), "class=\"curve dashed\""), 1u);
}

TEST(RenderHtmlReport, TargetLineAxesLegendsAndUnits) {
  const std::string html = Render({Fixture("results_a"), Fixture("results_b")});
  const std::string conv = Plot(html, "convergence");
  EXPECT_NE(conv.find("class=\"reference\""), std::string::npos);
  EXPECT_NE(conv.find("target 0.91"), std::string::npos);
  EXPECT_NE(conv.find("wall-clock minutes since run_start"), std::string::npos);
  EXPECT_EQ(Count(conv, "class=\"legend-entry\""), 2u);
  EXPECT_NE(Plot(html, "throughput").find("samples/s"), std::string::npos);
  EXPECT_NE(Plot(html, "run_times").find("minutes (run_start to run_stop)"), std::string::npos);
}

TEST(RenderHtmlReport, RunTimesMarkTheOlympicMeanAndDroppedRuns) {
  const std::string times = Plot(Render({Fixture("results_a")}), "run_times");
  // cpu-2core: 5 runs, one failed: the failed run (the slowest) and the fastest are dropped.
  EXPECT_EQ(Count(times, "data-kind=\"counted\""), 3u);
  EXPECT_EQ(Count(times, "data-kind=\"dropped\""), 1u);
  EXPECT_EQ(Count(times, "data-kind=\"not-converged\""), 1u);
  EXPECT_EQ(Count(times, "class=\"mean\""), 1u);
  EXPECT_NE(times.find("olympic "), std::string::npos);
}

TEST(RenderHtmlReport, ScoreTableWithSpeedUp) {
  const std::string html = Render({Fixture("results_a"), Fixture("results_b")});
  const std::string table = Between(html, "<table class=\"scores\">", "</table>");
  EXPECT_NE(table.find("<th>olympic_min</th>"), std::string::npos);
  EXPECT_NE(table.find("1.00× (baseline)"), std::string::npos);
  EXPECT_LT(table.find("cpu-2core"), table.find("cpu-8core"));  // folder order
  std::smatch m;
  ASSERT_TRUE(std::regex_search(table, m, std::regex(R"(([0-9]+\.[0-9]+)×</td>)")));
  // A baseline chosen by name turns the speed-up around.
  const std::string other =
      Between(Render({Fixture("results_a"), Fixture("results_b")}, "cpu-8core"),
              "<table class=\"scores\">", "</table>");
  EXPECT_NE(other.find("0.3"), std::string::npos);
}

TEST(RenderHtmlReport, ConfigurationAndProvenanceOnDemand) {
  const std::string html = Render({Fixture("results_a")});
  EXPECT_EQ(Count(html, "<details class=\"run-details\">"), 5u);
  EXPECT_NE(html.find("trainbench_config_effective"), std::string::npos);
  EXPECT_NE(html.find("trainbench_config_requested"), std::string::npos);
  EXPECT_NE(html.find("&quot;hostname&quot;: &quot;bench-host&quot;"), std::string::npos);
  EXPECT_NE(html.find("abc1234"), std::string::npos);
  // One system: no speed-up to show.
  EXPECT_EQ(html.find("(baseline)"), std::string::npos);
}

TEST(RenderHtmlReport, LoggedHtmlAndScriptRenderAsText) {
  const std::string html = Render({Fixture("results_xss")});
  // Only the report's own three scripts, no other element from a log.
  EXPECT_EQ(Count(html, "<script"), 3u);
  EXPECT_EQ(Count(html, "</script"), 3u);
  for (const char* bad : {"<img", "<iframe", "<b>", "<i>", "alert('xss')"}) {
    EXPECT_EQ(html.find(bad), std::string::npos) << bad;
  }
  EXPECT_NE(html.find("&lt;img src=x onerror=alert(2)&gt;"), std::string::npos);
  EXPECT_NE(html.find("&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(html.find("&lt;iframe src=\\&quot;javascript:alert(3)\\&quot;&gt;"), std::string::npos);
  // The embedded JSON still holds the values, escaped.
  const std::string json = Between(html, "id=\"trainbench-data\">", "</script>");
  EXPECT_EQ(json.find('<'), std::string::npos);
  const auto doc = core::Json::parse(json);
  EXPECT_EQ(doc["results"][0]["benchmark"], "<img src=x onerror=alert(2)>");
}

TEST(RenderHtmlReport, BrokenFolderListsSkippedFiles) {
  const std::string html = Render({Fixture("results_broken")});
  EXPECT_EQ(Count(html, "<section class=\"benchmark\""), 1u);
  const std::string skipped = Between(html, "<section id=\"skipped\">", "</section>");
  EXPECT_NE(skipped.find("Skipped files (3)"), std::string::npos);
  EXPECT_NE(skipped.find("result_2.txt"), std::string::npos);
  EXPECT_NE(skipped.find("no run_stop event"), std::string::npos);
  EXPECT_NE(skipped.find("result_3.txt: no :::MLLOG or :::MLPv0.5.0 lines"), std::string::npos);
  EXPECT_NE(skipped.find("result_4.txt"), std::string::npos);
}

TEST(RenderHtmlReport, EmptyFolderStillGivesAPage) {
  test_util::ScopedDir dir("report_empty");
  const std::string html = Render({dir.path()});
  EXPECT_EQ(Count(html, "<section class=\"benchmark\""), 0u);
  EXPECT_NE(html.find("No usable runs"), std::string::npos);
  EXPECT_NE(html.find("Skipped files (0)"), std::string::npos);
  EXPECT_NE(html.find("</html>"), std::string::npos);
}

TEST(RenderHtmlReport, SelfContainedAndDeterministic) {
  const std::string html = Render({Fixture("results_a")});
  EXPECT_EQ(html, Render({Fixture("results_a")}));
  for (const char* remote : {"http://", "https://", "src=\"", "<link rel=\"stylesheet\""}) {
    // The only URL is the SVG namespace, which is a name, not a fetch.
    if (std::string(remote) == "http://") {
      EXPECT_EQ(Count(html, remote), Count(html, "xmlns=\"http://www.w3.org/2000/svg\""));
    } else {
      EXPECT_EQ(html.find(remote), std::string::npos) << remote;
    }
  }
}

}  // namespace
}  // namespace trainbench::report

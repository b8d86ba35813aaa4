#include "report/svg_plot.h"

#include <gtest/gtest.h>

namespace trainbench::report {
namespace {

size_t Count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

TEST(NiceTicks, StepsOfOneTwoFive) {
  EXPECT_EQ(NiceTicks(0, 10), (std::vector<double>{0, 2, 4, 6, 8, 10}));
  EXPECT_EQ(NiceTicks(0, 9.3), (std::vector<double>{0, 2, 4, 6, 8, 10}));
  auto t = NiceTicks(0.8, 0.93);
  ASSERT_GE(t.size(), 2u);
  EXPECT_LE(t.front(), 0.8);
  EXPECT_GE(t.back(), 0.93);
  EXPECT_NEAR(t[1] - t[0], 0.05, 1e-12);
}

TEST(NiceTicks, DegenerateRanges) {
  auto t = NiceTicks(5, 5);
  ASSERT_GE(t.size(), 2u);
  EXPECT_LT(t.front(), t.back());
  t = NiceTicks(0, 0);
  ASSERT_GE(t.size(), 2u);
  EXPECT_LT(t.front(), t.back());
}

TEST(FormatTick, DecimalsFollowTheStep) {
  EXPECT_EQ(FormatTick(0.86, 0.02), "0.86");
  EXPECT_EQ(FormatTick(4, 2), "4");
  EXPECT_EQ(FormatTick(2.5, 0.5), "2.5");
  EXPECT_EQ(FormatTick(2e6, 1e6), "2e+06");
}

TEST(RenderLinePlot, OnePolylinePerSeriesAndTheReferenceLine) {
  LinePlot p;
  p.kind = "convergence";
  p.title = "eval";
  p.x_label = "minutes since run_start";
  p.y_label = "eval_accuracy";
  p.series = {{"r1", "sysA", "run 1", 0, false, {{1, 0.5}, {2, 0.9}}},
              {"r2", "sysA", "run 2", 0, false, {{1, 0.6}, {3, 0.92}}},
              {"r3", "sysB", "run 3", 1, false, {}}};
  p.legend = {{"sysA", 0}, {"sysB", 1}};
  p.reference_y = 0.91;
  p.reference_label = "target 0.91";
  const std::string svg = RenderLinePlot(p);
  EXPECT_EQ(Count(svg, "<polyline class=\"curve"), 3u);
  EXPECT_NE(svg.find("data-plot=\"convergence\" data-series=\"3\""), std::string::npos);
  EXPECT_NE(svg.find("target 0.91"), std::string::npos);
  EXPECT_NE(svg.find("minutes since run_start"), std::string::npos);
  EXPECT_EQ(Count(svg, "class=\"legend-entry\""), 2u);
  EXPECT_EQ(svg.find("no data"), std::string::npos);
}

TEST(RenderLinePlot, EmptyPlotSaysNoData) {
  LinePlot p;
  p.kind = "throughput";
  EXPECT_NE(RenderLinePlot(p).find("no data"), std::string::npos);
}

TEST(RenderLinePlot, EscapesEveryString) {
  LinePlot p;
  p.kind = "k\"<";
  p.title = "<b>t</b>";
  p.x_label = "<x>";
  p.y_label = "<y>";
  p.series = {{"\"><script>", "<g>", "<title>", 0, false, {{0, 1}}}};
  p.legend = {{"<script>alert(1)</script>", 0}};
  p.reference_y = 1;
  p.reference_label = "<ref>";
  const std::string svg = RenderLinePlot(p);
  for (const char* bad : {"<b>", "<x>", "<y>", "<script", "<ref>", "<g>\"", "k\"<"}) {
    EXPECT_EQ(svg.find(bad), std::string::npos) << bad;
  }
  EXPECT_NE(svg.find("&lt;script&gt;alert(1)"), std::string::npos);
}

TEST(RenderStripPlot, OnePointPerRunAndAMeanPerColumn) {
  StripPlot p;
  p.kind = "run_times";
  p.columns = {{"sysA",
                0,
                {{"a1", "", 8, PointKind::kDropped},
                 {"a2", "", 9, PointKind::kCounted},
                 {"a3", "", 10, PointKind::kNotConverged}},
                9.0,
                "olympic 9.00"},
               {"sysB", 1, {{"b1", "", 5, PointKind::kOutsideWindow}}, std::nullopt, ""}};
  const std::string svg = RenderStripPlot(p);
  EXPECT_EQ(Count(svg, "class=\"run-point\""), 4u);
  EXPECT_NE(svg.find("data-series=\"4\""), std::string::npos);
  EXPECT_EQ(Count(svg, "class=\"mean\""), 1u);
  EXPECT_NE(svg.find("data-kind=\"dropped\""), std::string::npos);
  EXPECT_NE(svg.find("data-kind=\"not-converged\""), std::string::npos);
  EXPECT_NE(svg.find("olympic 9.00"), std::string::npos);
}

}  // namespace
}  // namespace trainbench::report

// Inline SVG plots for the HTML report, drawn without a plotting library or a script: a line
// plot (one polyline per series, e.g. one per run, with an optional horizontal reference line
// such as the quality target) and a strip plot (one column of points per category, e.g. run
// times per system, with a mean bar per column). Both draw axes with "nice" ticks, axis labels
// with units and a legend. Every string given is escaped here; callers pass plain text.
//
// Elements carry attributes that tests (and the page's script) read: the <svg> has
// class="plot", data-plot=<kind> and data-series=<number of series or points>; a line series is
// <polyline class="curve" data-run=... data-group=...>; a strip point is
// <g class="run-point" data-run=... data-kind=...>.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace trainbench::report {

// The colour of palette entry `i` (wraps around), "#rrggbb".
std::string PaletteColor(int i);

// Tick positions covering [lo, hi] with a step of 1, 2 or 5 times a power of ten, about
// `target` ticks; the first tick is <= lo and the last >= hi. lo == hi gives a unit range.
std::vector<double> NiceTicks(double lo, double hi, int target = 5);

// A tick label: the shortest of %g with enough digits to tell ticks `step` apart.
std::string FormatTick(double v, double step);

struct LegendEntry {
  std::string label;
  int color = 0;
};

struct LineSeries {
  std::string id;     // data-run
  std::string group;  // data-group (e.g. the system)
  std::string title;  // hover text
  int color = 0;      // palette index
  bool dashed = false;
  std::vector<std::pair<double, double>> points;  // (x, y), drawn in this order
};

struct LinePlot {
  std::string kind;  // data-plot
  std::string title;
  std::string x_label;  // with its unit, e.g. "minutes since run_start"
  std::string y_label;
  std::vector<LineSeries> series;
  std::vector<LegendEntry> legend;
  std::optional<double> reference_y;  // a dashed horizontal line, e.g. the quality target
  std::string reference_label;
  bool x_from_zero = true;
  bool y_from_zero = false;
  int width = 640;
  int height = 360;
};

// The <svg> element. An empty plot (no points) draws its axes and "no data".
std::string RenderLinePlot(const LinePlot& plot);

enum class PointKind { kCounted, kDropped, kNotConverged, kOutsideWindow };
const char* PointKindName(PointKind k);  // "counted", "dropped", ...

struct StripPoint {
  std::string id;  // data-run
  std::string title;
  double y = 0;
  PointKind kind = PointKind::kCounted;
};

struct StripColumn {
  std::string label;  // under the x axis
  int color = 0;
  std::vector<StripPoint> points;
  std::optional<double> mean;  // drawn as a bar across the column
  std::string mean_label;
};

struct StripPlot {
  std::string kind;
  std::string title;
  std::string x_label;
  std::string y_label;
  std::vector<StripColumn> columns;
  int width = 640;
  int height = 360;
};

std::string RenderStripPlot(const StripPlot& plot);

}  // namespace trainbench::report

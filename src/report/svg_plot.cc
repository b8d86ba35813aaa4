#include "report/svg_plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "report/html_escape.h"

namespace trainbench::report {

namespace {

// Tableau 10: distinct at a glance, readable on white.
constexpr const char* kPalette[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                    "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};

constexpr int kMarginLeft = 64;
constexpr int kMarginRight = 170;  // the legend
constexpr int kMarginTop = 34;
constexpr int kMarginBottom = 52;
constexpr size_t kMaxLabelChars = 24;

std::string Num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.2f", v);
  return buf;
}

// At most `max_chars` code points: when longer, the start and the end (the distinctive part of a
// "<folder>:<system>" name) joined by "…". Never splits a UTF-8 sequence.
std::string Shorten(const std::string& s, size_t max_chars) {
  std::vector<size_t> starts;  // byte offset of each code point
  for (size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) starts.push_back(i);
  }
  if (starts.size() <= max_chars || max_chars < 4) return s;
  const size_t head = (max_chars - 1) / 3, tail = max_chars - 1 - head;
  return s.substr(0, starts[head]) + "\xE2\x80\xA6" + s.substr(starts[starts.size() - tail]);
}

struct Range {
  double lo = 0, hi = 1;
  std::vector<double> ticks;
};

Range MakeRange(double lo, double hi) {
  Range r;
  r.ticks = NiceTicks(lo, hi);
  r.lo = r.ticks.front();
  r.hi = r.ticks.back();
  return r;
}

// Plot-area geometry and the mapping from data to pixels.
struct Frame {
  int width, height;
  double x0, x1, y0, y1;  // pixel bounds of the plot area
  Range xr, yr;
  double X(double v) const { return x0 + (v - xr.lo) / (xr.hi - xr.lo) * (x1 - x0); }
  double Y(double v) const { return y1 - (v - yr.lo) / (yr.hi - yr.lo) * (y1 - y0); }
};

std::string SvgOpen(const std::string& kind, size_t series, int width, int height,
                    const std::string& title) {
  std::string s = "<svg class=\"plot\" xmlns=\"http://www.w3.org/2000/svg\" data-plot=\"" +
                  EscapeHtml(kind) + "\" data-series=\"" + std::to_string(series) + "\" width=\"" +
                  std::to_string(width) + "\" height=\"" + std::to_string(height) +
                  "\" viewBox=\"0 0 " + std::to_string(width) + " " + std::to_string(height) +
                  "\" role=\"img\" aria-label=\"" + EscapeHtml(title) + "\">\n";
  s += "<text class=\"plot-title\" x=\"" + std::to_string(kMarginLeft) + "\" y=\"20\">" +
       EscapeHtml(title) + "</text>\n";
  return s;
}

// Grid lines, tick labels and the y axis label; x ticks only when `x_ticks`.
std::string Axes(const Frame& f, const std::string& x_label, const std::string& y_label,
                 bool x_ticks) {
  std::string s = "<g class=\"axes\">\n";
  const double ystep = f.yr.ticks.size() > 1 ? f.yr.ticks[1] - f.yr.ticks[0] : 1;
  for (double t : f.yr.ticks) {
    const std::string y = Num(f.Y(t));
    s += "<line class=\"grid\" x1=\"" + Num(f.x0) + "\" x2=\"" + Num(f.x1) + "\" y1=\"" + y +
         "\" y2=\"" + y + "\"/>";
    s += "<text class=\"tick\" text-anchor=\"end\" x=\"" + Num(f.x0 - 6) + "\" y=\"" +
         Num(f.Y(t) + 4) + "\">" + EscapeHtml(FormatTick(t, ystep)) + "</text>\n";
  }
  if (x_ticks) {
    const double xstep = f.xr.ticks.size() > 1 ? f.xr.ticks[1] - f.xr.ticks[0] : 1;
    for (double t : f.xr.ticks) {
      const std::string x = Num(f.X(t));
      s += "<line class=\"grid\" x1=\"" + x + "\" x2=\"" + x + "\" y1=\"" + Num(f.y0) + "\" y2=\"" +
           Num(f.y1) + "\"/>";
      s += "<text class=\"tick\" text-anchor=\"middle\" x=\"" + x + "\" y=\"" + Num(f.y1 + 16) +
           "\">" + EscapeHtml(FormatTick(t, xstep)) + "</text>\n";
    }
  }
  s += "<rect class=\"frame\" x=\"" + Num(f.x0) + "\" y=\"" + Num(f.y0) + "\" width=\"" +
       Num(f.x1 - f.x0) + "\" height=\"" + Num(f.y1 - f.y0) + "\"/>\n";
  s += "<text class=\"axis-label\" text-anchor=\"middle\" x=\"" + Num((f.x0 + f.x1) / 2) +
       "\" y=\"" + std::to_string(f.height - 10) + "\">" + EscapeHtml(x_label) + "</text>\n";
  s += "<text class=\"axis-label\" text-anchor=\"middle\" transform=\"translate(16," +
       Num((f.y0 + f.y1) / 2) + ") rotate(-90)\">" + EscapeHtml(y_label) + "</text>\n";
  return s + "</g>\n";
}

std::string LegendBox(const Frame& f, const std::vector<LegendEntry>& legend) {
  std::string s = "<g class=\"legend\">\n";
  double y = f.y0 + 8;
  for (const auto& e : legend) {
    const std::string color = PaletteColor(e.color);
    s += "<g class=\"legend-entry\" data-group=\"" + EscapeHtml(e.label) + "\"><title>" +
         EscapeHtml(e.label) + "</title>";
    s += "<line x1=\"" + Num(f.x1 + 12) + "\" x2=\"" + Num(f.x1 + 32) + "\" y1=\"" + Num(y) +
         "\" y2=\"" + Num(y) + "\" stroke=\"" + color + "\" stroke-width=\"3\"/>";
    s += "<text x=\"" + Num(f.x1 + 38) + "\" y=\"" + Num(y + 4) + "\">" +
         EscapeHtml(Shorten(e.label, kMaxLabelChars - 4)) + "</text></g>\n";
    y += 18;
  }
  return s + "</g>\n";
}

Frame MakeFrame(int width, int height, Range xr, Range yr) {
  Frame f{width,
          height,
          static_cast<double>(kMarginLeft),
          static_cast<double>(width - kMarginRight),
          static_cast<double>(kMarginTop),
          static_cast<double>(height - kMarginBottom),
          std::move(xr),
          std::move(yr)};
  return f;
}

std::string NoData(const Frame& f) {
  return "<text class=\"no-data\" text-anchor=\"middle\" x=\"" + Num((f.x0 + f.x1) / 2) +
         "\" y=\"" + Num((f.y0 + f.y1) / 2) + "\">no data</text>\n";
}

}  // namespace

std::string PaletteColor(int i) {
  constexpr int n = sizeof(kPalette) / sizeof(kPalette[0]);
  return kPalette[((i % n) + n) % n];
}

std::vector<double> NiceTicks(double lo, double hi, int target) {
  if (!std::isfinite(lo) || !std::isfinite(hi)) lo = 0, hi = 1;
  if (hi < lo) std::swap(lo, hi);
  if (hi - lo < 1e-12 * std::max(1.0, std::fabs(hi))) {
    lo -= 0.5 * std::max(1e-9, std::fabs(lo) * 0.1);
    hi += 0.5 * std::max(1e-9, std::fabs(hi) * 0.1);
  }
  const double raw = (hi - lo) / std::max(1, target);
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    step = m * mag;
    if (step >= raw) break;
  }
  const double first = std::floor(lo / step + 1e-9) * step;
  std::vector<double> ticks;
  for (int i = 0; i < 1000; ++i) {
    const double t = first + i * step;
    ticks.push_back(std::fabs(t) < step * 1e-9 ? 0.0 : t);
    if (t >= hi - step * 1e-9) break;
  }
  if (ticks.size() < 2) ticks.push_back(first + step);
  return ticks;
}

std::string FormatTick(double v, double step) {
  // Decimals enough for the step (0.05 -> 2), none for whole steps.
  int decimals = 0;
  if (step > 0 && step < 1) {
    decimals = static_cast<int>(std::ceil(-std::log10(step) - 1e-9));
  }
  char buf[48];
  if (std::fabs(v) >= 1e6 || (v != 0 && std::fabs(v) < 1e-4)) {
    std::snprintf(buf, sizeof(buf), "%.3g", v);
  } else {
    std::snprintf(buf, sizeof(buf), "%.*f", std::min(decimals, 6), v);
  }
  return buf;
}

const char* PointKindName(PointKind k) {
  switch (k) {
    case PointKind::kCounted:
      return "counted";
    case PointKind::kDropped:
      return "dropped";
    case PointKind::kNotConverged:
      return "not-converged";
    case PointKind::kOutsideWindow:
      return "outside-window";
  }
  return "counted";
}

std::string RenderLinePlot(const LinePlot& plot) {
  double xmin = std::numeric_limits<double>::infinity(), xmax = -xmin;
  double ymin = xmin, ymax = -xmin;
  bool any = false;
  for (const auto& s : plot.series) {
    for (const auto& [x, y] : s.points) {
      if (!std::isfinite(x) || !std::isfinite(y)) continue;
      any = true;
      xmin = std::min(xmin, x), xmax = std::max(xmax, x);
      ymin = std::min(ymin, y), ymax = std::max(ymax, y);
    }
  }
  if (!any) xmin = 0, xmax = 1, ymin = 0, ymax = 1;
  if (plot.reference_y && std::isfinite(*plot.reference_y)) {
    ymin = std::min(ymin, *plot.reference_y);
    ymax = std::max(ymax, *plot.reference_y);
  }
  if (plot.x_from_zero) xmin = std::min(0.0, xmin);
  if (plot.y_from_zero) ymin = std::min(0.0, ymin);
  const Frame f = MakeFrame(plot.width, plot.height, MakeRange(xmin, xmax), MakeRange(ymin, ymax));

  std::string s = SvgOpen(plot.kind, plot.series.size(), plot.width, plot.height, plot.title);
  s += Axes(f, plot.x_label, plot.y_label, true);
  if (!any) s += NoData(f);
  if (plot.reference_y && std::isfinite(*plot.reference_y)) {
    const std::string y = Num(f.Y(*plot.reference_y));
    s += "<g class=\"reference\"><line x1=\"" + Num(f.x0) + "\" x2=\"" + Num(f.x1) + "\" y1=\"" +
         y + "\" y2=\"" + y + "\"/><text text-anchor=\"end\" x=\"" + Num(f.x1 - 4) + "\" y=\"" +
         Num(f.Y(*plot.reference_y) - 5) + "\">" + EscapeHtml(plot.reference_label) +
         "</text></g>\n";
  }
  s += "<g class=\"series\">\n";
  for (const auto& series : plot.series) {
    const std::string color = PaletteColor(series.color);
    std::string pts;
    std::string marks;
    for (const auto& [x, y] : series.points) {
      if (!std::isfinite(x) || !std::isfinite(y)) continue;
      const std::string px = Num(f.X(x)), py = Num(f.Y(y));
      pts += (pts.empty() ? "" : " ") + px + "," + py;
      marks += "<circle cx=\"" + px + "\" cy=\"" + py + "\" r=\"2.5\"/>";
    }
    s += "<g class=\"run\" data-run=\"" + EscapeHtml(series.id) + "\" data-group=\"" +
         EscapeHtml(series.group) + "\" stroke=\"" + color + "\" fill=\"" + color + "\">";
    s += "<title>" + EscapeHtml(series.title) + "</title>";
    s += "<polyline class=\"curve" + std::string(series.dashed ? " dashed" : "") +
         "\" data-run=\"" + EscapeHtml(series.id) + "\" data-group=\"" + EscapeHtml(series.group) +
         "\" points=\"" + pts + "\"/>";
    s += marks + "</g>\n";
  }
  s += "</g>\n";
  s += LegendBox(f, plot.legend);
  return s + "</svg>\n";
}

std::string RenderStripPlot(const StripPlot& plot) {
  double ymin = std::numeric_limits<double>::infinity(), ymax = -ymin;
  size_t points = 0;
  for (const auto& c : plot.columns) {
    for (const auto& p : c.points) {
      if (!std::isfinite(p.y)) continue;
      ++points;
      ymin = std::min(ymin, p.y), ymax = std::max(ymax, p.y);
    }
    if (c.mean) ymin = std::min(ymin, *c.mean), ymax = std::max(ymax, *c.mean);
  }
  if (!std::isfinite(ymin)) ymin = 0, ymax = 1;
  ymin = std::min(0.0, ymin);
  const size_t n = std::max<size_t>(1, plot.columns.size());
  Frame f = MakeFrame(plot.width, plot.height, MakeRange(0, 1), MakeRange(ymin, ymax));
  f.xr.lo = 0;
  f.xr.hi = static_cast<double>(n);

  std::string s = SvgOpen(plot.kind, points, plot.width, plot.height, plot.title);
  s += Axes(f, plot.x_label, plot.y_label, false);
  if (points == 0) s += NoData(f);
  const double colw = (f.x1 - f.x0) / n;
  s += "<g class=\"series\">\n";
  for (size_t c = 0; c < plot.columns.size(); ++c) {
    const StripColumn& col = plot.columns[c];
    const double cx = f.X(c + 0.5);
    const std::string color = PaletteColor(col.color);
    s += "<g class=\"column\" data-group=\"" + EscapeHtml(col.label) + "\">";
    s += "<text class=\"tick\" text-anchor=\"middle\" x=\"" + Num(cx) + "\" y=\"" + Num(f.y1 + 16) +
         "\"><title>" + EscapeHtml(col.label) + "</title>" +
         EscapeHtml(Shorten(col.label, std::max<size_t>(6, static_cast<size_t>(colw / 7)))) +
         "</text>\n";
    if (col.mean) {
      const double half = std::min(colw * 0.35, 60.0);
      const std::string y = Num(f.Y(*col.mean));
      s += "<g class=\"mean\"><title>" + EscapeHtml(col.mean_label) + "</title><line x1=\"" +
           Num(cx - half) + "\" x2=\"" + Num(cx + half) + "\" y1=\"" + y + "\" y2=\"" + y +
           "\" stroke=\"" + color + "\"/><text x=\"" + Num(cx + half + 4) + "\" y=\"" +
           Num(f.Y(*col.mean) + 4) + "\">" + EscapeHtml(col.mean_label) + "</text></g>\n";
    }
    for (size_t i = 0; i < col.points.size(); ++i) {
      const StripPoint& p = col.points[i];
      if (!std::isfinite(p.y)) continue;
      // Deterministic jitter so equal times stay visible.
      const double x = cx + (static_cast<double>(i % 7) - 3.0) * std::min(6.0, colw / 16);
      const double y = f.Y(p.y);
      s += "<g class=\"run-point\" data-run=\"" + EscapeHtml(p.id) + "\" data-kind=\"" +
           PointKindName(p.kind) + "\"><title>" + EscapeHtml(p.title) + "</title>";
      switch (p.kind) {
        case PointKind::kCounted:
          s += "<circle cx=\"" + Num(x) + "\" cy=\"" + Num(y) + "\" r=\"4.5\" fill=\"" + color +
               "\" stroke=\"" + color + "\"/>";
          break;
        case PointKind::kDropped:
          s += "<circle cx=\"" + Num(x) + "\" cy=\"" + Num(y) +
               "\" r=\"4.5\" fill=\"white\" stroke-width=\"2\" stroke=\"" + color + "\"/>";
          break;
        case PointKind::kNotConverged:
          s += "<path d=\"M" + Num(x - 4) + "," + Num(y - 4) + "L" + Num(x + 4) + "," + Num(y + 4) +
               "M" + Num(x - 4) + "," + Num(y + 4) + "L" + Num(x + 4) + "," + Num(y - 4) +
               "\" stroke-width=\"2\" stroke=\"" + color + "\"/>";
          break;
        case PointKind::kOutsideWindow:
          s += "<rect x=\"" + Num(x - 3.5) + "\" y=\"" + Num(y - 3.5) +
               "\" width=\"7\" height=\"7\" fill=\"none\" stroke=\"#888\"/>";
          break;
      }
      s += "</g>\n";
    }
    s += "</g>\n";
  }
  s += "</g>\n";
  // Legend: the point kinds.
  s += "<g class=\"legend\">\n";
  double y = f.y0 + 8;
  const double lx = f.x1 + 22;
  const struct {
    PointKind kind;
    const char* text;
  } kinds[] = {{PointKind::kCounted, "counted in the mean"},
               {PointKind::kDropped, "dropped (min/max)"},
               {PointKind::kNotConverged, "did not converge"},
               {PointKind::kOutsideWindow, "outside the window"}};
  for (const auto& k : kinds) {
    const std::string cy = Num(y);
    s += "<g class=\"legend-entry\">";
    switch (k.kind) {
      case PointKind::kCounted:
        s += "<circle cx=\"" + Num(lx) + "\" cy=\"" + cy + "\" r=\"4.5\" fill=\"#555\"/>";
        break;
      case PointKind::kDropped:
        s += "<circle cx=\"" + Num(lx) + "\" cy=\"" + cy +
             "\" r=\"4.5\" fill=\"white\" stroke=\"#555\" stroke-width=\"2\"/>";
        break;
      case PointKind::kNotConverged:
        s += "<path d=\"M" + Num(lx - 4) + "," + Num(y - 4) + "L" + Num(lx + 4) + "," + Num(y + 4) +
             "M" + Num(lx - 4) + "," + Num(y + 4) + "L" + Num(lx + 4) + "," + Num(y - 4) +
             "\" stroke=\"#555\" stroke-width=\"2\"/>";
        break;
      case PointKind::kOutsideWindow:
        s += "<rect x=\"" + Num(lx - 3.5) + "\" y=\"" + Num(y - 3.5) +
             "\" width=\"7\" height=\"7\" fill=\"none\" stroke=\"#888\"/>";
        break;
    }
    s += "<text x=\"" + Num(lx + 10) + "\" y=\"" + Num(y + 4) + "\">" + k.text + "</text></g>\n";
    y += 18;
  }
  s += "<g class=\"legend-entry\"><line x1=\"" + Num(lx - 8) + "\" x2=\"" + Num(lx + 6) +
       "\" y1=\"" + Num(y) + "\" y2=\"" + Num(y) +
       "\" stroke=\"#555\" stroke-width=\"3\"/><text x=\"" + Num(lx + 10) + "\" y=\"" + Num(y + 4) +
       "\">olympic mean</text></g>\n";
  s += "</g>\n";
  return s + "</svg>\n";
}

}  // namespace trainbench::report

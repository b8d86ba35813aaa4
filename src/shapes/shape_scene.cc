#include "shapes/shape_scene.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "data/random.h"
#include "shapes/det_math.h"

namespace trainbench::shapes {

namespace {

constexpr uint64_t kSceneDomain = 0x5348415045530000ULL;  // "SHAPES"

const char* const kClassNames[kNumShapeClasses] = {"circle", "rectangle", "triangle",
                                                   "star",   "hexagon",   "cross"};

// A regular n-gon (or star, radii alternating r0, r1) of circumradius about 1, first vertex up.
std::vector<Point> Radial(int n, double r0, double r1) {
  std::vector<Point> p;
  for (int i = 0; i < n; ++i) {
    const double a = -kPi / 2 + 2 * kPi * i / n;
    const double r = i % 2 == 0 ? r0 : r1;
    p.push_back({r * DetCos(a), r * DetSin(a)});
  }
  return p;
}

double PolygonArea(const std::vector<Point>& p) {
  double a = 0;
  for (size_t i = 0; i < p.size(); ++i) {
    const Point& u = p[i];
    const Point& v = p[(i + 1) % p.size()];
    a += u.x * v.y - v.x * u.y;
  }
  return std::fabs(a) / 2;
}

// The class outlines in unit coordinates, centred on the origin.
const std::vector<Point>& UnitPolygon(int category) {
  static const std::vector<std::vector<Point>> kUnit = [] {
    std::vector<std::vector<Point>> u(kNumShapeClasses);
    u[static_cast<int>(ShapeClass::kCircle)] = Radial(32, 1, 1);
    u[static_cast<int>(ShapeClass::kRectangle)] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
    u[static_cast<int>(ShapeClass::kTriangle)] = Radial(3, 1, 1);
    u[static_cast<int>(ShapeClass::kStar)] = Radial(10, 1, 0.45);
    u[static_cast<int>(ShapeClass::kHexagon)] = Radial(6, 1, 1);
    const double a = 0.34;  // half-width of the cross's arms
    u[static_cast<int>(ShapeClass::kCross)] = {{-a, -1}, {a, -1}, {a, -a},  {1, -a},
                                               {1, a},   {a, a},  {a, 1},   {-a, 1},
                                               {-a, a},  {-1, a}, {-1, -a}, {-a, -a}};
    return u;
  }();
  return kUnit.at(static_cast<size_t>(category));
}

// Even-odd rule; for the coverage of edge pixels (which pixels a shape owns is decided by
// COCO's rasteriser, RasterizeCocoPolygons).
bool Inside(const std::vector<Point>& p, double x, double y) {
  bool in = false;
  for (size_t i = 0, j = p.size() - 1; i < p.size(); j = i++) {
    if ((p[i].y > y) != (p[j].y > y) &&
        x < (p[j].x - p[i].x) * (y - p[i].y) / (p[j].y - p[i].y) + p[i].x) {
      in = !in;
    }
  }
  return in;
}

struct Box {
  int x0, y0, x1, y1;  // inclusive pixel range, clipped to the image; empty when x1 < x0
};

Box PixelBox(const std::vector<Point>& p, int w, int h) {
  double minx = p[0].x, maxx = p[0].x, miny = p[0].y, maxy = p[0].y;
  for (const Point& q : p) {
    minx = std::min(minx, q.x), maxx = std::max(maxx, q.x);
    miny = std::min(miny, q.y), maxy = std::max(maxy, q.y);
  }
  Box b;
  b.x0 = std::max(0, static_cast<int>(std::floor(minx)));
  b.y0 = std::max(0, static_cast<int>(std::floor(miny)));
  b.x1 = std::min(w - 1, static_cast<int>(std::ceil(maxx)));
  b.y1 = std::min(h - 1, static_cast<int>(std::ceil(maxy)));
  return b;
}

using Rgb = std::array<double, 3>;

double Clamp(double v, double lo, double hi) { return v < lo ? lo : (v > hi ? hi : v); }

// The background's coarse colour grid (kBlobs).
struct BlobGrid {
  int gw = 0, gh = 0;
  std::vector<Rgb> c;
};

BlobGrid MakeBlobGrid(const Background& bg, int w, int h) {
  BlobGrid g;
  if (bg.kind != BackgroundKind::kBlobs) return g;
  g.gw = static_cast<int>(w / bg.period) + 2;
  g.gh = static_cast<int>(h / bg.period) + 2;
  data::Rng r(bg.blob_seed);
  for (int i = 0; i < g.gw * g.gh; ++i) {
    const double t = r.Uniform();
    Rgb c;
    for (int k = 0; k < 3; ++k)
      c[k] = Clamp(bg.a[k] + (bg.b[k] - bg.a[k]) * t + static_cast<double>(r.UniformInt(-20, 20)),
                   0, 255);
    g.c.push_back(c);
  }
  return g;
}

Rgb Lerp(const std::array<int, 3>& a, const std::array<int, 3>& b, double t) {
  return {a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t};
}

Rgb BackgroundColor(const Background& bg, const BlobGrid& g, int w, int h, double x, double y) {
  const double ca = DetCos(bg.angle), sa = DetSin(bg.angle);
  switch (bg.kind) {
    case BackgroundKind::kGradient: {
      const double diag = std::sqrt(static_cast<double>(w) * w + static_cast<double>(h) * h);
      return Lerp(bg.a, bg.b, Clamp(0.5 + ((x - w / 2.0) * ca + (y - h / 2.0) * sa) / diag, 0, 1));
    }
    case BackgroundKind::kStripes: {
      const double proj = x * ca + y * sa;
      return Lerp(bg.a, bg.b, 0.5 + 0.5 * DetSin(2 * kPi * proj / bg.period + bg.phase));
    }
    case BackgroundKind::kChecker: {
      const double u = x * ca + y * sa, v = -x * sa + y * ca;
      const long long parity = static_cast<long long>(std::floor(u / bg.period)) +
                               static_cast<long long>(std::floor(v / bg.period));
      return (parity & 1) ? Lerp(bg.a, bg.b, 1) : Lerp(bg.a, bg.b, 0);
    }
    case BackgroundKind::kBlobs: {
      const double gx = x / bg.period, gy = y / bg.period;
      const int ix = static_cast<int>(std::floor(gx)), iy = static_cast<int>(std::floor(gy));
      double fx = gx - ix, fy = gy - iy;
      fx = fx * fx * (3 - 2 * fx);  // smoothstep
      fy = fy * fy * (3 - 2 * fy);
      auto at = [&](int i, int j) -> const Rgb& {
        return g
            .c[static_cast<size_t>(std::clamp(j, 0, g.gh - 1)) * g.gw + std::clamp(i, 0, g.gw - 1)];
      };
      Rgb c;
      for (int k = 0; k < 3; ++k) {
        const double top = at(ix, iy)[k] + (at(ix + 1, iy)[k] - at(ix, iy)[k]) * fx;
        const double bot = at(ix, iy + 1)[k] + (at(ix + 1, iy + 1)[k] - at(ix, iy + 1)[k]) * fx;
        c[k] = top + (bot - top) * fy;
      }
      return c;
    }
  }
  return {0, 0, 0};
}

double LogUniform(data::Rng& r, double lo, double hi) {
  return DetExp(r.Uniform(DetLog(lo), DetLog(hi)));
}

}  // namespace

const char* ShapeClassName(int category) {
  TB_CHECK(category >= 0 && category < kNumShapeClasses, "category " << category);
  return kClassNames[category];
}

void ValidateShapesOptions(const ShapesOptions& o) {
  auto fail = [](const std::string& key, const std::string& why) {
    throw core::Error("detection option " + key + ": " + why);
  };
  if (o.width < 8 || o.width > 4096) fail("width", "must be in [8, 4096]");
  if (o.height < 8 || o.height > 4096) fail("height", "must be in [8, 4096]");
  if (o.min_objects < 0) fail("min_objects", "must be >= 0");
  if (o.max_objects < o.min_objects || o.max_objects > 1000)
    fail("max_objects", "must be in [min_objects, 1000]");
  if (!(o.min_size > 0) || !(o.max_size >= o.min_size) || o.max_size > 2)
    fail("min_size/max_size", "need 0 < min_size <= max_size <= 2");
  if (!(o.max_aspect >= 1) || o.max_aspect > 10) fail("max_aspect", "must be in [1, 10]");
  if (!(o.max_occlusion >= 0) || !(o.max_occlusion <= 1))
    fail("max_occlusion", "must be in [0, 1]");
  if (o.min_visible_area < 1) fail("min_visible_area", "must be >= 1");
  if (o.min_contrast < 0 || o.min_contrast > 765) fail("min_contrast", "must be in [0, 765]");
  if (o.noise < 0 || o.noise > 255) fail("noise", "must be in [0, 255]");
}

Scene SampleScene(uint64_t seed, int split, long long index, const ShapesOptions& o) {
  data::Rng r(data::MixSeed(
      {seed, kSceneDomain, static_cast<uint64_t>(split), static_cast<uint64_t>(index)}));
  Scene s;
  s.width = o.width;
  s.height = o.height;
  Background& bg = s.background;
  bg.kind = static_cast<BackgroundKind>(r.UniformInt(0, kNumBackgroundKinds - 1));
  for (int k = 0; k < 3; ++k) bg.a[k] = static_cast<int>(r.UniformInt(0, 255));
  for (int k = 0; k < 3; ++k)
    bg.b[k] = std::clamp(bg.a[k] + static_cast<int>(r.UniformInt(-90, 90)), 0, 255);
  bg.angle = r.Uniform(0, kPi);
  switch (bg.kind) {
    case BackgroundKind::kStripes:
      bg.period = r.Uniform(6, 24);
      break;
    case BackgroundKind::kChecker:
      bg.period = r.Uniform(8, 32);
      break;
    case BackgroundKind::kBlobs:
      bg.period = r.Uniform(16, 40);
      break;
    default:
      bg.period = 16;
      break;
  }
  bg.phase = r.Uniform(0, 2 * kPi);
  bg.blob_seed = r.NextU64();
  s.noise_seed = r.NextU64();
  const BlobGrid grid = MakeBlobGrid(bg, o.width, o.height);

  const int n = static_cast<int>(r.UniformInt(o.min_objects, o.max_objects));
  const double side = std::min(o.width, o.height);
  for (int i = 0; i < n; ++i) {
    ShapeObject obj;
    obj.category = static_cast<int>(r.UniformInt(0, kNumShapeClasses - 1));
    obj.size = LogUniform(r, o.min_size, o.max_size) * side;
    obj.aspect = LogUniform(r, 1 / o.max_aspect, o.max_aspect);
    obj.rotation = r.Uniform(0, 2 * kPi);
    obj.cx = r.Uniform(0, o.width);
    obj.cy = r.Uniform(0, o.height);
    const Rgb under =
        BackgroundColor(bg, grid, o.width, o.height, Clamp(obj.cx, 0, o.width - 1) + 0.5,
                        Clamp(obj.cy, 0, o.height - 1) + 0.5);
    for (int attempt = 0; attempt < 8; ++attempt) {
      double dist = 0;
      for (int k = 0; k < 3; ++k) {
        obj.color[k] = static_cast<int>(r.UniformInt(0, 255));
        dist += std::fabs(obj.color[k] - under[k]);
      }
      if (dist >= o.min_contrast) break;
    }
    obj.shade = r.Uniform(-0.25, 0.25);
    obj.shade_angle = r.Uniform(0, 2 * kPi);
    s.objects.push_back(obj);
  }
  return s;
}

std::vector<Point> ShapePolygon(const ShapeObject& o) {
  const std::vector<Point>& unit = UnitPolygon(o.category);
  static const std::vector<double> kUnitArea = [] {
    std::vector<double> a;
    for (int c = 0; c < kNumShapeClasses; ++c) a.push_back(PolygonArea(UnitPolygon(c)));
    return a;
  }();
  const double scale = o.size / std::sqrt(kUnitArea[static_cast<size_t>(o.category)]);
  const double sx = scale * std::sqrt(o.aspect), sy = scale / std::sqrt(o.aspect);
  const double c = DetCos(o.rotation), s = DetSin(o.rotation);
  std::vector<Point> p;
  for (const Point& u : unit) {
    const double x = o.cx + (sx * u.x) * c - (sy * u.y) * s;
    const double y = o.cy + (sx * u.x) * s + (sy * u.y) * c;
    p.push_back({std::nearbyint(x * 100) / 100, std::nearbyint(y * 100) / 100});
  }
  return p;
}

RenderedImage RenderScene(const Scene& scene, const ShapesOptions& o) {
  const int w = scene.width, h = scene.height;
  const size_t npix = static_cast<size_t>(w) * h;
  std::vector<std::vector<Point>> polys;
  std::vector<double> poly_area;
  for (const ShapeObject& obj : scene.objects) {
    polys.push_back(ShapePolygon(obj));
    poly_area.push_back(PolygonArea(polys.back()));
  }
  const size_t n = polys.size();
  TB_CHECK(n < 65535, "too many shapes in one scene: " << n);
  // The pixels of each shape: its polygon rasterised by COCO's rule, so that the shape's own
  // polygon, when written as its segmentation, gives back exactly these pixels.
  std::vector<std::vector<uint8_t>> coverage;
  for (const auto& p : polys) {
    Polygon flat;
    for (const Point& q : p) {
      flat.push_back(q.x);
      flat.push_back(q.y);
    }
    coverage.push_back(RasterizeCocoPolygons({flat}, w, h));
  }

  // Ownership by pixel centre, last shape wins; leave out shapes that show too little, until
  // all that remain pass.
  std::vector<char> active(n, 1);
  std::vector<uint16_t> owner(npix, 0);
  std::vector<long long> visible(n), unoccluded(n);
  while (true) {
    std::fill(owner.begin(), owner.end(), 0);
    std::fill(unoccluded.begin(), unoccluded.end(), 0);
    std::fill(visible.begin(), visible.end(), 0);
    for (size_t k = 0; k < n; ++k) {
      if (!active[k]) continue;
      for (size_t i = 0; i < npix; ++i) {
        if (!coverage[k][i]) continue;
        owner[i] = static_cast<uint16_t>(k + 1);
        ++unoccluded[k];
      }
    }
    for (uint16_t v : owner) {
      if (v) ++visible[v - 1];
    }
    bool dropped = false;
    for (size_t k = 0; k < n; ++k) {
      if (active[k] &&
          (visible[k] < o.min_visible_area || visible[k] < (1 - o.max_occlusion) * poly_area[k])) {
        active[k] = 0;
        dropped = true;
      }
    }
    if (!dropped) break;
  }

  RenderedImage r;
  std::vector<uint16_t> ann_of(n + 1, 0);  // scene index + 1 -> annotation index + 1
  for (size_t k = 0; k < n; ++k) {
    if (!active[k]) {
      ++r.left_out;
      continue;
    }
    ObjectAnnotation a;
    a.category = scene.objects[k].category;
    a.scene_index = static_cast<int>(k);
    r.objects.push_back(a);
    ann_of[k + 1] = static_cast<uint16_t>(r.objects.size());
  }
  r.labels.resize(npix);
  for (size_t i = 0; i < npix; ++i) r.labels[i] = ann_of[owner[i]];

  for (size_t j = 0; j < r.objects.size(); ++j) {
    ObjectAnnotation& a = r.objects[j];
    const size_t k = static_cast<size_t>(a.scene_index);
    std::vector<uint8_t> mask(npix, 0);
    int x0 = w, y0 = h, x1 = -1, y1 = -1;
    for (int y = 0; y < h; ++y) {
      for (int x = 0; x < w; ++x) {
        if (r.labels[static_cast<size_t>(y) * w + x] != j + 1) continue;
        mask[static_cast<size_t>(y) * w + x] = 1;
        x0 = std::min(x0, x), x1 = std::max(x1, x), y0 = std::min(y0, y), y1 = std::max(y1, y);
      }
    }
    a.bbox = {x0, y0, x1 - x0 + 1, y1 - y0 + 1};
    a.area = visible[k];
    a.visible_fraction = static_cast<double>(visible[k]) / poly_area[k];
    bool in_image = true;
    for (const Point& p : polys[k])
      in_image = in_image && p.x >= 0 && p.y >= 0 && p.x <= w && p.y <= h;
    if (in_image && visible[k] == unoccluded[k]) {
      Polygon flat;
      for (const Point& p : polys[k]) {
        flat.push_back(p.x);
        flat.push_back(p.y);
      }
      a.segmentation.push_back(std::move(flat));
    } else {
      a.traced = true;
      a.segmentation = TraceMaskPolygons(mask, w, h);
    }
  }

  // Colours: the background at pixel centres, then each shape blended by its coverage.
  const BlobGrid grid = MakeBlobGrid(scene.background, w, h);
  std::vector<Rgb> c(npix);
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x)
      c[static_cast<size_t>(y) * w + x] =
          BackgroundColor(scene.background, grid, w, h, x + 0.5, y + 0.5);
  }
  for (const ObjectAnnotation& a : r.objects) {
    const size_t k = static_cast<size_t>(a.scene_index);
    const ShapeObject& obj = scene.objects[k];
    const std::vector<Point>& poly = polys[k];
    const Box b = PixelBox(poly, w, h);
    const int bw = b.x1 - b.x0 + 1, bh = b.y1 - b.y0 + 1;
    std::vector<char> corner;
    if (o.antialias) {
      corner.resize(static_cast<size_t>(bw + 1) * (bh + 1));
      for (int y = 0; y <= bh; ++y) {
        for (int x = 0; x <= bw; ++x)
          corner[static_cast<size_t>(y) * (bw + 1) + x] = Inside(poly, b.x0 + x, b.y0 + y);
      }
    }
    const double sc = DetCos(obj.shade_angle), ss = DetSin(obj.shade_angle);
    const double half = obj.size / 2;
    for (int y = b.y0; y <= b.y1; ++y) {
      for (int x = b.x0; x <= b.x1; ++x) {
        const bool centre = Inside(poly, x + 0.5, y + 0.5);
        double alpha = centre ? 1 : 0;
        if (o.antialias) {
          const size_t ci = static_cast<size_t>(y - b.y0) * (bw + 1) + (x - b.x0);
          const bool c00 = corner[ci], c10 = corner[ci + 1], c01 = corner[ci + bw + 1],
                     c11 = corner[ci + bw + 2];
          if (c00 != centre || c10 != centre || c01 != centre || c11 != centre) {
            int hits = 0;
            for (int sy = 0; sy < 4; ++sy) {
              for (int sx = 0; sx < 4; ++sx)
                hits += Inside(poly, x + (sx + 0.5) / 4, y + (sy + 0.5) / 4);
            }
            alpha = hits / 16.0;
          }
        }
        if (alpha == 0) continue;
        const double t = Clamp(((x + 0.5 - obj.cx) * sc + (y + 0.5 - obj.cy) * ss) / half, -1, 1);
        Rgb& px = c[static_cast<size_t>(y) * w + x];
        for (int ch = 0; ch < 3; ++ch) {
          const double col = Clamp(obj.color[ch] * (1 + obj.shade * t), 0, 255);
          px[ch] += alpha * (col - px[ch]);
        }
      }
    }
  }
  r.image = data::Image(h, w, 3);
  data::Rng noise(scene.noise_seed);
  for (size_t i = 0; i < npix; ++i) {
    for (int ch = 0; ch < 3; ++ch) {
      long long v = static_cast<long long>(std::nearbyint(c[i][ch]));
      if (o.noise > 0) v += noise.UniformInt(-o.noise, o.noise);
      r.image.data[i * 3 + ch] = static_cast<uint8_t>(std::clamp(v, 0LL, 255LL));
    }
  }
  return r;
}

}  // namespace trainbench::shapes

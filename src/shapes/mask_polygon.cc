#include "shapes/mask_polygon.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "coco/rle.h"
#include "core/error.h"

namespace trainbench::shapes {

namespace {

struct IPoint {
  int x, y;
};

// Directions of boundary edges, in image coordinates (y grows downwards).
enum Dir { kEast = 0, kSouth = 1, kWest = 2, kNorth = 3 };
constexpr int kDx[4] = {1, 0, -1, 0};
constexpr int kDy[4] = {0, 1, 0, -1};

long long TwiceSignedArea(const std::vector<IPoint>& p) {
  long long a = 0;
  for (size_t i = 0; i < p.size(); ++i) {
    const IPoint& u = p[i];
    const IPoint& v = p[(i + 1) % p.size()];
    a += static_cast<long long>(u.x) * v.y - static_cast<long long>(v.x) * u.y;
  }
  return a;
}

// Drops the vertices where a loop goes straight on.
std::vector<IPoint> RemoveCollinear(const std::vector<IPoint>& p) {
  std::vector<IPoint> out;
  const size_t n = p.size();
  for (size_t i = 0; i < n; ++i) {
    const IPoint& a = p[(i + n - 1) % n];
    const IPoint& b = p[i];
    const IPoint& c = p[(i + 1) % n];
    const long long cross = static_cast<long long>(b.x - a.x) * (c.y - b.y) -
                            static_cast<long long>(b.y - a.y) * (c.x - b.x);
    if (cross != 0) out.push_back(b);
  }
  return out;
}

// The boundary loops of one component (pixels where comp[(y - y0) * w + (x - x0)] != 0, inside
// the box x0..x0+w-1, y0..y0+h-1), in image coordinates. Edges run with the component on their
// right (outline clockwise on screen, positive TwiceSignedArea; holes the other way). Where two
// pixels of the component touch only at a corner the walk turns right, keeping them apart
// (4-connectivity of the component).
std::vector<std::vector<IPoint>> TraceLoops(const std::vector<uint8_t>& comp, int x0, int y0, int w,
                                            int h) {
  const int vw = w + 1, vh = h + 1;
  std::vector<uint8_t> out(static_cast<size_t>(vw) * vh,
                           0);  // bit d: an edge leaves this vertex in direction d
  auto in = [&](int x, int y) {
    return x >= 0 && y >= 0 && x < w && y < h && comp[static_cast<size_t>(y) * w + x];
  };
  auto vid = [&](int x, int y) { return static_cast<size_t>(y) * vw + x; };
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      if (!in(x, y)) continue;
      if (!in(x, y - 1)) out[vid(x, y)] |= 1 << kEast;
      if (!in(x + 1, y)) out[vid(x + 1, y)] |= 1 << kSouth;
      if (!in(x, y + 1)) out[vid(x + 1, y + 1)] |= 1 << kWest;
      if (!in(x - 1, y)) out[vid(x, y + 1)] |= 1 << kNorth;
    }
  }
  std::vector<uint8_t> used(out.size(), 0);
  std::vector<std::vector<IPoint>> loops;
  for (int sy = 0; sy < vh; ++sy) {
    for (int sx = 0; sx < vw; ++sx) {
      for (int sd = 0; sd < 4; ++sd) {
        if (!(out[vid(sx, sy)] & (1 << sd)) || (used[vid(sx, sy)] & (1 << sd))) continue;
        std::vector<IPoint> loop;
        int x = sx, y = sy, d = sd;
        while (true) {
          loop.push_back({x0 + x, y0 + y});
          used[vid(x, y)] |= static_cast<uint8_t>(1 << d);
          x += kDx[d];
          y += kDy[d];
          // The next edge: right turn, straight on, left turn (never back), from the full edge set
          // so the pairing of in- and out-edges at a vertex does not depend on the walk order.
          const uint8_t o = out[vid(x, y)];
          int next = -1;
          for (int turn : {1, 0, 3}) {
            const int nd = (d + turn) & 3;
            if (o & (1 << nd)) {
              next = nd;
              break;
            }
          }
          TB_CHECK(next >= 0, "boundary walk lost at vertex " << x << "," << y);
          d = next;
          if (x == sx && y == sy && d == sd) break;
          TB_CHECK(!(used[vid(x, y)] & (1 << d)), "boundary walk reached a used edge");
        }
        loops.push_back(RemoveCollinear(loop));
      }
    }
  }
  return loops;
}

// Joins each hole to the outline with a vertical cut from the hole's top-left vertex up to the
// nearest horizontal edge above it. Holes are taken top first, so that edge belongs to the
// outline or to a hole already joined.
std::vector<IPoint> JoinHoles(std::vector<IPoint> outline, std::vector<std::vector<IPoint>> holes) {
  for (auto& hole : holes) {
    size_t top = 0;
    for (size_t i = 1; i < hole.size(); ++i) {
      if (hole[i].y < hole[top].y || (hole[i].y == hole[top].y && hole[i].x < hole[top].x)) top = i;
    }
    std::rotate(hole.begin(), hole.begin() + static_cast<long>(top), hole.end());
  }
  std::sort(holes.begin(), holes.end(), [](const auto& a, const auto& b) {
    return a[0].y != b[0].y ? a[0].y < b[0].y : a[0].x < b[0].x;
  });
  for (const auto& hole : holes) {
    const IPoint h = hole[0];
    size_t best = outline.size();
    int best_y = 0;
    for (size_t i = 0; i < outline.size(); ++i) {
      const IPoint& p = outline[i];
      const IPoint& q = outline[(i + 1) % outline.size()];
      if (p.y != q.y || p.y >= h.y || h.x < std::min(p.x, q.x) || h.x > std::max(p.x, q.x))
        continue;
      if (best == outline.size() || p.y > best_y) {
        best = i;
        best_y = p.y;
      }
    }
    TB_CHECK(best < outline.size(), "hole at " << h.x << "," << h.y << " has no outline above it");
    // Attach at an existing vertex of that edge, or at a new one inside it.
    const size_t next = (best + 1) % outline.size();
    size_t at = best;
    if (outline[next].x == h.x) {
      at = next;
    } else if (outline[best].x != h.x) {
      outline.insert(outline.begin() + static_cast<long>(best) + 1, IPoint{h.x, best_y});
      at = best + 1;
    }
    std::vector<IPoint> joined(outline.begin(), outline.begin() + static_cast<long>(at) + 1);
    joined.insert(joined.end(), hole.begin(), hole.end());
    joined.push_back(h);
    joined.push_back(outline[at]);
    joined.insert(joined.end(), outline.begin() + static_cast<long>(at) + 1, outline.end());
    outline = std::move(joined);
  }
  return outline;
}

}  // namespace

std::vector<Polygon> TraceMaskPolygons(const std::vector<uint8_t>& mask, int width, int height) {
  TB_CHECK(mask.size() == static_cast<size_t>(width) * height,
           "mask size " << mask.size() << " != " << width << "x" << height);
  std::vector<int> comp_of(mask.size(), -1);
  std::vector<Polygon> polygons;
  std::vector<size_t> stack, pixels;
  for (size_t start = 0; start < mask.size(); ++start) {
    if (!mask[start] || comp_of[start] >= 0) continue;
    const int c = static_cast<int>(polygons.size());
    // Flood fill (4-neighbours), collecting the component's pixels and box.
    pixels.clear();
    stack.assign(1, start);
    comp_of[start] = c;
    int bx0 = width, by0 = height, bx1 = -1, by1 = -1;
    while (!stack.empty()) {
      const size_t i = stack.back();
      stack.pop_back();
      pixels.push_back(i);
      const int x = static_cast<int>(i % width), y = static_cast<int>(i / width);
      bx0 = std::min(bx0, x), bx1 = std::max(bx1, x), by0 = std::min(by0, y),
      by1 = std::max(by1, y);
      auto visit = [&](int nx, int ny) {
        if (nx < 0 || ny < 0 || nx >= width || ny >= height) return;
        const size_t j = static_cast<size_t>(ny) * width + nx;
        if (mask[j] && comp_of[j] < 0) {
          comp_of[j] = c;
          stack.push_back(j);
        }
      };
      visit(x + 1, y);
      visit(x - 1, y);
      visit(x, y + 1);
      visit(x, y - 1);
    }
    const int w = bx1 - bx0 + 1, h = by1 - by0 + 1;
    std::vector<uint8_t> comp(static_cast<size_t>(w) * h, 0);
    for (size_t i : pixels) {
      comp[static_cast<size_t>(i / width - by0) * w + (i % width - bx0)] = 1;
    }
    std::vector<std::vector<IPoint>> loops = TraceLoops(comp, bx0, by0, w, h);
    std::vector<IPoint> outline;
    std::vector<std::vector<IPoint>> holes;
    for (auto& l : loops) {
      if (TwiceSignedArea(l) > 0) {
        TB_CHECK(outline.empty(), "a 4-connected component with two outlines");
        outline = std::move(l);
      } else {
        holes.push_back(std::move(l));
      }
    }
    TB_CHECK(!outline.empty(), "a component without an outline");
    Polygon poly;
    for (const IPoint& p : JoinHoles(std::move(outline), std::move(holes))) {
      poly.push_back(p.x);
      poly.push_back(p.y);
    }
    polygons.push_back(std::move(poly));
  }
  return polygons;
}

std::vector<uint8_t> RasterizeCocoPolygons(const std::vector<Polygon>& polygons, int width,
                                           int height) {
  // COCO's rasteriser itself (coco::RleFrPolygons: rleFrPoly per polygon, then the union), its
  // column-major mask turned row-major.
  const int64_t h = height, w = width;
  std::vector<uint8_t> mask(static_cast<size_t>(w * h), 0);
  if (polygons.empty() || w == 0 || h == 0) return mask;
  const std::vector<uint8_t> cols = coco::RleDecode(coco::RleFrPolygons(polygons, h, w));
  for (int64_t i = 0; i < w * h; ++i) {
    if (cols[static_cast<size_t>(i)]) mask[static_cast<size_t>((i % h) * w + i / h)] = 1;
  }
  return mask;
}

double MaskIou(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
  TB_CHECK(a.size() == b.size(), "masks of different sizes");
  long long inter = 0, uni = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    inter += (a[i] && b[i]);
    uni += (a[i] || b[i]);
  }
  return uni == 0 ? 1.0 : static_cast<double>(inter) / static_cast<double>(uni);
}

}  // namespace trainbench::shapes

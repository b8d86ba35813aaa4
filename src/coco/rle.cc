#include "coco/rle.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "core/error.h"

namespace trainbench::coco {
namespace {

uint32_t Count(const std::vector<uint32_t>& c, size_t i) { return i < c.size() ? c[i] : 0; }

bool SizeOk(int64_t h, int64_t w) {
  return h >= 0 && w >= 0 && h <= kMaxMaskSide && w <= kMaxMaskSide;
}

// cocoapi's (int)(5 * v + .5), or false where that conversion is undefined.
bool Upsample(double v, int* out) {
  const double u = 5 * v + .5;
  if (!(u > -2147483649.0 && u < 2147483648.0)) return false;  // also false for NaN
  *out = static_cast<int>(u);
  return true;
}

}  // namespace

Rle RleEncode(const uint8_t* mask, int64_t h, int64_t w) {
  TB_CHECK(SizeOk(h, w), "mask size " << h << " x " << w << " above " << kMaxMaskSide);
  Rle r;
  r.h = h;
  r.w = w;
  const int64_t a = h * w;
  uint8_t p = 0;
  uint32_t c = 0;
  for (int64_t j = 0; j < a; ++j) {
    const uint8_t v = mask[j] ? 1 : 0;
    if (v != p) {
      r.counts.push_back(c);
      c = 0;
      p = v;
    }
    ++c;
  }
  r.counts.push_back(c);
  return r;
}

std::vector<uint8_t> RleDecode(const Rle& r) {
  const size_t a = static_cast<size_t>(r.h * r.w);
  std::vector<uint8_t> m(a, 0);
  size_t pos = 0;
  uint8_t v = 0;
  for (uint32_t c : r.counts) {
    const size_t end = std::min(a, pos + c);
    if (v)
      std::fill(m.begin() + static_cast<std::ptrdiff_t>(pos),
                m.begin() + static_cast<std::ptrdiff_t>(end), 1);
    pos = end;
    v = !v;
  }
  return m;
}

uint64_t RleArea(const Rle& r) {
  uint64_t a = 0;
  for (size_t j = 1; j < r.counts.size(); j += 2) a += r.counts[j];
  return a;
}

uint64_t RleCountSum(const Rle& r) {
  uint64_t s = 0;
  for (uint32_t c : r.counts) s += c;
  return s;
}

Box RleToBbox(const Rle& r) {
  // maskApi.c rleToBbox, in its unsigned 32-bit arithmetic.
  const uint32_t h = static_cast<uint32_t>(r.h), w = static_cast<uint32_t>(r.w);
  const size_t m = (r.counts.size() / 2) * 2;
  if (m == 0 || h == 0) return {0, 0, 0, 0};
  uint32_t xs = w, ys = h, xe = 0, ye = 0, cc = 0, xp = 0;
  for (size_t j = 0; j < m; ++j) {
    cc += r.counts[j];
    const uint32_t t = cc - static_cast<uint32_t>(j % 2);
    const uint32_t y = t % h, x = (t - y) / h;
    if (j % 2 == 0) {
      xp = x;
    } else if (xp < x) {
      ys = 0;
      ye = h - 1;
    }
    xs = std::min(xs, x);
    xe = std::max(xe, x);
    ys = std::min(ys, y);
    ye = std::max(ye, y);
  }
  return {static_cast<double>(xs), static_cast<double>(ys), static_cast<double>(xe - xs + 1),
          static_cast<double>(ye - ys + 1)};
}

Rle RleMerge(const std::vector<Rle>& rles, bool intersect) {
  if (rles.empty()) return Rle{};
  if (rles.size() == 1) return rles[0];
  int64_t h = rles[0].h, w = rles[0].w;
  std::vector<uint32_t> cnts = rles[0].counts;
  for (size_t i = 1; i < rles.size(); ++i) {
    const Rle& b_rle = rles[i];
    if (b_rle.h != h || b_rle.w != w) {
      h = w = 0;
      cnts.clear();
      break;
    }
    const std::vector<uint32_t> a_cnts = std::move(cnts);
    const std::vector<uint32_t>& b_cnts = b_rle.counts;
    cnts.clear();
    uint32_t ca = Count(a_cnts, 0), cb = Count(b_cnts, 0), cc = 0;
    uint64_t ct = 1;  // pixels left on both sides: 64 bits, ca + cb may pass 2^32
    bool v = false, va = false, vb = false;
    size_t a = 1, b = 1;
    while (ct > 0) {
      const uint32_t c = std::min(ca, cb);
      cc += c;
      ct = 0;
      ca -= c;
      if (!ca && a < a_cnts.size()) {
        ca = a_cnts[a++];
        va = !va;
      }
      ct += ca;
      cb -= c;
      if (!cb && b < b_cnts.size()) {
        cb = b_cnts[b++];
        vb = !vb;
      }
      ct += cb;
      // One side used up while the other has pixels left: the counts sum to different totals
      // (malformed), and the loop would take min(0, cb) = 0 forever (as cocoapi's does).
      if ((!ca && a >= a_cnts.size()) || (!cb && b >= b_cnts.size())) ct = 0;
      const bool vp = v;
      v = intersect ? (va && vb) : (va || vb);
      if (v != vp || ct == 0) {
        cnts.push_back(cc);
        cc = 0;
      }
    }
  }
  Rle out;
  out.h = h;
  out.w = w;
  out.counts = std::move(cnts);
  return out;
}

uint64_t RlePolyWalkLength(const std::vector<double>& xy) {
  const size_t k = xy.size() / 2;
  if (k == 0) return 0;
  int x0 = 0, y0 = 0, xp = 0, yp = 0;
  if (!Upsample(xy[0], &x0) || !Upsample(xy[1], &y0)) return UINT64_MAX;
  xp = x0;
  yp = y0;
  uint64_t total = 0;
  for (size_t j = 1; j <= k; ++j) {
    int x = x0, y = y0;  // j == k closes the polygon
    if (j < k && (!Upsample(xy[j * 2], &x) || !Upsample(xy[j * 2 + 1], &y))) return UINT64_MAX;
    const int64_t dx = std::llabs(static_cast<int64_t>(x) - xp);
    const int64_t dy = std::llabs(static_cast<int64_t>(y) - yp);
    total += static_cast<uint64_t>(std::max(dx, dy)) + 1;
    xp = x;
    yp = y;
  }
  return total;
}

Rle RleFrPoly(const std::vector<double>& xy, int64_t h, int64_t w) {
  // maskApi.c rleFrPoly: upsample by 5, walk the boundary densely, keep the points where the
  // upsampled x crosses a pixel centre column, downsample, and turn those column-wise
  // transitions into run lengths.
  TB_CHECK(SizeOk(h, w), "mask size " << h << " x " << w << " above " << kMaxMaskSide);
  const size_t k = xy.size() / 2;
  Rle r;
  r.h = h;
  r.w = w;
  if (k == 0) {
    r.counts.push_back(static_cast<uint32_t>(h * w));
    return r;
  }
  const double scale = 5;
  std::vector<int> x(k + 1), y(k + 1);
  for (size_t j = 0; j < k; ++j) x[j] = static_cast<int>(scale * xy[j * 2 + 0] + .5);
  x[k] = x[0];
  for (size_t j = 0; j < k; ++j) y[j] = static_cast<int>(scale * xy[j * 2 + 1] + .5);
  y[k] = y[0];
  std::vector<int> u, v;
  size_t total = 0;
  for (size_t j = 0; j < k; ++j) {
    total +=
        static_cast<size_t>(std::max(std::abs(x[j] - x[j + 1]), std::abs(y[j] - y[j + 1]))) + 1;
  }
  u.reserve(total);
  v.reserve(total);
  for (size_t j = 0; j < k; ++j) {
    int xs = x[j], xe = x[j + 1], ys = y[j], ye = y[j + 1];
    const int dx = std::abs(xe - xs), dy = std::abs(ys - ye);
    const bool flip = (dx >= dy && xs > xe) || (dx < dy && ys > ye);
    if (flip) {
      std::swap(xs, xe);
      std::swap(ys, ye);
    }
    // cocoapi divides 0 by 0 for a repeated vertex; the point it makes is never read (its x
    // equals both neighbours'), so any slope will do.
    const double s = dx >= dy ? (dx == 0 ? 0.0 : static_cast<double>(ye - ys) / dx)
                              : static_cast<double>(xe - xs) / dy;
    if (dx >= dy) {
      for (int d = 0; d <= dx; ++d) {
        const int t = flip ? dx - d : d;
        u.push_back(t + xs);
        v.push_back(static_cast<int>(ys + s * t + .5));
      }
    } else {
      for (int d = 0; d <= dy; ++d) {
        const int t = flip ? dy - d : d;
        v.push_back(t + ys);
        u.push_back(static_cast<int>(xs + s * t + .5));
      }
    }
  }
  // Points along the y-boundary, downsampled, as pixel positions x * h + y. cocoapi computes
  // them in int and casts to uint; below 2^32 (kMaxMaskSide) that is this 64-bit value.
  std::vector<uint64_t> a;
  a.reserve(u.size() + 1);
  for (size_t j = 1; j < u.size(); ++j) {
    if (u[j] == u[j - 1]) continue;
    double xd = static_cast<double>(u[j] < u[j - 1] ? u[j] : u[j] - 1);
    xd = (xd + .5) / scale - .5;
    if (std::floor(xd) != xd || xd < 0 || xd > static_cast<double>(w - 1)) continue;
    double yd = static_cast<double>(v[j] < v[j - 1] ? v[j] : v[j - 1]);
    yd = (yd + .5) / scale - .5;
    if (yd < 0) {
      yd = 0;
    } else if (yd > static_cast<double>(h)) {
      yd = static_cast<double>(h);
    }
    yd = std::ceil(yd);
    a.push_back(static_cast<uint64_t>(xd) * static_cast<uint64_t>(h) + static_cast<uint64_t>(yd));
  }
  a.push_back(static_cast<uint64_t>(h) * static_cast<uint64_t>(w));
  std::sort(a.begin(), a.end());
  uint64_t p = 0;
  for (uint64_t& t : a) {
    const uint64_t cur = t;
    t -= p;
    p = cur;
  }
  // Every difference is at most h * w < 2^32.
  size_t j = 0;
  r.counts.push_back(static_cast<uint32_t>(a[j++]));
  while (j < a.size()) {
    if (a[j] > 0) {
      r.counts.push_back(static_cast<uint32_t>(a[j++]));
    } else {
      ++j;
      if (j < a.size()) r.counts.back() += static_cast<uint32_t>(a[j++]);
    }
  }
  return r;
}

Rle RleFrBbox(const Box& bb, int64_t h, int64_t w) {
  // rleFrPoly keeps the crossings of pixel-centre columns 0..w-1 and clamps rows to [0, h]; an
  // edge at -1 or beyond (w + 1 or beyond) crosses the same columns and clamps to the same rows,
  // so moving a coordinate from further out to there changes no pixel (the corners keep their
  // order, so a box of negative size stays one).
  const auto clip = [](double v, int64_t size) {
    return std::clamp(v, -1.0, static_cast<double>(size) + 1.0);
  };
  const double xs = clip(bb[0], w), xe = clip(bb[0] + bb[2], w);
  const double ys = clip(bb[1], h), ye = clip(bb[1] + bb[3], h);
  return RleFrPoly({xs, ys, xs, ye, xe, ye, xe, ys}, h, w);
}

Rle RleFrPolygons(const std::vector<std::vector<double>>& polygons, int64_t h, int64_t w) {
  std::vector<Rle> parts;
  parts.reserve(polygons.size());
  for (const auto& p : polygons) parts.push_back(RleFrPoly(p, h, w));
  return RleMerge(parts, false);
}

std::string RleToString(const Rle& r) {
  std::string s;
  for (size_t i = 0; i < r.counts.size(); ++i) {
    int64_t x = static_cast<int64_t>(r.counts[i]);
    if (i > 2) x -= static_cast<int64_t>(r.counts[i - 2]);
    bool more = true;
    while (more) {
      char c = static_cast<char>(x & 0x1f);
      x >>= 5;  // arithmetic shift, as cocoapi's `long x >>= 5` with GCC and Clang
      more = (c & 0x10) ? x != -1 : x != 0;
      if (more) c |= 0x20;
      c += 48;
      s.push_back(c);
    }
  }
  return s;
}

bool RleFrString(std::string_view s, int64_t h, int64_t w, Rle* out) {
  out->h = h;
  out->w = w;
  out->counts.clear();
  size_t p = 0;
  while (p < s.size()) {
    int64_t x = 0;
    int k = 0;
    bool more = true;
    while (more) {
      if (p >= s.size()) return false;  // ends inside a number
      const int ch = static_cast<unsigned char>(s[p]);
      if (ch < 48 || ch > 111 || k > 12) return false;
      const int c = ch - 48;
      x |= static_cast<int64_t>(c & 0x1f) << (5 * k);
      more = (c & 0x20) != 0;
      ++p;
      ++k;
      if (!more && (c & 0x10)) x |= static_cast<int64_t>(-1) * (static_cast<int64_t>(1) << (5 * k));
    }
    const size_t m = out->counts.size();
    if (m > 2) x += static_cast<int64_t>(out->counts[m - 2]);
    out->counts.push_back(static_cast<uint32_t>(x));
  }
  return true;
}

std::vector<double> BboxIou(const std::vector<Box>& dt, const std::vector<Box>& gt,
                            const std::vector<uint8_t>& iscrowd) {
  const size_t m = dt.size(), n = gt.size();
  std::vector<double> o(m * n, 0.0);
  for (size_t g = 0; g < n; ++g) {
    const Box& G = gt[g];
    const double ga = G[2] * G[3];
    const bool crowd = !iscrowd.empty() && iscrowd[g];
    for (size_t d = 0; d < m; ++d) {
      const Box& D = dt[d];
      const double da = D[2] * D[3];
      const double w = std::fmin(D[2] + D[0], G[2] + G[0]) - std::fmax(D[0], G[0]);
      if (w <= 0) continue;
      const double h = std::fmin(D[3] + D[1], G[3] + G[1]) - std::fmax(D[1], G[1]);
      if (h <= 0) continue;
      const double i = w * h;
      const double u = crowd ? da : da + ga - i;
      o[d * n + g] = i / u;
    }
  }
  return o;
}

std::vector<double> RleIou(const std::vector<Rle>& dt, const std::vector<Rle>& gt,
                           const std::vector<uint8_t>& iscrowd) {
  const size_t m = dt.size(), n = gt.size();
  std::vector<Box> db, gb;
  db.reserve(m);
  gb.reserve(n);
  for (const Rle& r : dt) db.push_back(RleToBbox(r));
  for (const Rle& r : gt) gb.push_back(RleToBbox(r));
  std::vector<double> o = BboxIou(db, gb, iscrowd);
  for (size_t g = 0; g < n; ++g) {
    for (size_t d = 0; d < m; ++d) {
      double& out = o[d * n + g];
      if (!(out > 0)) continue;
      const bool crowd = !iscrowd.empty() && iscrowd[g];
      if (dt[d].h != gt[g].h || dt[d].w != gt[g].w) {
        out = -1;
        continue;
      }
      const std::vector<uint32_t>& A = dt[d].counts;
      const std::vector<uint32_t>& B = gt[g].counts;
      uint32_t ca = Count(A, 0), cb = Count(B, 0);
      uint64_t ct = 1;  // pixels left on both sides: 64 bits, ca + cb may pass 2^32
      uint64_t i = 0, u = 0;
      bool va = false, vb = false;
      size_t a = 1, b = 1;
      while (ct > 0) {
        const uint32_t c = std::min(ca, cb);
        if (va || vb) {
          u += c;
          if (va && vb) i += c;
        }
        ct = 0;
        ca -= c;
        if (!ca && a < A.size()) {
          ca = A[a++];
          va = !va;
        }
        ct += ca;
        cb -= c;
        if (!cb && b < B.size()) {
          cb = B[b++];
          vb = !vb;
        }
        ct += cb;
        // Different totals (malformed): stop at the shorter mask instead of looping forever.
        if ((!ca && a >= A.size()) || (!cb && b >= B.size())) ct = 0;
      }
      if (i == 0) {
        u = 1;
      } else if (crowd) {
        u = RleArea(dt[d]);
      }
      out = static_cast<double>(i) / static_cast<double>(u);
    }
  }
  return o;
}

}  // namespace trainbench::coco

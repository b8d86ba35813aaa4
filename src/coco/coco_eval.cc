#include "coco/coco_eval.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <numeric>
#include <sstream>

#include "core/error.h"

namespace trainbench::coco {
namespace {

// np.spacing(1): pycocotools adds it to TP + FP so that precision is defined without a
// detection (it also makes a perfect precision 1 / (1 + eps) when TP + FP = 1).
constexpr double kEps = std::numeric_limits<double>::epsilon();

// Stable order of `idx` by descending score (np.argsort(-scores, kind='mergesort')).
template <typename ScoreOf>
void StableSortByScore(std::vector<size_t>* idx, ScoreOf score) {
  std::stable_sort(idx->begin(), idx->end(),
                   [&](size_t a, size_t b) { return score(a) > score(b); });
}

}  // namespace

const char* IouTypeName(IouType t) { return t == IouType::kBbox ? "bbox" : "segm"; }

IouType ParseIouType(std::string_view name) {
  if (name == "bbox") return IouType::kBbox;
  if (name == "segm") return IouType::kSegm;
  throw core::Error("unknown iou type \"" + std::string(name) + "\" (known: bbox, segm)");
}

std::vector<double> CocoEvalParams::Linspace(double a, double b, int n) {
  std::vector<double> y(static_cast<size_t>(n));
  const double step = (b - a) / static_cast<double>(n - 1);
  for (int i = 0; i < n; ++i) y[static_cast<size_t>(i)] = static_cast<double>(i) * step + a;
  if (n > 1) y.back() = b;
  return y;
}

const std::array<const char*, 12>& CocoStatNames() {
  static const std::array<const char*, 12> kNames = {"AP",  "AP50", "AP75",  "APs", "APm", "APl",
                                                     "AR1", "AR10", "AR100", "ARs", "ARm", "ARl"};
  return kNames;
}

CocoEval::CocoEval(const CocoDataset& gt, const std::vector<Detection>& dets, IouType iou_type,
                   CocoEvalParams params)
    : iou_type_(iou_type), params_(std::move(params)) {
  TB_CHECK(!params_.max_dets.empty() && !params_.iou_thrs.empty() && !params_.rec_thrs.empty(),
           "empty evaluation parameters");
  std::sort(params_.max_dets.begin(), params_.max_dets.end());  // p.maxDets = sorted(p.maxDets)
  for (const auto& im : gt.images) image_ids_.push_back(im.id);
  std::sort(image_ids_.begin(), image_ids_.end());
  image_ids_.erase(std::unique(image_ids_.begin(), image_ids_.end()), image_ids_.end());
  for (const auto& c : gt.categories) category_ids_.push_back(c.id);
  std::sort(category_ids_.begin(), category_ids_.end());
  category_ids_.erase(std::unique(category_ids_.begin(), category_ids_.end()), category_ids_.end());
  auto pos_of = [](const std::vector<int64_t>& sorted, int64_t id) -> int64_t {
    auto it = std::lower_bound(sorted.begin(), sorted.end(), id);
    return it != sorted.end() && *it == id ? it - sorted.begin() : -1;
  };
  const size_t cells = image_ids_.size() * category_ids_.size();
  gt_cells_.assign(cells, {});
  dt_cells_.assign(cells, {});

  // Ground truth (_prepare: ignore = iscrowd; segm: annToRLE).
  for (const CocoAnnotation& a : gt.annotations) {
    const int64_t i = pos_of(image_ids_, a.image_id), k = pos_of(category_ids_, a.category_id);
    if (i < 0 || k < 0)
      throw core::Error("annotation id " + std::to_string(a.id) + ": unknown image or category");
    Instance g;
    g.id = a.id;
    g.bbox = a.bbox;
    g.area = a.area;
    g.iscrowd = a.iscrowd;
    if (iou_type_ == IouType::kSegm) {
      const int64_t ii = gt.ImageIndex(a.image_id);
      TB_CHECK(ii >= 0, "image index");
      const CocoImage& im = gt.images[static_cast<size_t>(ii)];
      if (a.segmentation.rle) {
        g.rle = *a.segmentation.rle;
      } else if (!a.segmentation.polygons.empty()) {
        g.rle = RleFrPolygons(a.segmentation.polygons, im.height, im.width);
      } else {
        throw core::Error("annotation id " + std::to_string(a.id) + " (image id " +
                          std::to_string(a.image_id) +
                          ") has no segmentation; iou type segm needs one for every annotation");
      }
    }
    gt_cells_[Cell(static_cast<size_t>(i), static_cast<size_t>(k))].push_back(gts_.size());
    gts_.push_back(std::move(g));
  }

  // Detections (loadRes): ids 1..N; the first detection decides how areas are computed.
  const bool bbox_kind = !dets.empty() && dets[0].has_bbox;
  for (size_t n = 0; n < dets.size(); ++n) {
    const Detection& d = dets[n];
    const std::string where = "detection " + std::to_string(n);
    if (bbox_kind && !d.has_bbox) {
      throw core::Error(
          where +
          " has no \"bbox\", but the first detection has one (pycocotools' loadRes then reads a "
          "bbox from every detection)");
    }
    if (!bbox_kind && !d.segmentation) {
      throw core::Error(
          where +
          " has no \"segmentation\", but the first detection has no \"bbox\" (pycocotools' "
          "loadRes then reads a segmentation from every detection)");
    }
    const int64_t ii = gt.ImageIndex(d.image_id);
    if (ii < 0)
      throw core::Error(where + ": image id " + std::to_string(d.image_id) +
                        " is not an image of the ground truth");
    const CocoImage& im = gt.images[static_cast<size_t>(ii)];
    Instance t;
    t.id = static_cast<int64_t>(n) + 1;
    t.score = d.score;
    if (bbox_kind) {
      t.bbox = d.bbox;
      t.area = d.bbox[2] * d.bbox[3];
      if (iou_type_ == IouType::kSegm) {
        if (d.segmentation) {
          t.rle = *d.segmentation;
        } else {
          // loadRes' polygon [[x1, y1, x1, y2, x2, y2, x2, y1]]; RleFrBbox clips a box far
          // outside the image first (same pixels), which rleFrPoly would walk point by point.
          t.rle = RleFrBbox(d.bbox, im.height, im.width);
        }
      }
    } else {
      t.area = static_cast<double>(RleArea(*d.segmentation));
      t.bbox = d.has_bbox ? d.bbox : RleToBbox(*d.segmentation);
      if (iou_type_ == IouType::kSegm) t.rle = *d.segmentation;
    }
    const int64_t i = pos_of(image_ids_, d.image_id), k = pos_of(category_ids_, d.category_id);
    if (k >= 0)
      dt_cells_[Cell(static_cast<size_t>(i), static_cast<size_t>(k))].push_back(dts_.size());
    dts_.push_back(std::move(t));
  }
}

void CocoEval::ComputeIous() {
  const size_t max_det = static_cast<size_t>(params_.max_dets.back());
  ious_.assign(gt_cells_.size(), {});
  dt_sorted_.assign(gt_cells_.size(), {});
  for (size_t c = 0; c < gt_cells_.size(); ++c) {
    const auto& gi = gt_cells_[c];
    std::vector<size_t> di = dt_cells_[c];
    StableSortByScore(&di, [&](size_t x) { return dts_[x].score; });
    if (di.size() > max_det) di.resize(max_det);
    dt_sorted_[c] = di;
    if (gi.empty() || di.empty()) continue;  // maskUtils.iou returns [] then
    std::vector<uint8_t> crowd;
    crowd.reserve(gi.size());
    for (size_t g : gi) crowd.push_back(gts_[g].iscrowd ? 1 : 0);
    if (iou_type_ == IouType::kBbox) {
      std::vector<Box> d, g;
      for (size_t x : di) d.push_back(dts_[x].bbox);
      for (size_t x : gi) g.push_back(gts_[x].bbox);
      ious_[c] = BboxIou(d, g, crowd);
    } else {
      std::vector<Rle> d, g;
      for (size_t x : di) d.push_back(dts_[x].rle);
      for (size_t x : gi) g.push_back(gts_[x].rle);
      ious_[c] = RleIou(d, g, crowd);
    }
  }
}

EvalImage CocoEval::EvaluateImage(size_t image_index, size_t category_index,
                                  size_t area_index) const {
  TB_CHECK(!ious_.empty(), "EvaluateImage before Run");
  const size_t c = Cell(image_index, category_index);
  const AreaRange& ar = params_.area_ranges[area_index];
  const auto& gi_in = gt_cells_[c];
  const auto& di = dt_sorted_[c];  // already by score and truncated to maxDets[-1]
  EvalImage e;
  if (gi_in.empty() && dt_cells_[c].empty()) return e;
  e.empty = false;
  const size_t G = gi_in.size(), D = di.size(), T = params_.iou_thrs.size();
  std::vector<uint8_t> ig(G);
  for (size_t g = 0; g < G; ++g) {
    const Instance& x = gts_[gi_in[g]];
    ig[g] = (x.iscrowd || x.area < ar.lo || x.area > ar.hi) ? 1 : 0;
  }
  std::vector<size_t> gtind(G);
  std::iota(gtind.begin(), gtind.end(), 0);
  std::stable_sort(gtind.begin(), gtind.end(), [&](size_t a, size_t b) { return ig[a] < ig[b]; });
  std::vector<uint8_t> crowd(G);
  for (size_t g = 0; g < G; ++g) {
    const Instance& x = gts_[gi_in[gtind[g]]];
    e.gt_ids.push_back(x.id);
    e.gt_ignore.push_back(ig[gtind[g]]);
    crowd[g] = x.iscrowd ? 1 : 0;
  }
  for (size_t d : di) {
    e.dt_ids.push_back(dts_[d].id);
    e.dt_scores.push_back(dts_[d].score);
  }
  e.dt_matches.assign(T * D, 0);
  e.gt_matches.assign(T * G, 0);
  e.dt_ignore.assign(T * D, 0);
  const std::vector<double>& ious = ious_[c];  // [D x G_in], columns in input order
  if (!ious.empty()) {
    for (size_t t = 0; t < T; ++t) {
      for (size_t d = 0; d < D; ++d) {
        double iou = std::min(params_.iou_thrs[t], 1 - 1e-10);
        int64_t m = -1;
        for (size_t g = 0; g < G; ++g) {
          // A gt already matched is skipped unless it is a crowd region.
          if (e.gt_matches[t * G + g] > 0 && !crowd[g]) continue;
          // Matched to a regular gt and the rest are ignored ones: stop.
          if (m > -1 && e.gt_ignore[static_cast<size_t>(m)] == 0 && e.gt_ignore[g] == 1) break;
          const double v = ious[d * G + gtind[g]];
          if (v < iou) continue;
          iou = v;
          m = static_cast<int64_t>(g);
        }
        if (m == -1) continue;
        const size_t mg = static_cast<size_t>(m);
        e.dt_ignore[t * D + d] = e.gt_ignore[mg];
        e.dt_matches[t * D + d] = e.gt_ids[mg];
        e.gt_matches[t * G + mg] = e.dt_ids[d];
      }
    }
  }
  // Unmatched detections outside the area range are ignored.
  for (size_t d = 0; d < D; ++d) {
    const double a = dts_[di[d]].area;
    const bool outside = a < ar.lo || a > ar.hi;
    if (!outside) continue;
    for (size_t t = 0; t < T; ++t) {
      if (e.dt_matches[t * D + d] == 0) e.dt_ignore[t * D + d] = 1;
    }
  }
  return e;
}

void CocoEval::Accumulate() {
  const size_t T = params_.iou_thrs.size(), R = params_.rec_thrs.size(), K = category_ids_.size();
  const size_t A = params_.area_ranges.size(), M = params_.max_dets.size(), I = image_ids_.size();
  precision_.assign(T * R * K * A * M, -1.0);
  recall_.assign(T * K * A * M, -1.0);
  for (size_t k = 0; k < K; ++k) {
    for (size_t a = 0; a < A; ++a) {
      std::vector<EvalImage> E;
      for (size_t i = 0; i < I; ++i) {
        EvalImage e = EvaluateImage(i, k, a);
        if (!e.empty) E.push_back(std::move(e));
      }
      if (E.empty()) continue;
      for (size_t m = 0; m < M; ++m) {
        const size_t max_det = static_cast<size_t>(params_.max_dets[m]);
        // Concatenate the first maxDet detections of every image, then sort by score (stable).
        std::vector<double> scores;
        std::vector<std::pair<size_t, size_t>> src;  // (image entry, detection position)
        for (size_t x = 0; x < E.size(); ++x) {
          const size_t n = std::min(max_det, E[x].dt_ids.size());
          for (size_t d = 0; d < n; ++d) {
            scores.push_back(E[x].dt_scores[d]);
            src.push_back({x, d});
          }
        }
        std::vector<size_t> inds(scores.size());
        std::iota(inds.begin(), inds.end(), 0);
        StableSortByScore(&inds, [&](size_t x) { return scores[x]; });
        size_t npig = 0;
        for (const EvalImage& e : E) {
          for (uint8_t g : e.gt_ignore) npig += g == 0 ? 1 : 0;
        }
        if (npig == 0) continue;
        const size_t nd = inds.size();
        for (size_t t = 0; t < T; ++t) {
          std::vector<double> rc(nd), pr(nd);
          double tp = 0, fp = 0;
          for (size_t j = 0; j < nd; ++j) {
            const auto [x, d] = src[inds[j]];
            const size_t D = E[x].dt_ids.size();
            const bool matched = E[x].dt_matches[t * D + d] != 0;
            const bool ignored = E[x].dt_ignore[t * D + d] != 0;
            if (matched && !ignored) tp += 1;
            if (!matched && !ignored) fp += 1;
            rc[j] = tp / static_cast<double>(npig);
            pr[j] = tp / (fp + tp + kEps);
          }
          recall_[((t * K + k) * A + a) * M + m] = nd ? rc.back() : 0;
          for (size_t j = nd; j-- > 1;) {
            if (pr[j] > pr[j - 1]) pr[j - 1] = pr[j];
          }
          for (size_t r = 0; r < R; ++r) {
            const size_t pi = static_cast<size_t>(
                std::lower_bound(rc.begin(), rc.end(), params_.rec_thrs[r]) - rc.begin());
            double q = 0;
            if (pi < nd) {
              q = pr[pi];
            } else {
              // pycocotools stops at the first threshold past the last detection (IndexError)
              // and leaves the rest 0; searchsorted is monotone, so they are all past it.
              for (size_t rr = r; rr < R; ++rr)
                precision_[(((t * R + rr) * K + k) * A + a) * M + m] = 0;
              break;
            }
            precision_[(((t * R + r) * K + k) * A + a) * M + m] = q;
          }
        }
      }
    }
  }
}

void CocoEval::Run() {
  ComputeIous();
  Accumulate();
  ran_ = true;
}

double CocoEval::Precision(size_t t, size_t r, size_t k, size_t a, size_t m) const {
  TB_CHECK(ran_, "Precision before Run");
  const size_t R = params_.rec_thrs.size(), K = category_ids_.size(),
               A = params_.area_ranges.size(), M = params_.max_dets.size();
  return precision_[(((t * R + r) * K + k) * A + a) * M + m];
}

double CocoEval::Recall(size_t t, size_t k, size_t a, size_t m) const {
  TB_CHECK(ran_, "Recall before Run");
  const size_t K = category_ids_.size(), A = params_.area_ranges.size(),
               M = params_.max_dets.size();
  return recall_[((t * K + k) * A + a) * M + m];
}

double CocoEval::SummarizeOne(bool ap, double iou_thr, bool all_thrs, const std::string& area,
                              int64_t max_det) const {
  const size_t T = params_.iou_thrs.size(), R = params_.rec_thrs.size(), K = category_ids_.size();
  std::vector<size_t> ts;
  for (size_t t = 0; t < T; ++t) {
    if (all_thrs || params_.iou_thrs[t] == iou_thr)
      ts.push_back(t);  // np.where(iouThr == p.iouThrs)
  }
  std::vector<size_t> as, ms;
  for (size_t a = 0; a < params_.area_ranges.size(); ++a) {
    if (params_.area_ranges[a].label == area) as.push_back(a);
  }
  for (size_t m = 0; m < params_.max_dets.size(); ++m) {
    if (params_.max_dets[m] == max_det) ms.push_back(m);
  }
  double sum = 0;
  size_t n = 0;
  for (size_t t : ts) {
    for (size_t k = 0; k < K; ++k) {
      for (size_t a : as) {
        for (size_t m : ms) {
          if (ap) {
            for (size_t r = 0; r < R; ++r) {
              const double v = Precision(t, r, k, a, m);
              if (v > -1) {
                sum += v;
                ++n;
              }
            }
          } else {
            const double v = Recall(t, k, a, m);
            if (v > -1) {
              sum += v;
              ++n;
            }
          }
        }
      }
    }
  }
  return n == 0 ? -1.0 : sum / static_cast<double>(n);
}

CocoStats CocoEval::Summarize() const {
  TB_CHECK(ran_, "Summarize before Run");
  TB_CHECK(params_.max_dets.size() == 3, "summarize needs 3 maxDets");
  const int64_t m0 = params_.max_dets[0], m1 = params_.max_dets[1], m2 = params_.max_dets[2];
  CocoStats s;
  s.values[0] = SummarizeOne(true, 0, true, "all", 100);
  s.values[1] = SummarizeOne(true, .5, false, "all", m2);
  s.values[2] = SummarizeOne(true, .75, false, "all", m2);
  s.values[3] = SummarizeOne(true, 0, true, "small", m2);
  s.values[4] = SummarizeOne(true, 0, true, "medium", m2);
  s.values[5] = SummarizeOne(true, 0, true, "large", m2);
  s.values[6] = SummarizeOne(false, 0, true, "all", m0);
  s.values[7] = SummarizeOne(false, 0, true, "all", m1);
  s.values[8] = SummarizeOne(false, 0, true, "all", m2);
  s.values[9] = SummarizeOne(false, 0, true, "small", m2);
  s.values[10] = SummarizeOne(false, 0, true, "medium", m2);
  s.values[11] = SummarizeOne(false, 0, true, "large", m2);
  return s;
}

CocoStats EvaluateDetections(const CocoDataset& gt, const std::vector<Detection>& dets,
                             IouType iou_type) {
  CocoEval e(gt, dets, iou_type);
  e.Run();
  return e.Summarize();
}

std::string FormatCocoSummary(const CocoStats& stats, const CocoEvalParams& params) {
  struct Line {
    bool ap;
    const char* iou;  // nullptr: the whole range
    const char* area;
    int max_det_index;
  };
  static const Line kLines[12] = {
      {true, nullptr, "all", 2},    {true, "0.50", "all", 2},      {true, "0.75", "all", 2},
      {true, nullptr, "small", 2},  {true, nullptr, "medium", 2},  {true, nullptr, "large", 2},
      {false, nullptr, "all", 0},   {false, nullptr, "all", 1},    {false, nullptr, "all", 2},
      {false, nullptr, "small", 2}, {false, nullptr, "medium", 2}, {false, nullptr, "large", 2}};
  char range[32];
  std::snprintf(range, sizeof(range), "%0.2f:%0.2f", params.iou_thrs.front(),
                params.iou_thrs.back());
  std::ostringstream os;
  for (int i = 0; i < 12; ++i) {
    const Line& l = kLines[i];
    // ' {:<18} {} @[ IoU={:<9} | area={:>6s} | maxDets={:>3d} ] = {:0.3f}'
    char buf[160];
    std::snprintf(buf, sizeof(buf), " %-18s %s @[ IoU=%-9s | area=%6s | maxDets=%3lld ] = %0.3f\n",
                  l.ap ? "Average Precision" : "Average Recall", l.ap ? "(AP)" : "(AR)",
                  l.iou ? l.iou : range, l.area,
                  static_cast<long long>(params.max_dets[static_cast<size_t>(l.max_det_index)]),
                  stats.values[static_cast<size_t>(i)]);
    os << buf;
  }
  return os.str();
}

}  // namespace trainbench::coco

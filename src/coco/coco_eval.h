// COCO detection evaluation, as pycocotools' COCOeval (cocoeval.py) with its default parameters
// and useCats = 1, for iouType bbox and segm (docs/coco_eval.md):
//  - preparation as loadRes and _prepare: detections get ids 1..N in input order; the first
//    detection decides the kind of the whole list: with a bbox, every area is w * h (and a
//    detection without a mask is the polygon of its box for segm); without, every area is the
//    mask's and a missing box is the mask's box. Ground truth masks are annToRLE (polygons by
//    rleFrPoly, unioned); gt "ignore" = iscrowd; images are the gt's, sorted by id, categories
//    the gt's, sorted by id;
//  - evaluate: per image and category the IoUs of the (at most maxDets[-1]) highest-scoring
//    detections (stable sort) against the gts (crowd rule: intersection / area(dt)); per area
//    range gts outside the range (by their "area" field) are ignored and sorted last; greedy
//    matching in score order at each IoU threshold, a crowd gt can match many detections, a
//    detection matched to an ignored gt is ignored, unmatched detections outside the area range
//    are ignored;
//  - accumulate: per category, area range and maxDets, detections of all images sorted by score
//    (stable), cumulative TP / FP, recall = TP / #non-ignored gts, precision = TP / (TP + FP +
//    eps), made monotone from the right, sampled at the 101 recall thresholds with
//    searchsorted(side='left') (0 past the last detection); -1 where a category has no
//    non-ignored gt (and no image of it has gts or detections);
//  - summarize: the 12 numbers, means over the entries that are not -1 (-1 when none is).
// Deviation: no detections at all evaluate to 0 where there are gts (pycocotools' loadRes
// raises on an empty list). Threading: a CocoEval is used by one thread at a time.
#pragma once

#include <array>
#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "coco/coco_dataset.h"
#include "coco/rle.h"

namespace trainbench::coco {

enum class IouType { kBbox, kSegm };

// "bbox" / "segm".
const char* IouTypeName(IouType t);
// Parses "bbox" or "segm"; anything else is a core::Error listing both.
IouType ParseIouType(std::string_view name);

struct AreaRange {
  std::string label;  // "all", "small", "medium", "large"
  double lo = 0;      // inclusive, in square pixels
  double hi = 0;      // inclusive
};

// pycocotools' Params for iouType bbox / segm. The defaults are the COCO protocol; Summarize()
// needs max_dets with 3 entries and the four standard area labels.
struct CocoEvalParams {
  std::vector<double> iou_thrs = DefaultIouThresholds();     // .50:.05:.95
  std::vector<double> rec_thrs = DefaultRecallThresholds();  // .00:.01:1.00
  std::vector<int64_t> max_dets = {1, 10, 100};
  std::vector<AreaRange> area_ranges = {
      {"all", 0, 1e10}, {"small", 0, 1024}, {"medium", 1024, 9216}, {"large", 9216, 1e10}};

  // np.linspace(a, b, n) as numpy computes it: i * ((b - a) / (n - 1)) + a, the last one b.
  static std::vector<double> Linspace(double a, double b, int n);
  static std::vector<double> DefaultIouThresholds() { return Linspace(0.5, 0.95, 10); }
  static std::vector<double> DefaultRecallThresholds() { return Linspace(0.0, 1.0, 101); }
};

// The 12 numbers of COCOeval.summarize() for bbox / segm, in its order.
struct CocoStats {
  std::array<double, 12> values{};
};
// Their names in that order: AP, AP50, AP75, APs, APm, APl, AR1, AR10, AR100, ARs, ARm, ARl.
const std::array<const char*, 12>& CocoStatNames();

// evaluateImg's result for one image, category and area range (maxDet = max_dets.back()).
struct EvalImage {
  bool empty = true;            // no gt and no detection (pycocotools' None)
  std::vector<int64_t> dt_ids;  // detection ids (1-based input order), by score
  std::vector<int64_t> gt_ids;  // annotation ids, non-ignored first
  std::vector<double> dt_scores;
  std::vector<uint8_t> gt_ignore;   // [G]
  std::vector<int64_t> dt_matches;  // [T x D] matched gt id, 0 = none
  std::vector<int64_t> gt_matches;  // [T x G] matched detection id, 0 = none
  std::vector<uint8_t> dt_ignore;   // [T x D]
};

class CocoEval {
 public:
  // Prepares the ground truth and the detections (which must pass ValidateDetections against
  // `gt`). Throws core::Error when the detections mix kinds against the first one's (see the
  // header comment) or, for segm, when a gt annotation has no segmentation. Keeps references to
  // neither argument.
  CocoEval(const CocoDataset& gt, const std::vector<Detection>& dets, IouType iou_type,
           CocoEvalParams params = {});

  // evaluate() and accumulate().
  void Run();
  // After Run(): precision[t, r, k, a, m] and recall[t, k, a, m] (-1 where undefined), with k
  // the index of the category in ascending id order.
  double Precision(size_t t, size_t r, size_t k, size_t a, size_t m) const;
  double Recall(size_t t, size_t k, size_t a, size_t m) const;
  // After Run(): summarize()'s 12 numbers.
  CocoStats Summarize() const;
  // evaluateImg for image `image_index` (ascending id order), category `category_index`,
  // area range `area_index`; after Run() (it needs the IoUs).
  EvalImage EvaluateImage(size_t image_index, size_t category_index, size_t area_index) const;

  const CocoEvalParams& params() const { return params_; }
  const std::vector<int64_t>& image_ids() const { return image_ids_; }
  const std::vector<int64_t>& category_ids() const { return category_ids_; }
  IouType iou_type() const { return iou_type_; }

 private:
  struct Instance {
    int64_t id = 0;
    Box bbox{};
    double area = 0;
    double score = 0;
    bool iscrowd = false;
    Rle rle;  // segm only
  };
  size_t Cell(size_t i, size_t k) const { return i * category_ids_.size() + k; }
  void ComputeIous();
  void Accumulate();
  double SummarizeOne(bool ap, double iou_thr, bool all_thrs, const std::string& area,
                      int64_t max_det) const;

  IouType iou_type_;
  CocoEvalParams params_;
  std::vector<int64_t> image_ids_;
  std::vector<int64_t> category_ids_;
  std::vector<Instance> gts_, dts_;
  std::vector<std::vector<size_t>> gt_cells_,
      dt_cells_;                                // per (image, category): indices, input order
  std::vector<std::vector<size_t>> dt_sorted_;  // per cell: dt indices by score, truncated
  std::vector<std::vector<double>> ious_;       // per cell: [D x G] (sorted dts, gts in order)
  std::vector<double> precision_, recall_;
  bool ran_ = false;
};

// Runs the whole protocol and returns summarize()'s numbers.
CocoStats EvaluateDetections(const CocoDataset& gt, const std::vector<Detection>& dets,
                             IouType iou_type);

// summarize()'s 12 lines, each as pycocotools prints it, e.g.
// " Average Precision  (AP) @[ IoU=0.50:0.95 | area=   all | maxDets=100 ] = 0.505".
std::string FormatCocoSummary(const CocoStats& stats, const CocoEvalParams& params = {});

}  // namespace trainbench::coco

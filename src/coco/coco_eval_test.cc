// COCOeval (coco_eval.h) on small hand-checked cases. The expected numbers are derived in the
// comments from pycocotools' cocoeval.py (evaluateImg / accumulate / summarize):
//  - precision at each of the 101 recall thresholds r is the monotone envelope (max over the
//    precisions at recall >= r) read at searchsorted(rc, r, side='left'), 0 past the last
//    detection; precision = tp / (tp + fp + eps), so a perfect precision is 1 / (1 + 2^-52);
//  - AP is the mean over thresholds, categories and recall points that are not -1; -1 when a
//    category/area range has no non-ignored gt.
// Stats order: AP AP50 AP75 APs APm APl AR1 AR10 AR100 ARs ARm ARl.
#include "coco/coco_eval.h"

#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "core/error.h"

namespace trainbench::coco {
namespace {

constexpr double kEps = std::numeric_limits<double>::epsilon();
constexpr double kOne = 1.0 / (1.0 + kEps);  // tp / (tp + fp + eps) with tp = 1, fp = 0

struct Gt {
  int64_t image_id;
  Box bbox;
  double area;  // < 0: w * h
  bool crowd = false;
  int64_t category_id = 1;
};

CocoDataset MakeGt(const std::vector<Gt>& gts, int64_t images = 1, int64_t size = 400) {
  CocoDataset ds;
  for (int64_t i = 1; i <= images; ++i)
    ds.images.push_back({i, "im" + std::to_string(i) + ".jpg", size, size});
  ds.categories.push_back({1, "thing", ""});
  ds.categories.push_back({2, "other", ""});
  int64_t id = 1;
  for (const Gt& g : gts) {
    CocoAnnotation a;
    a.id = id++;
    a.image_id = g.image_id;
    a.category_id = g.category_id;
    a.bbox = g.bbox;
    a.area = g.area < 0 ? g.bbox[2] * g.bbox[3] : g.area;
    a.iscrowd = g.crowd;
    ds.annotations.push_back(a);
  }
  ValidateCocoDataset(&ds, "gt.json");
  return ds;
}

Detection Det(int64_t image_id, Box b, double score, int64_t category_id = 1) {
  Detection d;
  d.image_id = image_id;
  d.category_id = category_id;
  d.bbox = b;
  d.score = score;
  return d;
}

CocoStats Eval(const CocoDataset& gt, const std::vector<Detection>& dets,
               IouType t = IouType::kBbox) {
  ValidateDetections(dets, gt, "dt.json");
  return EvaluateDetections(gt, dets, t);
}

void ExpectStats(const CocoStats& s, const std::array<double, 12>& want) {
  for (size_t i = 0; i < 12; ++i) {
    EXPECT_NEAR(s.values[i], want[i], 1e-12) << CocoStatNames()[i];
  }
}

TEST(CocoEvalTest, ThresholdsAreNumpyLinspace) {
  // np.linspace(.5, .95, 10) = i * ((.95 - .5) / 9) + .5 with .95 - .5 = 0.44999999999999996:
  // 0.6 is exactly the double 0.6, 0.75 exactly 0.75 (so summarize's `iouThr == p.iouThrs`
  // finds AP75), and the 9th is 0.8999999999999999, not 0.9 (checked with Python floats, which
  // are the same IEEE doubles numpy uses).
  const auto t = CocoEvalParams::DefaultIouThresholds();
  ASSERT_EQ(t.size(), 10u);
  EXPECT_EQ(t[0], 0.5);
  EXPECT_EQ(t[2], 0.6);
  EXPECT_EQ(t[5], 0.75);
  EXPECT_EQ(t[7], 0.85);
  EXPECT_NE(t[8], 0.9);
  EXPECT_EQ(t[8], 0.8999999999999999);
  EXPECT_EQ(t[9], 0.95);
  const auto r = CocoEvalParams::DefaultRecallThresholds();
  ASSERT_EQ(r.size(), 101u);
  EXPECT_EQ(r[0], 0.0);
  EXPECT_EQ(r[100], 1.0);
}

TEST(CocoEvalTest, PerfectDetections) {
  // One medium gt (50 x 50 = 2500, in [1024, 9216]) found exactly: at every IoU threshold
  // tp = 1, fp = 0: precision 1 / (1 + eps) at all 101 recall points, recall 1. Small and large
  // have no non-ignored gt (the gt is outside the range, the detection matches it and is ignored
  // with it): -1. Category 2 has no gt and no detection: -1 everywhere, not averaged.
  const CocoDataset gt = MakeGt({{1, {10, 10, 50, 50}, -1}});
  ExpectStats(Eval(gt, {Det(1, {10, 10, 50, 50}, 0.9)}),
              {kOne, kOne, kOne, -1, kOne, -1, 1, 1, 1, -1, 1, -1});
}

TEST(CocoEvalTest, NoDetections) {
  // Deviation documented in coco_eval.h (pycocotools' loadRes raises on []): with gts, nd = 0,
  // so precision is 0 at every recall threshold and recall is 0; -1 where no gt is in range.
  const CocoDataset gt = MakeGt({{1, {10, 10, 50, 50}, -1}});
  ExpectStats(Eval(gt, {}), {0, 0, 0, -1, 0, -1, 0, 0, 0, -1, 0, -1});
}

TEST(CocoEvalTest, HigherScoringFalsePositiveAheadOfTruePositive) {
  // 1 gt, 2 dts: A (0.9) far from it, B (0.8) exact. By score: A fp, B tp. tp = [0, 1],
  // fp = [1, 1], rc = [0, 1], pr = [0, 1 / (2 + eps)]; the envelope makes pr[0] = 0.5 (to
  // double precision: 1 / (2 + eps) rounds to 0.5). searchsorted: r = 0 -> index 0, r in
  // (0, 1] -> index 1: all 101 points are 0.5, so AP = AP50 = AP75 = APm = 0.5 at each
  // threshold (B's IoU is 1). maxDets = 1 keeps only A per image: tp = 0, AR1 = 0; AR10 = 1.
  const CocoDataset gt = MakeGt({{1, {10, 10, 50, 50}, -1}});
  const std::vector<Detection> dets = {Det(1, {300, 300, 50, 50}, 0.9),
                                       Det(1, {10, 10, 50, 50}, 0.8)};
  ExpectStats(Eval(gt, dets), {0.5, 0.5, 0.5, -1, 0.5, -1, 0, 1, 1, -1, 1, -1});
  // The same pair in the other score order: the tp first, precision 1 / (1 + eps) up to recall
  // 1, then the fp does not lower the envelope at recall 1: AP 1; AR1 = 1.
  const std::vector<Detection> swapped = {Det(1, {300, 300, 50, 50}, 0.8),
                                          Det(1, {10, 10, 50, 50}, 0.9)};
  ExpectStats(Eval(gt, swapped), {kOne, kOne, kOne, -1, kOne, -1, 1, 1, 1, -1, 1, -1});
}

TEST(CocoEvalTest, BoxAtIouExactlyPointSix) {
  // gt [0,0,100,100] (10000 px, large), dt [0,0,100,60]: intersection 6000, union 10000, IoU
  // 6000 / 10000 = 0.6 (the double nearest 0.6, as numpy computes it). pycocotools skips a gt
  // when iou < threshold, i.e. matches when iou >= threshold (threshold = min(t, 1 - 1e-10));
  // the third threshold is exactly the double 0.6 (see ThresholdsAreNumpyLinspace), so the dt is a
  // tp at 0.50, 0.55, 0.60 and an fp at 0.65 .. 0.95. AP = (3 * 1 / (1 + eps) + 7 * 0) / 10 = 0.3
  // (rounding), AP50 = 1, AP75 = 0, recall 1 at 3 thresholds: AR = 0.3. Area ranges: the gt (10000)
  // is large, so small and medium have no non-ignored gt: -1. Large: the dt (area 6000, not large)
  // is a tp where it matches and, unmatched outside the range, ignored at the other 7 thresholds
  // (tp = fp = 0: precision 0): APl = 0.3, ARl = 0.3.
  const CocoDataset gt = MakeGt({{1, {0, 0, 100, 100}, -1}});
  const std::vector<Detection> dets = {Det(1, {0, 0, 100, 60}, 0.7)};
  ExpectStats(Eval(gt, dets),
              {0.3 * kOne, kOne, 0, -1, -1, 0.3 * kOne, 0.3, 0.3, 0.3, -1, -1, 0.3});
  // Check the per-threshold match decisions too.
  CocoEval e(gt, dets, IouType::kBbox);
  e.Run();
  const EvalImage im = e.EvaluateImage(0, 0, 0);
  ASSERT_EQ(im.dt_matches.size(), 10u);
  for (size_t t = 0; t < 10; ++t) EXPECT_EQ(im.dt_matches[t], t < 3 ? 1 : 0) << t;
}

TEST(CocoEvalTest, DetectionOnACrowdRegionIsIgnored) {
  // gt 1: regular [10,10,50,50]; gt 2: crowd [100,100,80,80]. dt A (0.9) [110,110,20,20]
  // inside the crowd: crowd IoU = intersection / area(dt) = 400 / 400 = 1 -> matched to an
  // ignored gt -> ignored (neither tp nor fp). dt B (0.8) finds gt 1. Counted: tp = [0, 1],
  // fp = [0, 0] -> rc = [0, 1], pr = [0, 1 / (1 + eps)], envelope 1 / (1 + eps): AP = 1, only
  // gt 1 counts for recall. AR1: maxDets 1 keeps only A (ignored) -> recall 0.
  const CocoDataset gt = MakeGt({{1, {10, 10, 50, 50}, -1}, {1, {100, 100, 80, 80}, -1, true}});
  const std::vector<Detection> dets = {Det(1, {110, 110, 20, 20}, 0.9),
                                       Det(1, {10, 10, 50, 50}, 0.8)};
  ExpectStats(Eval(gt, dets), {kOne, kOne, kOne, -1, kOne, -1, 0, 1, 1, -1, 1, -1});
  // Not crowd: A's IoU with gt 2 is 400 / 6400 = 0.0625 -> an fp ahead of B's tp, and gt 2 is
  // never found: rc = [0, 0.5], pr = [0, 0.5]; recall points 0..0.5 (51 of them) read 0.5, the
  // other 50 are past the last detection: 0 (rec_thrs[50] = 50 * 0.01 is exactly 0.5). AP =
  // 51 * 0.5 / 101; AR = 0.5. Medium (both gts are medium: 2500, 6400): A's area 400 is outside
  // the range and A is unmatched, so it is ignored: only B, rc = [0.5], pr = [1 / (1 + eps)]:
  // APm = 51 / 101, ARm = 0.5.
  const CocoDataset gt2 = MakeGt({{1, {10, 10, 50, 50}, -1}, {1, {100, 100, 80, 80}, -1, false}});
  const double ap = 51 * 0.5 / 101, apm = 51 * kOne / 101;
  ExpectStats(Eval(gt2, dets), {ap, ap, ap, -1, apm, -1, 0, 0.5, 0.5, -1, 0.5, -1});
}

TEST(CocoEvalTest, CrowdRegionMatchesManyDetections) {
  // Only a crowd gt: no non-ignored gt at all -> -1 everywhere; the detections on it are not fps.
  const CocoDataset gt = MakeGt({{1, {100, 100, 80, 80}, -1, true}});
  const std::vector<Detection> dets = {Det(1, {110, 110, 20, 20}, 0.9),
                                       Det(1, {120, 120, 20, 20}, 0.8)};
  CocoEval e(gt, dets, IouType::kBbox);
  e.Run();
  const EvalImage im = e.EvaluateImage(0, 0, 0);
  ASSERT_EQ(im.dt_matches.size(), 20u);
  EXPECT_EQ(im.dt_matches[0], 1);
  EXPECT_EQ(im.dt_matches[1], 1);  // the crowd gt matches both
  EXPECT_EQ(im.dt_ignore[0], 1);
  EXPECT_EQ(im.dt_ignore[1], 1);
  for (double v : e.Summarize().values) EXPECT_EQ(v, -1);
}

TEST(CocoEvalTest, MaxDetsTruncation) {
  // One image, 3 gts, 3 exact detections with descending scores. AR1: only the top detection
  // per image counts: recall 1/3; AR10 = AR100 = 1. AP (maxDets 100) = 1 / (1 + eps) envelope:
  // precisions 1/(1+eps), 2/(2+eps), 3/(3+eps) -> the envelope at each is max to the right =
  // 1 / (1 + eps) (all round within 1e-15 of 1).
  const CocoDataset gt =
      MakeGt({{1, {0, 0, 40, 40}, -1}, {1, {100, 0, 40, 40}, -1}, {1, {200, 0, 40, 40}, -1}});
  const std::vector<Detection> dets = {Det(1, {0, 0, 40, 40}, 0.9), Det(1, {100, 0, 40, 40}, 0.8),
                                       Det(1, {200, 0, 40, 40}, 0.7)};
  const CocoStats s = Eval(gt, dets);
  EXPECT_NEAR(s.values[0], 1, 1e-12);
  EXPECT_NEAR(s.values[6], 1.0 / 3, 1e-12);
  EXPECT_NEAR(s.values[7], 1, 1e-12);
  EXPECT_NEAR(s.values[8], 1, 1e-12);
  // maxDets per image: 11 detections on one image, the 11th (lowest score) is the only tp:
  // with maxDets 10 it is cut: AR10 = 0, AR100 = 1. AP (100 dets): 10 fps then a tp: rc 0 until
  // the 11th, pr there 1 / 11: AP = 1/11 (all 101 points read index 10 or the envelope, 1/11).
  const CocoDataset g1 = MakeGt({{1, {0, 0, 40, 40}, -1}});
  std::vector<Detection> many;
  for (int i = 0; i < 10; ++i) many.push_back(Det(1, {200, 200, 40, 40}, 0.9 - 0.01 * i));
  many.push_back(Det(1, {0, 0, 40, 40}, 0.1));
  const CocoStats m = Eval(g1, many);
  EXPECT_NEAR(m.values[0], 1.0 / 11, 1e-12);
  EXPECT_EQ(m.values[6], 0);
  EXPECT_EQ(m.values[7], 0);
  EXPECT_EQ(m.values[8], 1);
}

TEST(CocoEvalTest, AreaRangesUseTheAnnotationAreaField) {
  // Three gts on a 400 x 400 image, each found exactly: small (10 x 10, area 100), medium
  // (50 x 50, 2500), large (100 x 100, 10000). Each range has its gt: APs = APm = APl = 1 and
  // ARs = ARm = ARl = 1. In each range the other two gts are ignored and the detections that
  // match them are ignored with them.
  const CocoDataset gt =
      MakeGt({{1, {0, 0, 10, 10}, -1}, {1, {50, 50, 50, 50}, -1}, {1, {200, 200, 100, 100}, -1}});
  const std::vector<Detection> dets = {Det(1, {0, 0, 10, 10}, 0.9), Det(1, {50, 50, 50, 50}, 0.8),
                                       Det(1, {200, 200, 100, 100}, 0.7)};
  ExpectStats(Eval(gt, dets), {kOne, kOne, kOne, kOne, kOne, kOne, 1.0 / 3, 1, 1, 1, 1, 1});
  // The range is decided by the "area" field, not by the box: a 10 x 10 box with area 2000 is
  // medium. Small: the gt is ignored, the dt (area w * h = 100, small) matches it and is
  // ignored: no non-ignored gt: -1. Medium: a tp: 1.
  const CocoDataset g2 = MakeGt({{1, {0, 0, 10, 10}, 2000}});
  ExpectStats(Eval(g2, {Det(1, {0, 0, 10, 10}, 0.9)}),
              {kOne, kOne, kOne, -1, kOne, -1, 1, 1, 1, -1, 1, -1});
  // Bounds are inclusive on both sides: area 1024 is small and medium.
  const CocoDataset g3 = MakeGt({{1, {0, 0, 32, 32}, -1}});
  ExpectStats(Eval(g3, {Det(1, {0, 0, 32, 32}, 0.9)}),
              {kOne, kOne, kOne, kOne, kOne, -1, 1, 1, 1, 1, 1, -1});
  // An unmatched dt outside the range is ignored there: an fp [200,200,100,100] (area 10000)
  // scoring above the tp makes AP (all) the fp-first case, 0.5, but in "small" and "medium"
  // (10000 > 9216) it does not count: 1.
  const std::vector<Detection> fp_first = {Det(1, {200, 200, 100, 100}, 0.95),
                                           Det(1, {0, 0, 32, 32}, 0.9)};
  const CocoStats s = Eval(g3, fp_first);
  EXPECT_NEAR(s.values[0], 0.5, 1e-12);   // all: fp ahead of tp, as above
  EXPECT_NEAR(s.values[3], kOne, 1e-12);  // small: the large fp is ignored
  EXPECT_NEAR(s.values[4], kOne, 1e-12);  // medium: 10000 > 9216, ignored too
}

TEST(CocoEvalTest, CategoriesAreAveraged) {
  // Category 1 perfect (AP 1), category 2 the fp-first case (AP 0.5): AP = 0.75.
  const CocoDataset gt =
      MakeGt({{1, {10, 10, 50, 50}, -1, false, 1}, {1, {10, 10, 50, 50}, -1, false, 2}});
  const std::vector<Detection> dets = {Det(1, {10, 10, 50, 50}, 0.9, 1),
                                       Det(1, {300, 300, 50, 50}, 0.9, 2),
                                       Det(1, {10, 10, 50, 50}, 0.8, 2)};
  const CocoStats s = Eval(gt, dets);
  EXPECT_NEAR(s.values[0], (kOne + 0.5) / 2, 1e-12);
  EXPECT_NEAR(s.values[6], 0.5, 1e-12);  // AR1: category 1 finds it, category 2 keeps the fp
}

TEST(CocoEvalTest, SegmWithPolygonsAndMasks) {
  // segm: gt polygon rectangle 2..6 x 1..4 on a 10 x 10 image (rleFrPoly: 12 px); the
  // detection is the same mask as an RLE: IoU 1, AP 1. Area ranges: the gt's area field 12 is
  // small.
  CocoDataset gt;
  gt.images.push_back({1, "a.jpg", 10, 10});
  gt.categories.push_back({1, "thing", ""});
  CocoAnnotation a;
  a.id = 5;
  a.image_id = 1;
  a.category_id = 1;
  a.bbox = {2, 1, 4, 3};
  a.area = 12;
  a.segmentation.polygons = {{2, 1, 6, 1, 6, 4, 2, 4}};
  gt.annotations.push_back(a);
  ValidateCocoDataset(&gt, "gt.json");
  Detection d;
  d.image_id = 1;
  d.category_id = 1;
  d.has_bbox = false;
  d.score = 0.5;
  d.segmentation = RleFrPoly({2, 1, 6, 1, 6, 4, 2, 4}, 10, 10);
  ExpectStats(Eval(gt, {d}, IouType::kSegm), {kOne, kOne, kOne, kOne, -1, -1, 1, 1, 1, 1, -1, -1});
  // A box detection for segm is the polygon of its box: [2, 1, 4, 2] covers 8 of the 12 px:
  // IoU 8 / 12 = 0.667: tp at .50 .. .65 (4 thresholds): AP = 0.4.
  ExpectStats(Eval(gt, {Det(1, {2, 1, 4, 2}, 0.5)}, IouType::kSegm),
              {0.4 * kOne, kOne, 0, 0.4 * kOne, -1, -1, 0.4, 0.4, 0.4, 0.4, -1, -1});
  // A boxes-only gt cannot be evaluated as segm.
  CocoDataset boxes = MakeGt({{1, {10, 10, 50, 50}, -1}});
  EXPECT_THROW(CocoEval(boxes, {Det(1, {10, 10, 50, 50}, 0.9)}, IouType::kSegm), core::Error);
}

TEST(CocoEvalTest, MixedDetectionKindsAreRejected) {
  const CocoDataset gt = MakeGt({{1, {10, 10, 50, 50}, -1}});
  Detection no_box = Det(1, {0, 0, 0, 0}, 0.5);
  no_box.has_bbox = false;
  no_box.segmentation = RleFrBbox({10, 10, 50, 50}, 400, 400);
  EXPECT_THROW(CocoEval(gt, {Det(1, {10, 10, 50, 50}, 0.9), no_box}, IouType::kBbox), core::Error);
}

TEST(CocoEvalTest, SummaryLayoutAndIouTypeNames) {
  CocoStats s;
  s.values.fill(1.0);
  s.values[3] = -1;
  const std::string text = FormatCocoSummary(s);
  EXPECT_NE(
      text.find(
          " Average Precision  (AP) @[ IoU=0.50:0.95 | area=   all | maxDets=100 ] = 1.000\n"),
      std::string::npos)
      << text;
  EXPECT_NE(
      text.find(
          " Average Precision  (AP) @[ IoU=0.50      | area=   all | maxDets=100 ] = 1.000\n"),
      std::string::npos);
  EXPECT_NE(
      text.find(
          " Average Precision  (AP) @[ IoU=0.50:0.95 | area= small | maxDets=100 ] = -1.000\n"),
      std::string::npos);
  EXPECT_NE(
      text.find(
          " Average Recall     (AR) @[ IoU=0.50:0.95 | area=   all | maxDets=  1 ] = 1.000\n"),
      std::string::npos);
  EXPECT_NE(
      text.find(
          " Average Recall     (AR) @[ IoU=0.50:0.95 | area= large | maxDets=100 ] = 1.000\n"),
      std::string::npos);
  EXPECT_EQ(ParseIouType("segm"), IouType::kSegm);
  EXPECT_STREQ(IouTypeName(IouType::kBbox), "bbox");
  try {
    ParseIouType("keypoints");
    FAIL();
  } catch (const core::Error& e) {
    EXPECT_NE(std::string(e.what()).find("bbox, segm"), std::string::npos);
  }
}

}  // namespace
}  // namespace trainbench::coco

// COCO's run-length mask encoding and its operations, with the semantics of cocoapi's mask API
// (common/maskApi.c, which pycocotools.mask wraps), so that areas, boxes and IoUs agree with
// pycocotools bit for bit:
//  - a mask of h x w pixels is read in column-major (Fortran) order: pixel (x, y) is element
//    x * h + y; the counts alternate background / foreground run lengths, starting with a
//    background run (0 when the first pixel is foreground), and sum to h * w;
//  - polygons are rasterised as rleFrPoly does (coordinates upsampled by 5, boundary points
//    walked densely, then downsampled to the pixel grid), boxes as the polygon of their corners;
//  - the compressed string form is cocoapi's LEB128-like code (6 bits a character, characters
//    48..111, counts from the third on stored as the difference to the count two before).
// Everything here is pure and thread-compatible. Sizes are in pixels, boxes are [x, y, w, h].
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace trainbench::coco {

// The largest mask width and height: 65535, so that h * w < 2^32. cocoapi keeps run lengths and
// pixel positions in 32-bit unsigned ints (maskApi.c `uint`; rleFrPoly casts h * w to uint), and
// Rle::counts does the same to stay bit-compatible: a 65536 x 65536 image wraps h * w to 0 and
// its masks to garbage. The readers (coco_dataset.h) refuse larger images; the functions here
// take sizes up to this (a TB_CHECK) and compute positions in 64 bits.
inline constexpr int64_t kMaxMaskSide = 65535;

// The most boundary points rleFrPoly may walk for one polygon (it holds two ints per point): its
// outline at 5x resolution, about 5 x the perimeter in pixels. 2^24 (128 MiB of work arrays) is
// 12 times the border of a 65535 x 65535 image and 1,000 times COCO's longest outlines. The
// readers refuse longer polygons before rasterising.
inline constexpr uint64_t kMaxPolyWalk = uint64_t{1} << 24;

struct Rle {
  int64_t h = 0;                 // height (rows)
  int64_t w = 0;                 // width (columns)
  std::vector<uint32_t> counts;  // run lengths, background first
};

// Box as [x, y, w, h] in pixels (COCO's bbox layout).
using Box = std::array<double, 4>;

// rleEncode: `mask` holds h * w bytes in column-major order, nonzero = foreground.
Rle RleEncode(const uint8_t* mask, int64_t h, int64_t w);
// rleDecode: h * w bytes (0 / 1) in column-major order. Counts that do not sum to h * w
// (which the readers reject) stop the decoding at h * w pixels or leave the rest 0.
std::vector<uint8_t> RleDecode(const Rle& r);
// rleArea: the number of foreground pixels.
uint64_t RleArea(const Rle& r);
// rleToBbox: the tight box of the foreground, [0, 0, 0, 0] for an empty mask. As cocoapi, a
// foreground run that wraps from one column to the next makes the box span the full height.
Box RleToBbox(const Rle& r);
// rleMerge: the union (or intersection) of the masks; masks of different sizes give an empty
// 0 x 0 RLE, as cocoapi; no masks give an empty 0 x 0 RLE. Masks whose counts sum to different
// totals (malformed; cocoapi loops forever on them) stop at the shorter one.
Rle RleMerge(const std::vector<Rle>& rles, bool intersect);
// The number of boundary points rleFrPoly walks for the polygon xy (the size of its work arrays),
// or UINT64_MAX when a coordinate is not finite or 5 x it is outside an int (cocoapi converts
// it to int: undefined behaviour there).
uint64_t RlePolyWalkLength(const std::vector<double>& xy);
// rleFrPoly: the polygon xy = [x1, y1, x2, y2, ...] (k = xy.size() / 2 points, k >= 1) on an
// h x w grid. Parts outside the image are clipped. Memory and time grow with
// RlePolyWalkLength(xy): the readers refuse polygons longer than kMaxPolyWalk (and coordinates
// where it is UINT64_MAX) before they get here; the training data pipeline then scales them by
// small factors.
Rle RleFrPoly(const std::vector<double>& xy, int64_t h, int64_t w);
// rleFrBbox: the polygon of the box corners (xs, ys), (xs, ye), (xe, ye), (xe, ys), as
// pycocotools' loadRes makes of a box detection. Coordinates further than one pixel outside the
// image are first moved to one pixel outside it: the mask is the same (rleFrPoly clips), but a
// box of any size, even 1e300 wide, is rasterised in time and memory of the image's perimeter.
Rle RleFrBbox(const Box& bb, int64_t h, int64_t w);
// The union of several polygons, as pycocotools' annToRLE does for a polygon segmentation
// (frPyObjects then merge).
Rle RleFrPolygons(const std::vector<std::vector<double>>& polygons, int64_t h, int64_t w);

// rleToString: the compressed counts string.
std::string RleToString(const Rle& r);
// rleFrString: decodes a compressed counts string. Returns false (leaving *out unspecified) on a
// character outside '0'..'o' or a string that ends inside a number; cocoapi reads garbage there.
bool RleFrString(std::string_view s, int64_t h, int64_t w, Rle* out);

// The sum of the counts (h * w for a well-formed RLE).
uint64_t RleCountSum(const Rle& r);

// IoU matrices, as maskUtils.iou(dt, gt, iscrowd): element [d * gt.size() + g] is the IoU of
// detection d and ground truth g, where for a crowd gt (iscrowd[g] != 0) the union is the
// detection's area alone (intersection / area(dt)). iscrowd is empty or has gt.size() flags.
//
// bbIou on boxes: 0 when the boxes do not overlap with positive width and height.
std::vector<double> BboxIou(const std::vector<Box>& dt, const std::vector<Box>& gt,
                            const std::vector<uint8_t>& iscrowd);
// rleIou on masks: the pairs whose boxes (RleToBbox) do not overlap are 0 without looking at the
// masks; a pair of different sizes is -1; an empty intersection is 0. A pair whose counts sum to
// different totals (malformed; cocoapi loops forever on it) is compared up to the shorter one.
std::vector<double> RleIou(const std::vector<Rle>& dt, const std::vector<Rle>& gt,
                           const std::vector<uint8_t>& iscrowd);

}  // namespace trainbench::coco

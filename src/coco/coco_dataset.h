// COCO instance annotations (instances_{train,val}2017.json) and COCO results files, read into
// compact structs and validated; and the writers for both.
//
// Reading. The real train2017 file is 450 MB; as a JSON DOM (nlohmann::json) it takes several
// GB. The readers therefore stream the file through nlohmann's SAX interface
// (nlohmann::json::sax_parse on a FILE*): only one element of "images", "annotations" or
// "categories" (or one detection of a results list) is held as a small DOM at a time, converted
// to the structs below and dropped; other top-level keys ("info", "licenses") are skipped
// without being built. Memory is then the structs: polygons stay double (coordinates in COCO
// have two decimals; float would move pycocotools' rounding of 5 x + 0.5 at half-integers), about
// 16 bytes per coordinate pair, a few hundred MB for train2017.
//
// Validation (every failure is a core::Error "<file>: <what>" naming the image, annotation or
// category id, or "<file>: offset N: ..." with the byte offset of a JSON syntax error):
//  - duplicate image, annotation or category ids;
//  - an annotation whose image id is not in "images", or whose category id is not in
//    "categories";
//  - a bbox that is not 4 finite numbers with w, h >= 0, or that leaves its image by more than
//    kBboxTolerance pixels on any side. COCO's boxes are the tight boxes of polygons whose
//    vertices are rounded to 2 decimals, and some touch the border with x + w a rounding error
//    past the width; boxes of zero width or height exist (e.g. annotation 918 of image 200365
//    in train2017) and are accepted;
//  - a malformed segmentation: a polygon with an odd number of coordinates or fewer than 3
//    points, non-finite coordinates; an RLE whose "size" is not [height, width] of its image,
//    whose counts do not sum to height * width, or whose compressed string is not cocoapi's code.
//    An empty polygon list ("segmentation": []) means no segmentation (boxes-only data);
//    evaluating such a dataset with iouType segm is an error then (coco_eval.h);
//  - an image whose width or height is not a positive integer or is above kMaxMaskSide (65535,
//    rle.h: pycocotools' 32-bit pixel counts); a negative "area";
//  - a polygon rleFrPoly could not rasterise: a coordinate beyond +-4.29e8 (5 x it overflows
//    cocoapi's int) or an outline longer than kMaxPolyWalk points (rle.h), checked before
//    anything is allocated for it;
//  - JSON nesting deeper than core::kMaxJsonDepth, "<file>: offset N: <element>: ...".
// Error messages quote at most about 80 characters of a value from the file.
//
// Threading: the functions are reentrant; the structs are plain values.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "coco/rle.h"

namespace trainbench::coco {

// How far (in pixels) a ground-truth box may extend past its image's border before the reader
// rejects it (see the header comment and docs/coco_eval.md).
inline constexpr double kBboxTolerance = 1.0;

struct CocoImage {
  int64_t id = 0;
  std::string file_name;
  int64_t width = 0;
  int64_t height = 0;
};

struct CocoCategory {
  int64_t id = 0;
  std::string name;
  std::string supercategory;
};

// An annotation's "segmentation": polygons ([[x1, y1, x2, y2, ...], ...], in pixels), or an RLE
// (counts uncompressed in the file when rle_compressed is false), or nothing.
struct Segmentation {
  std::vector<std::vector<double>> polygons;
  std::optional<Rle> rle;
  bool rle_compressed = true;  // how the writer writes `rle`: a counts string or a counts list

  bool empty() const { return polygons.empty() && !rle.has_value(); }
};

struct CocoAnnotation {
  int64_t id = 0;
  int64_t image_id = 0;
  int64_t category_id = 0;
  Box bbox{};       // [x, y, w, h] in pixels
  double area = 0;  // the file's "area" (pycocotools uses it for the area ranges)
  bool iscrowd = false;
  Segmentation segmentation;
};

struct CocoDataset {
  std::vector<CocoImage> images;            // in file order
  std::vector<CocoAnnotation> annotations;  // in file order
  std::vector<CocoCategory> categories;     // in file order

  // Index of an image / category by id, or -1. Valid after BuildIndex() (the reader calls it);
  // call it again after editing the vectors.
  int64_t ImageIndex(int64_t image_id) const;
  int64_t CategoryIndex(int64_t category_id) const;
  void BuildIndex();

 private:
  std::unordered_map<int64_t, int64_t> image_index_;
  std::unordered_map<int64_t, int64_t> category_index_;
};

// Reads and validates a COCO instances JSON file (see the header comment).
CocoDataset ReadCocoDataset(const std::string& path);
// The same from JSON text; `source` names it in error messages.
CocoDataset ParseCocoDataset(const std::string& json_text, const std::string& source);
// Runs the checks above on a dataset built in memory (and builds its index); `source` names it
// in error messages.
void ValidateCocoDataset(CocoDataset* ds, const std::string& source);

// The dataset as COCO JSON text: {"images", "annotations", "categories"}, ids as integers,
// numbers in their shortest round-trip form.
std::string CocoDatasetToJson(const CocoDataset& ds);
// Validates, then writes CocoDatasetToJson atomically (core/atomic_file.h). Throws core::Error.
void WriteCocoDataset(const std::string& path, CocoDataset ds);

// One detection of a results file (the list pycocotools' loadRes reads).
struct Detection {
  int64_t image_id = 0;
  int64_t category_id = 0;
  Box bbox{};  // [x, y, w, h] in pixels; meaningful when has_bbox
  bool has_bbox = true;
  double score = 0;
  std::optional<Rle> segmentation;  // a mask of its image's size
};

// Reads a results file: a JSON list of {"image_id", "category_id", "bbox" and / or
// "segmentation" (an RLE, counts compressed or not), "score"}, validated against `gt`: an
// image id or category id that `gt` lacks, a detection with neither bbox nor segmentation, a
// non-finite score or box, or a mask whose size is not its image's, is a core::Error naming the
// file, the detection's index (0-based) and the id. (pycocotools asserts on unknown images and
// silently never evaluates unknown categories; trainbench rejects both.)
// A box pycocotools scores but that is likely a mistake (a negative width or height, as an
// [x1, y1, x2, y2] box can give; a box entirely outside its image, or reaching further past a
// border than the image is wide or high) is kept and scored as pycocotools would, and when
// `warnings` is given, one line naming the file, the detection's index, its image id and the
// box is appended to it.
std::vector<Detection> ReadCocoResults(const std::string& path, const CocoDataset& gt,
                                       std::vector<std::string>* warnings = nullptr);
std::vector<Detection> ParseCocoResults(const std::string& json_text, const std::string& source,
                                        const CocoDataset& gt,
                                        std::vector<std::string>* warnings = nullptr);
// The checks of ReadCocoResults on detections built in memory.
void ValidateDetections(const std::vector<Detection>& dets, const CocoDataset& gt,
                        const std::string& source, std::vector<std::string>* warnings = nullptr);

// Results as JSON text (masks as compressed RLE) and written atomically.
std::string CocoResultsToJson(const std::vector<Detection>& dets);
void WriteCocoResults(const std::string& path, const std::vector<Detection>& dets);

}  // namespace trainbench::coco

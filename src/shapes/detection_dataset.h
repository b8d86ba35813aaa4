// The dataset folders of the detection benchmarks, as `trainbench prepare detection` makes or
// checks them.
//
// mini (docs/datasets/detection_mini.md): rendered shapes (shape_scene.h) in the COCO 2017
// layout: train2017/*.jpg, val2017/*.jpg, annotations/instances_{train,val}2017.json (info,
// licenses, images, annotations with polygon segmentation, area, bbox and iscrowd 0,
// categories), and dataset.json (the options, counts, statistics, and size and FNV-1a 64 of
// every file), written last. A folder whose dataset.json records other options, another
// generator version or a file that differs is rebuilt; one that matches is kept as it is.
// full: an MS COCO 2017 folder the user provides; only its layout is checked.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "core/hash.h"
#include "core/json.h"
#include "shapes/shape_scene.h"

namespace trainbench::shapes {

// Bumped whenever the renderer or the file format changes what a given set of options makes.
inline constexpr int kDetectionMiniGeneratorVersion = 1;

struct DetectionMiniOptions {
  uint64_t seed = 2017;
  long long train_images = 4000;
  long long val_images = 500;
  int jpeg_quality = 90;  // libjpeg quality, 4:2:0
  ShapesOptions shapes;
};

// Throws core::Error naming the option when a value is out of range.
void ValidateDetectionMiniOptions(const DetectionMiniOptions& o);
// Every option, as dataset.json records it.
core::Json DetectionMiniOptionsJson(const DetectionMiniOptions& o);

// Image file name of image id `id`: COCO's 12-digit "000000000042.jpg".
std::string CocoFileName(long long id);

// Renders `images` images of split `split` (0 train, 1 val): the COCO instances JSON (image ids
// 1..images, annotation ids 1..m in image order), the JPEG bytes of each image in id order, the
// split's statistics (dataset.json's "statistics") and the time spent rendering and encoding.
// Holds everything in memory (about 6 kB of JPEG and 1.5 kB of JSON per 128x128 image).
struct RenderedSplit {
  core::Json instances;
  std::vector<std::string> jpegs;
  core::Json stats;
  // FNV-1a 64 of every image's RGB pixels before JPEG encoding, in id order: the renderer's
  // output independent of the JPEG library (whose encoder may change bytes between versions).
  std::string pixels_fnv1a64;
  double render_s = 0, encode_s = 0;
};
RenderedSplit RenderSplit(const DetectionMiniOptions& o, int split, long long images);

// Compares dir/dataset.json and the files it lists with what these options make: "" when all
// match, else the first difference ("options.shapes.width is 64, requested 128",
// "train2017/000000000007.jpg differs from what dataset.json records"). Does not render.
std::string VerifyDetectionMini(const std::string& dir, const DetectionMiniOptions& o);

struct DetectionPrepareResult {
  bool generated = false;       // false: an existing folder matched
  std::string rebuilt_because;  // when an existing folder was rebuilt: VerifyDetectionMini's reason
  core::Json dataset;           // dataset.json's content
  double seconds = 0;           // rendering, encoding and writing (generated only)
  double render_s = 0, encode_s = 0;
};

// Builds the mini folder in dir, or keeps it when dataset.json matches. Refuses (core::Error) a
// folder that is not empty and holds neither a detection_mini dataset.json nor the marker of an
// interrupted build, so it never deletes files it did not write. Progress lines go to
// `progress` (nullptr: silent). Writes every file atomically (core::WriteFileAtomically).
DetectionPrepareResult PrepareDetectionMini(const std::string& dir, const DetectionMiniOptions& o,
                                            std::FILE* progress);

// The full scale: an MS COCO 2017 folder (annotations/instances_train2017.json,
// annotations/instances_val2017.json, train2017/, val2017/). Lists what is missing (empty: the
// layout is complete) and counts the .jpg files of the image folders that are there.
struct CocoFolderCheck {
  std::vector<std::string> missing;
  long long train_images = 0, val_images = 0;
};
CocoFolderCheck CheckCoco2017Folder(const std::string& dir);

// FNV-1a 64 of bytes: core::Fnv1a64Hex (core/hash.h).
using core::Fnv1a64Hex;

}  // namespace trainbench::shapes

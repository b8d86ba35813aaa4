// One image of the mini detection dataset: a textured background with a few filled shapes of
// six classes, drawn in order (later shapes occlude earlier ones), with exact annotations of
// what is visible.
//
// SampleScene draws a scene's parameters from (seed, split, index) alone, so any image can be
// rendered on its own, in any order, on any thread; RenderScene turns a scene into pixels and
// annotations. Both use only integer random numbers (data::Rng, PCG32 with its own
// distributions) and plain IEEE double arithmetic with the functions of det_math.h, so a scene
// renders to the same bytes on every x86-64 or other IEEE-754 machine.
//
// The rules (docs/datasets/detection_mini.md):
// - a shape is a polygon (the circle a 32-gon) with vertices rounded to 1/100 pixel; pixel
//   (x, y) is the square [x, x+1) x [y, y+1) and belongs to a shape when COCO's polygon
//   rasteriser (RasterizeCocoPolygons; about: its centre is inside) puts it in the shape's
//   polygon, to the last such shape when several do;
// - a shape's visible mask is the pixels that belong to it; its area is their count and its box
//   their extent; a shape is left out of the scene (not drawn, not annotated) when its visible
//   mask has fewer than min_visible_area pixels or is less than (1 - max_occlusion) of the
//   polygon's area (occluded by later shapes and cut by the image border together); leaving one
//   out can only uncover others, and the check is repeated until every shape passes;
// - the segmentation is the shape's polygon when all of it is visible (inside the image and
//   nowhere covered), else the polygons traced from the visible mask (mask_polygon.h); either
//   way, rasterised by COCO's rule, the segmentation is exactly the visible mask;
// - colours are blended by coverage (4x4 samples on edge pixels) when antialias is set, then
//   per-pixel noise is added; the class never depends on colour.
//
// Threading: pure functions of their arguments.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "data/image.h"
#include "shapes/mask_polygon.h"

namespace trainbench::shapes {

// The classes, in category-id order (COCO category id = index + 1).
enum class ShapeClass { kCircle = 0, kRectangle, kTriangle, kStar, kHexagon, kCross };
inline constexpr int kNumShapeClasses = 6;
// "circle", "rectangle", "triangle", "star", "hexagon", "cross".
const char* ShapeClassName(int category);

struct ShapesOptions {
  int width = 128;  // pixels
  int height = 128;
  int min_objects = 1;  // shapes drawn per image, uniform in [min_objects, max_objects], before
  int max_objects = 6;  // the visibility rule leaves some out
  // Shape size: sqrt(polygon area) / min(width, height), log-uniform in [min_size, max_size].
  double min_size = 0.04;
  double max_size = 0.45;
  // Aspect ratio (width / height before rotation, area kept), log-uniform in [1/max_aspect,
  // max_aspect].
  double max_aspect = 1.6;
  double max_occlusion = 0.7;  // a shape is left out when less than 1 - this of its area is visible
  int min_visible_area = 12;   // a shape is left out when fewer pixels than this are visible
  int min_contrast =
      120;  // L1 RGB distance between a shape's colour and the background at its centre (attempted)
  int noise = 8;  // per-pixel noise, uniform integer in [-noise, noise] per channel
  bool antialias = true;
};

// Throws core::Error naming the option when a value is out of range.
void ValidateShapesOptions(const ShapesOptions& o);

struct Point {
  double x = 0, y = 0;
};

struct ShapeObject {
  int category = 0;            // ShapeClass as int
  double cx = 0, cy = 0;       // centre, pixels
  double size = 0;             // sqrt(polygon area), pixels
  double aspect = 1;           // width / height before rotation
  double rotation = 0;         // radians, clockwise on screen
  std::array<int, 3> color{};  // RGB 0..255
  double shade =
      0;  // brightness change across the shape: colour * (1 + shade * t), t in about [-1, 1]
  double shade_angle = 0;  // direction of that change, radians
};

enum class BackgroundKind { kGradient = 0, kStripes, kChecker, kBlobs };
inline constexpr int kNumBackgroundKinds = 4;

struct Background {
  BackgroundKind kind = BackgroundKind::kGradient;
  std::array<int, 3> a{}, b{};  // the two colours
  double angle = 0;             // direction of the gradient, stripes or checker
  double period = 16;           // stripe period or checker cell, pixels
  double phase = 0;             // stripes
  uint64_t blob_seed = 0;       // kBlobs: the colours of a coarse grid, bilinearly interpolated
};

struct Scene {
  int width = 0, height = 0;
  Background background;
  std::vector<ShapeObject> objects;  // in drawing order
  uint64_t noise_seed = 0;
};

// Draws the scene of image `index` of split `split` (0 train, 1 val) for `seed`.
Scene SampleScene(uint64_t seed, int split, long long index, const ShapesOptions& options);

// The shape's polygon in image coordinates (vertices rounded to 1/100 pixel).
std::vector<Point> ShapePolygon(const ShapeObject& object);

struct ObjectAnnotation {
  int category = 0;                   // ShapeClass as int
  std::array<int, 4> bbox{};          // x, y, width, height of the visible pixels
  long long area = 0;                 // visible pixels
  std::vector<Polygon> segmentation;  // COCO polygons
  bool traced = false;  // true: traced from the visible mask (occluded or cut by the border)
  double visible_fraction = 0;  // area / polygon area
  int scene_index = 0;          // index in Scene::objects
};

struct RenderedImage {
  data::Image image;                      // RGB, width x height
  std::vector<ObjectAnnotation> objects;  // the shapes kept, in drawing order
  // Per pixel (row-major): 0 background, k: objects[k - 1].
  std::vector<uint16_t> labels;
  int left_out = 0;  // shapes of the scene left out by the visibility rule
};

RenderedImage RenderScene(const Scene& scene, const ShapesOptions& options);

}  // namespace trainbench::shapes

// Binary masks <-> COCO polygons.
//
// TraceMaskPolygons turns a pixel mask into COCO "segmentation" polygons that reproduce it
// exactly under COCO's polygon rasterisation (pycocotools' rleFrPoly): pixel (x, y) is the
// square [x, x+1) x [y, y+1), and each polygon follows the pixel borders of one 4-connected
// component (integer vertices, collinear vertices removed). A component with holes stays one
// polygon: each hole is joined to the outline by a vertical cut traversed down and back up; the
// cut adds no horizontal crossing, so the even-odd rule (which COCO's column scan is) and the
// nonzero rule both leave the hole out. Polygons of several components are unioned, as
// pycocotools does with a list of polygons.
//
// RasterizeCocoPolygons is a port of rleFrPoly (the polygon -> mask step of the COCO API,
// pycocotools/_mask.pyx and maskApi.c), polygons unioned: the reference for how a COCO
// evaluator reads the polygons written here, used to measure polygon-vs-mask agreement.
//
// Masks are row-major, width * height bytes, nonzero = inside. Pure functions, thread-safe.
#pragma once

#include <cstdint>
#include <vector>

namespace trainbench::shapes {

using Polygon = std::vector<double>;  // x0, y0, x1, y1, ... (COCO's flat layout)

// The polygons of the mask's 4-connected components, in scan order of their first pixel.
std::vector<Polygon> TraceMaskPolygons(const std::vector<uint8_t>& mask, int width, int height);

// The mask pycocotools makes from these polygons (each rasterised by rleFrPoly, then unioned).
std::vector<uint8_t> RasterizeCocoPolygons(const std::vector<Polygon>& polygons, int width,
                                           int height);

// |a & b| / |a | b| of two masks of the same size (1 when both are empty).
double MaskIou(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b);

}  // namespace trainbench::shapes

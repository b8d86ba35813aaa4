#include "shapes/shape_scene.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>

namespace trainbench::shapes {
namespace {

ShapesOptions Small() {
  ShapesOptions o;
  o.width = 64;
  o.height = 48;
  return o;
}

TEST(ShapesScene, SameSeedSameImageOtherSeedOther) {
  const ShapesOptions o = Small();
  const RenderedImage a = RenderScene(SampleScene(1, 0, 3, o), o);
  const RenderedImage b = RenderScene(SampleScene(1, 0, 3, o), o);
  const RenderedImage c = RenderScene(SampleScene(2, 0, 3, o), o);
  const RenderedImage d = RenderScene(SampleScene(1, 1, 3, o), o);
  EXPECT_EQ(a.image.data, b.image.data);
  EXPECT_EQ(a.labels, b.labels);
  EXPECT_NE(a.image.data, c.image.data);
  EXPECT_NE(a.image.data, d.image.data);
}

// Boxes lie in the image and are the extent of the visible mask; areas are its pixel count; the
// polygons, rasterised the COCO way, give the mask back (traced: exactly; the shape's own
// polygon: closely).
TEST(ShapesScene, AnnotationsDescribeTheVisiblePixels) {
  const ShapesOptions o = Small();
  double iou_sum = 0, iou_min = 1;
  long long analytic = 0, traced = 0;
  for (int i = 0; i < 150; ++i) {
    const RenderedImage r = RenderScene(SampleScene(5, 0, i, o), o);
    ASSERT_EQ(r.image.width, o.width);
    ASSERT_EQ(r.image.height, o.height);
    for (size_t k = 0; k < r.objects.size(); ++k) {
      const ObjectAnnotation& a = r.objects[k];
      std::vector<uint8_t> mask(r.labels.size());
      int x0 = o.width, y0 = o.height, x1 = -1, y1 = -1;
      long long n = 0;
      for (int y = 0; y < o.height; ++y) {
        for (int x = 0; x < o.width; ++x) {
          if (r.labels[static_cast<size_t>(y) * o.width + x] != k + 1) continue;
          mask[static_cast<size_t>(y) * o.width + x] = 1;
          ++n;
          x0 = std::min(x0, x), x1 = std::max(x1, x), y0 = std::min(y0, y), y1 = std::max(y1, y);
        }
      }
      EXPECT_EQ(a.area, n);
      EXPECT_GE(a.area, o.min_visible_area);
      EXPECT_GE(a.visible_fraction, 1 - o.max_occlusion - 1e-12);
      EXPECT_EQ(a.bbox, (std::array<int, 4>{x0, y0, x1 - x0 + 1, y1 - y0 + 1}));
      EXPECT_GE(a.bbox[0], 0);
      EXPECT_GE(a.bbox[1], 0);
      EXPECT_LE(a.bbox[0] + a.bbox[2], o.width);
      EXPECT_LE(a.bbox[1] + a.bbox[3], o.height);
      const double iou = MaskIou(RasterizeCocoPolygons(a.segmentation, o.width, o.height), mask);
      EXPECT_EQ(iou, 1.0) << "image " << i << " object " << k
                          << (a.traced ? " traced" : " shape polygon");
      if (a.traced) {
        ++traced;
      } else {
        iou_sum += iou;
        iou_min = std::min(iou_min, iou);
        ++analytic;
      }
    }
  }
  ASSERT_GT(analytic, 50);
  ASSERT_GT(traced, 50);
  std::printf(
      "shape polygons vs mask (COCO raster): %lld objects, mean IoU %.4f, min %.4f; %lld traced "
      "(IoU 1)\n",
      analytic, iou_sum / analytic, iou_min, traced);
}

TEST(ShapesScene, FullyCoveredShapeIsLeftOut) {
  ShapesOptions o = Small();
  o.noise = 0;
  Scene s;
  s.width = o.width;
  s.height = o.height;
  ShapeObject small;
  small.category = static_cast<int>(ShapeClass::kCircle);
  small.cx = 30, small.cy = 24, small.size = 8;
  small.color = {255, 0, 0};
  ShapeObject big = small;
  big.category = static_cast<int>(ShapeClass::kRectangle);
  big.size = 30;
  big.color = {0, 0, 255};
  ShapeObject half = small;  // a circle half under the rectangle's right edge (x = 45)
  half.cx = 45, half.size = 12;
  half.color = {0, 255, 0};
  s.objects = {small, half, big};
  const RenderedImage r = RenderScene(s, o);
  EXPECT_EQ(r.left_out, 1);
  ASSERT_EQ(r.objects.size(), 2u);
  EXPECT_EQ(r.objects[0].scene_index, 1);
  EXPECT_TRUE(r.objects[0].traced);
  EXPECT_NEAR(r.objects[0].visible_fraction, 0.5, 0.08);
  EXPECT_EQ(r.objects[0].bbox[0], 45);  // the visible half starts at the rectangle's edge
  EXPECT_EQ(r.objects[1].category, static_cast<int>(ShapeClass::kRectangle));
  EXPECT_FALSE(r.objects[1].traced);
  EXPECT_EQ(r.objects[1].area, 900);
  EXPECT_EQ(r.objects[1].bbox, (std::array<int, 4>{15, 9, 30, 30}));
  // The circle under the rectangle is not drawn: the centre pixel is the rectangle's blue.
  EXPECT_EQ(r.image.at(24, 30, 2), 255);
  EXPECT_EQ(r.image.at(24, 30, 0), 0);

  // Without the rectangle the small circle is there.
  s.objects = {small};
  EXPECT_EQ(RenderScene(s, o).objects.size(), 1u);
}

TEST(ShapesScene, ShapeCutByTheBorderIsClipped) {
  ShapesOptions o = Small();
  Scene s;
  s.width = o.width;
  s.height = o.height;
  ShapeObject sq;
  sq.category = static_cast<int>(ShapeClass::kRectangle);
  sq.cx = 0, sq.cy = 20, sq.size = 20;  // left half outside
  s.objects = {sq};
  const RenderedImage r = RenderScene(s, o);
  ASSERT_EQ(r.objects.size(), 1u);
  EXPECT_TRUE(r.objects[0].traced);
  EXPECT_EQ(r.objects[0].bbox, (std::array<int, 4>{0, 10, 10, 20}));
  EXPECT_EQ(r.objects[0].area, 200);
  o.max_occlusion = 0.4;  // now half visible is too little
  EXPECT_EQ(RenderScene(s, o).objects.size(), 0u);
}

TEST(ShapesScene, ClassesRoughlyBalancedAndSizesSpread) {
  const ShapesOptions o;  // 128 x 128: COCO's small range scaled to it is 55 pixels
  std::vector<long long> per_class(kNumShapeClasses, 0);
  long long objects = 0, small = 0, large = 0;
  for (int i = 0; i < 250; ++i) {
    const RenderedImage r = RenderScene(SampleScene(9, 0, i, o), o);
    for (const ObjectAnnotation& a : r.objects) {
      ++per_class[static_cast<size_t>(a.category)];
      ++objects;
      const double rel = static_cast<double>(a.area) / (o.width * o.height);
      small += rel < 1024.0 / (640 * 480);
      large += rel >= 9216.0 / (640 * 480);
    }
  }
  const double mean = static_cast<double>(objects) / kNumShapeClasses;
  for (int c = 0; c < kNumShapeClasses; ++c) {
    EXPECT_NEAR(per_class[static_cast<size_t>(c)], mean, 0.2 * mean) << ShapeClassName(c);
  }
  EXPECT_GT(small, objects / 20);
  EXPECT_GT(large, objects / 5);
}

TEST(ShapesScene, OptionsAreValidated) {
  ShapesOptions o;
  o.max_objects = 0;
  o.min_objects = 1;
  EXPECT_THROW(ValidateShapesOptions(o), std::exception);
  o = ShapesOptions();
  o.min_size = 0;
  EXPECT_THROW(ValidateShapesOptions(o), std::exception);
  EXPECT_NO_THROW(ValidateShapesOptions(ShapesOptions()));
}

}  // namespace
}  // namespace trainbench::shapes

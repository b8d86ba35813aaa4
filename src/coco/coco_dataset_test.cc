// The COCO instances / results readers and writers (coco_dataset.h): parsing, round trips, and
// the validation errors, whose messages name the file and the element.
#include "coco/coco_dataset.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/json.h"

namespace trainbench::coco {
namespace {

// A minimal instances file: two images, one category, `anns` spliced into "annotations".
std::string Doc(const std::string& anns) {
  return R"({"info": {"year": 2017}, "licenses": [],
  "images": [{"id": 1, "file_name": "a.jpg", "width": 100, "height": 80},
             {"id": 2, "file_name": "b.jpg", "width": 10, "height": 10}],
  "categories": [{"id": 3, "name": "cat", "supercategory": "animal"}],
  "annotations": [)" +
         anns + "]}";
}

const char* kGoodAnn =
    R"({"id": 7, "image_id": 1, "category_id": 3, "bbox": [10, 20, 30, 40], "area": 1200, "iscrowd": 0,
        "segmentation": [[10, 20, 40, 20, 40, 60, 10, 60]]})";

std::string ErrorOf(const std::string& text, const std::string& source = "inst.json") {
  try {
    ParseCocoDataset(text, source);
  } catch (const core::Error& e) {
    return e.what();
  }
  return "(no error)";
}

void ExpectHas(const std::string& msg, const std::string& part) {
  EXPECT_NE(msg.find(part), std::string::npos) << "message: " << msg << "\nexpected: " << part;
}

TEST(CocoDatasetTest, ParsesImagesCategoriesAnnotations) {
  const std::string crowd =
      R"({"id": 9, "image_id": 2, "category_id": 3, "bbox": [0, 0, 2, 2], "area": 4, "iscrowd": 1,
          "segmentation": {"size": [10, 10], "counts": [0, 2, 8, 2, 88]}})";
  const CocoDataset ds = ParseCocoDataset(Doc(std::string(kGoodAnn) + "," + crowd), "inst.json");
  ASSERT_EQ(ds.images.size(), 2u);
  EXPECT_EQ(ds.images[0].width, 100);
  EXPECT_EQ(ds.images[0].height, 80);
  EXPECT_EQ(ds.images[1].file_name, "b.jpg");
  ASSERT_EQ(ds.categories.size(), 1u);
  EXPECT_EQ(ds.categories[0].name, "cat");
  EXPECT_EQ(ds.categories[0].supercategory, "animal");
  ASSERT_EQ(ds.annotations.size(), 2u);
  const CocoAnnotation& a = ds.annotations[0];
  EXPECT_EQ(a.id, 7);
  EXPECT_EQ(a.bbox, (Box{10, 20, 30, 40}));
  EXPECT_EQ(a.area, 1200);
  EXPECT_FALSE(a.iscrowd);
  ASSERT_EQ(a.segmentation.polygons.size(), 1u);
  EXPECT_EQ(a.segmentation.polygons[0].size(), 8u);
  const CocoAnnotation& c = ds.annotations[1];
  EXPECT_TRUE(c.iscrowd);
  ASSERT_TRUE(c.segmentation.rle.has_value());
  EXPECT_FALSE(c.segmentation.rle_compressed);
  EXPECT_EQ(RleArea(*c.segmentation.rle), 4u);
  EXPECT_EQ(ds.ImageIndex(2), 1);
  EXPECT_EQ(ds.ImageIndex(5), -1);
  EXPECT_EQ(ds.CategoryIndex(3), 0);
}

TEST(CocoDatasetTest, JsonRoundTripAndFile) {
  const CocoDataset ds = ParseCocoDataset(Doc(kGoodAnn), "inst.json");
  const CocoDataset back = ParseCocoDataset(CocoDatasetToJson(ds), "round.json");
  ASSERT_EQ(back.annotations.size(), 1u);
  EXPECT_EQ(back.annotations[0].bbox, ds.annotations[0].bbox);
  EXPECT_EQ(back.annotations[0].segmentation.polygons, ds.annotations[0].segmentation.polygons);
  EXPECT_EQ(back.images.size(), 2u);
  const std::string path = ::testing::TempDir() + "/coco_dataset_test.json";
  WriteCocoDataset(path, ds);
  const CocoDataset read = ReadCocoDataset(path);
  EXPECT_EQ(read.annotations[0].id, 7);
  std::remove(path.c_str());
  try {
    ReadCocoDataset(path + ".missing");
    FAIL();
  } catch (const core::Error& e) {
    ExpectHas(e.what(), "coco_dataset_test.json.missing");
  }
}

TEST(CocoDatasetTest, EmptySegmentationMeansNone) {
  const CocoDataset ds = ParseCocoDataset(
      Doc(R"({"id": 1, "image_id": 1, "category_id": 3, "bbox": [0, 0, 5, 5], "area": 25, "iscrowd": 0,
               "segmentation": []})"),
      "inst.json");
  EXPECT_TRUE(ds.annotations[0].segmentation.empty());
}

TEST(CocoDatasetTest, AnnotationWithUnknownImageId) {
  const std::string msg = ErrorOf(Doc(
      R"({"id": 41, "image_id": 99, "category_id": 3, "bbox": [0, 0, 5, 5], "area": 25, "iscrowd": 0})"));
  ExpectHas(msg, "inst.json");
  ExpectHas(msg, "annotation id 41");
  ExpectHas(msg, "image id 99");
}

TEST(CocoDatasetTest, AnnotationWithUnknownCategoryId) {
  const std::string msg = ErrorOf(Doc(
      R"({"id": 42, "image_id": 1, "category_id": 4, "bbox": [0, 0, 5, 5], "area": 25, "iscrowd": 0})"));
  ExpectHas(msg, "inst.json");
  ExpectHas(msg, "annotation id 42");
  ExpectHas(msg, "category id 4");
}

TEST(CocoDatasetTest, BboxOutsideItsImage) {
  // Image 2 is 10 x 10. x + w = 11.5 is past the width by 1.5 > kBboxTolerance (1 px).
  const std::string msg = ErrorOf(Doc(
      R"({"id": 43, "image_id": 2, "category_id": 3, "bbox": [5, 0, 6.5, 5], "area": 25, "iscrowd": 0})"));
  ExpectHas(msg, "inst.json");
  ExpectHas(msg, "annotation id 43");
  ExpectHas(msg, "image id 2");
  ExpectHas(msg, "outside");
  // Within the tolerance (x + w = 10.5) and zero-width boxes are accepted.
  EXPECT_NO_THROW(ParseCocoDataset(
      Doc(R"({"id": 43, "image_id": 2, "category_id": 3, "bbox": [5, 0, 5.5, 5], "area": 25, "iscrowd": 0},
             {"id": 44, "image_id": 2, "category_id": 3, "bbox": [5, 0, 0, 5], "area": 0, "iscrowd": 0})"),
      "inst.json"));
  ExpectHas(
      ErrorOf(Doc(
          R"({"id": 45, "image_id": 2, "category_id": 3, "bbox": [-1.5, 0, 2, 2], "area": 4})")),
      "annotation id 45");
  ExpectHas(
      ErrorOf(
          Doc(R"({"id": 46, "image_id": 2, "category_id": 3, "bbox": [1, 1, -2, 2], "area": 4})")),
      "negative width");
  ExpectHas(
      ErrorOf(Doc(R"({"id": 47, "image_id": 2, "category_id": 3, "bbox": [1, 1, 2], "area": 4})")),
      "annotation id 47");
}

TEST(CocoDatasetTest, MalformedSegmentation) {
  const std::string odd = ErrorOf(Doc(
      R"({"id": 51, "image_id": 1, "category_id": 3, "bbox": [0, 0, 5, 5], "area": 25, "iscrowd": 0,
          "segmentation": [[0, 0, 5, 0, 5, 5, 0]]})"));
  ExpectHas(odd, "inst.json");
  ExpectHas(odd, "annotation id 51");
  ExpectHas(odd, "odd number of coordinates (7)");
  // Two points only.
  ExpectHas(
      ErrorOf(Doc(R"({"id": 52, "image_id": 1, "category_id": 3, "bbox": [0, 0, 5, 5], "area": 25,
                            "segmentation": [[0, 0, 5, 5]]})")),
      "annotation id 52");
  // RLE of the wrong size for image 1 (80 x 100), and counts that do not sum to h * w.
  ExpectHas(
      ErrorOf(Doc(R"({"id": 53, "image_id": 1, "category_id": 3, "bbox": [0, 0, 5, 5], "area": 25,
                            "segmentation": {"size": [10, 10], "counts": [100]}})")),
      "annotation id 53");
  ExpectHas(
      ErrorOf(Doc(R"({"id": 54, "image_id": 2, "category_id": 3, "bbox": [0, 0, 5, 5], "area": 25,
                            "segmentation": {"size": [10, 10], "counts": [50, 10]}})")),
      "annotation id 54");
  // A compressed string with a character outside cocoapi's alphabet.
  ExpectHas(
      ErrorOf(Doc(R"({"id": 55, "image_id": 2, "category_id": 3, "bbox": [0, 0, 5, 5], "area": 25,
                            "segmentation": {"size": [10, 10], "counts": "1~"}})")),
      "annotation id 55");
}

TEST(CocoDatasetTest, DuplicateIdsAndBadImages) {
  ExpectHas(ErrorOf(Doc(std::string(kGoodAnn) + "," + kGoodAnn)), "duplicate annotation id");
  ExpectHas(
      ErrorOf(
          R"({"images": [{"id": 1, "width": 0, "height": 5}], "categories": [], "annotations": []})"),
      "image id 1");
  ExpectHas(
      ErrorOf(
          R"({"images": [{"id": 1, "width": 5, "height": 5}, {"id": 1, "width": 5, "height": 5}],
                        "categories": [], "annotations": []})"),
      "duplicate image id");
}

TEST(CocoDatasetTest, JsonSyntaxErrorNamesFileAndOffset) {
  const std::string msg =
      ErrorOf(R"({"images": [{"id": 1, "width": 5,, "height": 5}]})", "broken.json");
  ExpectHas(msg, "broken.json");
  ExpectHas(msg, "offset");
  ExpectHas(msg, "JSON syntax error");
  ExpectHas(ErrorOf("[1, 2]", "list.json"), "list.json");
}

TEST(CocoDatasetTest, ResultsParseValidateAndRoundTrip) {
  const CocoDataset gt = ParseCocoDataset(Doc(kGoodAnn), "inst.json");
  const std::vector<Detection> dets = ParseCocoResults(
      R"([{"image_id": 1, "category_id": 3, "bbox": [1, 2, 3, 4], "score": 0.5},
          {"image_id": 2, "category_id": 3, "segmentation": {"size": [10, 10], "counts": "X1:b1"}, "score": 0.25}])",
      "dt.json", gt);
  ASSERT_EQ(dets.size(), 2u);
  EXPECT_EQ(dets[0].bbox, (Box{1, 2, 3, 4}));
  EXPECT_TRUE(dets[0].has_bbox);
  EXPECT_FALSE(dets[1].has_bbox);
  ASSERT_TRUE(dets[1].segmentation.has_value());
  EXPECT_EQ(dets[1].segmentation->counts,
            (std::vector<uint32_t>{40, 10, 50}));  // "X1" = 40, ":" = 10, "b1" = 50
  const std::vector<Detection> back = ParseCocoResults(CocoResultsToJson(dets), "round.json", gt);
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[1].segmentation->counts, dets[1].segmentation->counts);
  EXPECT_EQ(back[0].score, 0.5);

  auto err = [&](const std::string& text) {
    try {
      ParseCocoResults(text, "dt.json", gt);
    } catch (const core::Error& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  const std::string unknown_image =
      err(R"([{"image_id": 1, "category_id": 3, "bbox": [1, 2, 3, 4], "score": 0.5},
                                            {"image_id": 77, "category_id": 3, "bbox": [1, 2, 3, 4], "score": 0.5}])");
  ExpectHas(unknown_image, "dt.json");
  ExpectHas(unknown_image, "detection 1");
  ExpectHas(unknown_image, "image id 77");
  ExpectHas(err(R"([{"image_id": 1, "category_id": 8, "bbox": [1, 2, 3, 4], "score": 0.5}])"),
            "category id 8");
  ExpectHas(err(R"([{"image_id": 1, "category_id": 3, "score": 0.5}])"), "detection 0");
  ExpectHas(
      err(R"([{"image_id": 2, "category_id": 3, "segmentation": {"size": [5, 5], "counts": [25]}, "score": 1}])"),
      "detection 0");
  ExpectHas(err(R"([{"image_id": 1, "category_id": 3, "bbox": [1, 2, 3, 4], "score": 0.5)"),
            "offset");
}

// Hostile input (#41). A 65,000-level '[' in a validated field: the whole element was built and
// the error message dumped it recursively (a stack overflow at 1,000,000 levels). The reader now
// stops at core::kMaxJsonDepth, naming the file, the byte offset of the bracket and the element,
// reading a file and a string alike.
TEST(CocoDatasetTest, NestingDeeperThanTheJsonLimitNamesOffsetAndElement) {
  const std::string deep(65000, '[');
  const std::string text = Doc(R"({"id": 7, "image_id": 1, "category_id": 3, "bbox": )" + deep);
  // Depth 1 is the top object, 2 "annotations", 3 the annotation; bbox's 510th bracket is 513.
  const size_t offset = text.find("\"bbox\": [") + 8 + (core::kMaxJsonDepth - 3);
  const std::string want = ": offset " + std::to_string(offset) +
                           ": annotations[0]: JSON nesting deeper than " +
                           std::to_string(core::kMaxJsonDepth) + " levels";
  EXPECT_EQ(ErrorOf(text, "deep.json"), "deep.json" + want);
  const std::string path = ::testing::TempDir() + "/coco_deep.json";
  std::ofstream(path) << text;
  try {
    ReadCocoDataset(path);
    ADD_FAILURE() << "no error";
  } catch (const core::Error& e) {
    EXPECT_EQ(e.what(), path + want);
  }
  const CocoDataset gt = ParseCocoDataset(Doc(kGoodAnn), "inst.json");
  const std::string results =
      R"([{"image_id": 1, "category_id": 3, "score": 1, "bbox": [1, 2, 3, 4]},
                                  {"image_id": )" +
      deep;
  try {
    ParseCocoResults(results, "dt.json", gt);
    ADD_FAILURE() << "no error";
  } catch (const core::Error& e) {
    EXPECT_EQ(e.what(), "dt.json: offset " +
                            std::to_string(results.find(deep) + core::kMaxJsonDepth - 2) +
                            ": detection 1: JSON nesting deeper than 512 levels");
  }
}

// Values within the nesting limit, or long, are quoted in at most about 80 characters.
TEST(CocoDatasetTest, ErrorMessagesQuoteBoundedExcerpts) {
  const std::string nested = std::string(500, '[') + "1" + std::string(500, ']');
  std::string msg = ErrorOf(
      Doc(R"({"id": 7, "image_id": 1, "category_id": 3, "area": 1, "bbox": )" + nested + "}"));
  EXPECT_EQ(msg, "inst.json: annotation id 7: \"bbox\" is not a list of 4 numbers: " +
                     std::string(80, '[') + "...");
  std::string many = "[0";
  for (int i = 1; i < 10000; ++i) many += ", " + std::to_string(i);
  msg = ErrorOf(
      Doc(R"({"id": 7, "image_id": 1, "category_id": 3, "area": 1, "bbox": )" + many + "]}"));
  EXPECT_LT(msg.size(), 200u) << msg;
  ExpectHas(msg, "\"bbox\" is not a list of 4 numbers: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, ");
  msg = ErrorOf(R"({"images": [{"id": 1, "width": ")" + std::string(10000, 'w') +
                R"(", "height": 5}]})");
  EXPECT_EQ(
      msg, "inst.json: image id 1: \"width\" is not an integer: \"" + std::string(79, 'w') + "...");
}

// pycocotools counts pixels in 32 bits; a 65536 x 65536 image wrapped h * w to 0 and made
// RleIou loop forever. Such images are refused by name.
TEST(CocoDatasetTest, ImagesAboveTheMaskSizeLimit) {
  const std::string head = R"({"images": [{"id": 4, "width": )";
  EXPECT_EQ(ErrorOf(head + R"(65536, "height": 65536}], "annotations": [], "categories": []})"),
            "inst.json: image id 4: width and height must be at most 65535, got 65536 x 65536 "
            "(COCO masks "
            "count pixels in 32 bits, as pycocotools: h * w must be below 2^32)");
  EXPECT_EQ(ErrorOf(head + R"(65535, "height": 65535}], "annotations": [], "categories": []})"),
            "(no error)");
}

// A polygon whose outline rleFrPoly would walk point by point into gigabytes (vector::reserve
// threw std::bad_alloc, uncaught), or whose coordinates overflow cocoapi's int, is refused
// while reading, naming the annotation.
TEST(CocoDatasetTest, PolygonsTooLargeToRasterise) {
  const auto ann = [](const std::string& poly) {
    return R"({"id": 7, "image_id": 1, "category_id": 3, "bbox": [10, 20, 30, 40], "area": 1200,
              "segmentation": [[10, 20, 40, 20, 40, 60], )" +
           poly + "]}";
  };
  EXPECT_EQ(ErrorOf(Doc(ann("[0, 0, 1e9, 0, 1e9, 1e9]"))),
            "inst.json: annotation id 7 (image id 1): segmentation polygon 1 has a coordinate "
            "beyond +-4.29e8, "
            "where 5 x it overflows cocoapi's int");
  EXPECT_EQ(
      ErrorOf(Doc(ann("[0, 0, 4e6, 0, 4e6, 4e6]"))),
      "inst.json: annotation id 7 (image id 1): segmentation polygon 1 is too large to rasterise: "
      "its "
      "outline is 60000003 points at rleFrPoly's 5x resolution, more than 16777216 (3 vertices)");
}

// Detection boxes pycocotools scores but that are likely mistakes are kept and named in warnings.
TEST(CocoDatasetTest, ImplausibleDetectionBoxesAreWarnedAbout) {
  const CocoDataset gt = ParseCocoDataset(Doc(kGoodAnn), "inst.json");  // image 1 is 100 x 80
  std::vector<std::string> warnings;
  const std::vector<Detection> dets = ParseCocoResults(
      R"([{"image_id": 1, "category_id": 3, "bbox": [10, 20, 30, 40], "score": 0.9},
          {"image_id": 1, "category_id": 3, "bbox": [40, 60, -30, 40], "score": 0.8},
          {"image_id": 1, "category_id": 3, "bbox": [1e6, 1e6, 5, 5], "score": 0.7},
          {"image_id": 1, "category_id": 3, "bbox": [-5, -5, 110, 90], "score": 0.6},
          {"image_id": 2, "category_id": 3, "bbox": [0, 0, 25, 5], "score": 0.5}])",
      "dt.json", gt, &warnings);
  EXPECT_EQ(dets.size(), 5u);
  EXPECT_EQ(
      warnings,
      (std::vector<std::string>{
          "dt.json: detection 1 (image id 1): bbox [40.0, 60.0, -30.0, 40.0] has a negative width "
          "or height; scored as given, as pycocotools does",
          "dt.json: detection 2 (image id 1): bbox [1000000.0, 1000000.0, 5.0, 5.0] lies far "
          "outside its 100 x 80 image; scored as given, as pycocotools does",
          "dt.json: detection 4 (image id 2): bbox [0.0, 0.0, 25.0, 5.0] lies far outside its "
          "10 x 10 image; scored as given, as pycocotools does"}));
}

}  // namespace
}  // namespace trainbench::coco

#include "shapes/detection_dataset.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/atomic_file.h"
#include "core/error.h"

namespace trainbench::shapes {
namespace {

namespace fs = std::filesystem;

DetectionMiniOptions Tiny() {
  DetectionMiniOptions o;
  o.train_images = 12;
  o.val_images = 5;
  o.shapes.width = 48;
  o.shapes.height = 40;
  return o;
}

std::string TempDir(const std::string& name) {
  const std::string d = std::string(TRAINBENCH_TEST_BINDIR) + "/shapes_test_tmp/" + name;
  fs::remove_all(d);
  return d;
}

TEST(ShapesDetectionDataset, RenderSplitIsDeterministic) {
  const DetectionMiniOptions o = Tiny();
  const RenderedSplit a = RenderSplit(o, 0, 6), b = RenderSplit(o, 0, 6);
  EXPECT_EQ(a.jpegs, b.jpegs);
  EXPECT_EQ(a.instances.dump(), b.instances.dump());
  DetectionMiniOptions other = o;
  other.seed = o.seed + 1;
  const RenderedSplit c = RenderSplit(other, 0, 6);
  EXPECT_NE(a.jpegs, c.jpegs);
  // Image i does not depend on how many images the split has.
  const RenderedSplit d = RenderSplit(o, 0, 3);
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(a.jpegs[i], d.jpegs[i]);
}

// Golden hashes of a tiny render: the pixels and annotations must be the same on every machine
// and build. A change here changes every dataset: bump kDetectionMiniGeneratorVersion with it.
TEST(ShapesDetectionDataset, GoldenRender) {
  const RenderedSplit r = RenderSplit(Tiny(), 0, 6);
  EXPECT_EQ(r.pixels_fnv1a64, "eac8198b6e723de3");
  EXPECT_EQ(Fnv1a64Hex(r.instances.dump()), "4c121a098dd89c6e");
}

TEST(ShapesDetectionDataset, InstancesJsonHasTheCocoLayout) {
  const DetectionMiniOptions o = Tiny();
  const core::Json j = core::Json::parse(RenderSplit(o, 1, 8).instances.dump());
  for (const char* key : {"info", "licenses", "images", "annotations", "categories"})
    EXPECT_TRUE(j.contains(key)) << key;
  ASSERT_EQ(j["images"].size(), 8u);
  for (size_t i = 0; i < 8; ++i) {
    const core::Json& im = j["images"][i];
    EXPECT_EQ(im["id"], static_cast<long long>(i) + 1);
    EXPECT_EQ(im["file_name"], CocoFileName(static_cast<long long>(i) + 1));
    EXPECT_EQ(im["width"], 48);
    EXPECT_EQ(im["height"], 40);
  }
  ASSERT_EQ(j["categories"].size(), static_cast<size_t>(kNumShapeClasses));
  EXPECT_EQ(j["categories"][0]["name"], "circle");
  EXPECT_EQ(j["categories"][0]["supercategory"], "shape");
  ASSERT_GT(j["annotations"].size(), 0u);
  long long id = 0;
  for (const core::Json& a : j["annotations"]) {
    EXPECT_EQ(a["id"], ++id);
    EXPECT_GE(a["image_id"].get<long long>(), 1);
    EXPECT_LE(a["image_id"].get<long long>(), 8);
    EXPECT_GE(a["category_id"].get<int>(), 1);
    EXPECT_LE(a["category_id"].get<int>(), kNumShapeClasses);
    EXPECT_EQ(a["iscrowd"], 0);
    ASSERT_TRUE(a["bbox"].is_array());
    ASSERT_EQ(a["bbox"].size(), 4u);
    EXPECT_GT(a["bbox"][2].get<double>(), 0);
    EXPECT_GT(a["area"].get<double>(), 0);
    ASSERT_TRUE(a["segmentation"].is_array());
    ASSERT_GE(a["segmentation"].size(), 1u);
    for (const core::Json& p : a["segmentation"]) {
      EXPECT_GE(p.size(), 6u);
      EXPECT_EQ(p.size() % 2, 0u);
    }
  }
  EXPECT_EQ(CocoFileName(42), "000000000042.jpg");
}

TEST(ShapesDetectionDataset, PrepareBuildsThenVerifiesThenRebuildsOnMismatch) {
  const std::string dir = TempDir("mini");
  const DetectionMiniOptions o = Tiny();
  const DetectionPrepareResult first = PrepareDetectionMini(dir, o, nullptr);
  EXPECT_TRUE(first.generated);
  for (const char* f : {"dataset.json", "annotations/instances_train2017.json",
                        "annotations/instances_val2017.json", "train2017/000000000012.jpg",
                        "val2017/000000000005.jpg"}) {
    EXPECT_TRUE(fs::exists(dir + "/" + f)) << f;
  }
  EXPECT_FALSE(fs::exists(dir + "/train2017/000000000013.jpg"));
  EXPECT_FALSE(fs::exists(dir + "/.detection_mini.partial"));
  const core::Json d = core::Json::parse(core::ReadFile(dir + "/dataset.json"));
  EXPECT_EQ(d["counts"]["train2017_images"], 12);
  EXPECT_EQ(d["files"].size(), 12u + 5u + 2u);
  EXPECT_EQ(VerifyDetectionMini(dir, o), "");
  const std::string manifest = core::ReadFile(dir + "/dataset.json");

  const DetectionPrepareResult second = PrepareDetectionMini(dir, o, nullptr);
  EXPECT_FALSE(second.generated);

  // A modified image is found and named; prepare then rebuilds the folder.
  const std::string victim = dir + "/train2017/000000000003.jpg";
  const std::string original = core::ReadFile(victim);
  std::string changed = original;
  changed[changed.size() / 2] ^= 1;
  core::WriteFileAtomically(victim, changed);
  EXPECT_EQ(VerifyDetectionMini(dir, o),
            "train2017/000000000003.jpg differs from what dataset.json records");
  const DetectionPrepareResult third = PrepareDetectionMini(dir, o, nullptr);
  EXPECT_TRUE(third.generated);
  EXPECT_EQ(third.rebuilt_because,
            "train2017/000000000003.jpg differs from what dataset.json records");
  EXPECT_EQ(core::ReadFile(victim), original);
  EXPECT_EQ(core::ReadFile(dir + "/dataset.json"), manifest);

  // Other options: named, and a smaller rebuild leaves no stale images.
  DetectionMiniOptions fewer = o;
  fewer.train_images = 4;
  EXPECT_EQ(VerifyDetectionMini(dir, fewer), "options.train_images is 12, requested 4");
  fs::remove(dir + "/val2017/000000000002.jpg");
  EXPECT_EQ(VerifyDetectionMini(dir, o), "val2017/000000000002.jpg is missing");
  EXPECT_TRUE(PrepareDetectionMini(dir, fewer, nullptr).generated);
  EXPECT_FALSE(fs::exists(dir + "/train2017/000000000005.jpg"));
  EXPECT_EQ(VerifyDetectionMini(dir, fewer), "");
}

TEST(ShapesDetectionDataset, SameOptionsSameBytes) {
  const DetectionMiniOptions o = Tiny();
  const std::string a = TempDir("same_a"), b = TempDir("same_b");
  PrepareDetectionMini(a, o, nullptr);
  PrepareDetectionMini(b, o, nullptr);
  EXPECT_EQ(core::ReadFile(a + "/dataset.json"), core::ReadFile(b + "/dataset.json"));
  EXPECT_EQ(core::ReadFile(a + "/annotations/instances_train2017.json"),
            core::ReadFile(b + "/annotations/instances_train2017.json"));
}

TEST(ShapesDetectionDataset, RefusesAForeignFolder) {
  const std::string dir = TempDir("foreign");
  core::MakeDirs(dir);
  core::WriteFileAtomically(dir + "/precious.txt", "mine\n");
  EXPECT_THROW(PrepareDetectionMini(dir, Tiny(), nullptr), core::Error);
  EXPECT_TRUE(fs::exists(dir + "/precious.txt"));
  DetectionMiniOptions bad = Tiny();
  bad.jpeg_quality = 0;
  EXPECT_THROW(PrepareDetectionMini(TempDir("bad"), bad, nullptr), core::Error);
}

TEST(ShapesDetectionDataset, CocoFolderCheckListsWhatIsMissing) {
  const std::string dir = TempDir("coco");
  core::MakeDirs(dir + "/train2017");
  core::MakeDirs(dir + "/annotations");
  core::WriteFileAtomically(dir + "/annotations/instances_train2017.json", "{}");
  core::WriteFileAtomically(dir + "/train2017/000000000009.jpg", "x");
  const CocoFolderCheck c = CheckCoco2017Folder(dir);
  EXPECT_EQ(c.train_images, 1);
  ASSERT_EQ(c.missing.size(), 2u);
  EXPECT_EQ(c.missing[0], dir + "/annotations/instances_val2017.json");
  EXPECT_EQ(c.missing[1], dir + "/val2017/");
}

}  // namespace
}  // namespace trainbench::shapes

#include "data/imagenet_dataset.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "core/error.h"
#include "data/batch_loader.h"
#include "data/jpeg_codec.h"
#include "data/test_util.h"

namespace trainbench::data {
namespace {

namespace fs = std::filesystem;
using testing::SyntheticImage;
using testing::TempDir;

// root/n00/{0,1}.JPEG, root/n01/{0,1}.JPEG, root/n02/{0,1}.JPEG with varied sizes, one gray.
void MakeTree(const TempDir& dir) {
  const int sizes[6][3] = {{75, 100, 3}, {100, 75, 3}, {60, 60, 1},
                           {80, 120, 3}, {90, 70, 3},  {64, 96, 3}};
  for (int i = 0; i < 6; ++i) {
    const fs::path cls = fs::path(dir.path()) / ("n0" + std::to_string(i / 2));
    fs::create_directories(cls);
    WriteJpegFile((cls / (std::to_string(i % 2) + ".JPEG")).string(),
                  SyntheticImage(sizes[i][0], sizes[i][1], sizes[i][2], i), 92);
  }
}

ImageNetOptions SmallOptions(bool train) {
  ImageNetOptions o;
  o.train = train;
  o.crop_size = 48;
  o.resize_size = 56;
  return o;
}

TEST(ImageNetDatasetTest, EvalIsResizeCenterCropNormalise) {
  TempDir dir;
  MakeTree(dir);
  auto folder = std::make_shared<ImageFolder>(dir.path());
  const ImageNetDataset ds(folder, SmallOptions(false));
  EXPECT_EQ(ds.size(), 6);
  EXPECT_EQ(ds.shape(), (ExampleShape{3, 48, 48}));
  for (int64_t i = 0; i < 6; ++i) {
    Rng rng(1);
    const Example e = ds.Get(i, rng);
    EXPECT_EQ(e.label, i / 2);
    const Image expected_img =
        ResizeShorterSideCenterCrop(DecodeJpegFile(folder->samples()[i].path), 56, 48);
    const std::vector<float> expected =
        ToFloatChw(expected_img, {0.485f, 0.456f, 0.406f}, {0.229f, 0.224f, 0.225f});
    ASSERT_EQ(e.data, expected);
  }
}

TEST(ImageNetDatasetTest, TrainIsDeterministicPerRngAndVaries) {
  TempDir dir;
  MakeTree(dir);
  const ImageNetDataset ds(std::make_shared<ImageFolder>(dir.path()), SmallOptions(true));
  Rng a(3), b(3), c(4);
  const Example x = ds.Get(1, a);
  EXPECT_EQ(x.data, ds.Get(1, b).data);
  EXPECT_NE(x.data, ds.Get(1, c).data);
  EXPECT_EQ(x.data.size(), 3u * 48 * 48);
}

TEST(ImageNetDatasetTest, DctScalingEvalIsCloseToFullDecode) {
  TempDir dir;
  fs::create_directories(dir.file("n0"));
  Image smooth(480, 640, 3);
  for (int y = 0; y < 480; ++y) {
    for (int x = 0; x < 640; ++x) {
      for (int c = 0; c < 3; ++c) {
        smooth.at(y, x, c) =
            static_cast<uint8_t>(128 + 100 * std::sin(x / (40.0 + 10 * c)) * std::cos(y / 50.0));
      }
    }
  }
  WriteJpegFile(dir.file("n0/big.JPEG"), smooth, 95);
  auto folder = std::make_shared<ImageFolder>(dir.path());
  ImageNetOptions o = SmallOptions(false);
  const ImageNetDataset full(folder, o);
  o.dct_scaling = true;  // 480 -> 60 at 1/8 is still >= 56
  const ImageNetDataset scaled(folder, o);
  Rng r1(0), r2(0);
  const Image a = full.LoadImage(0, r1);
  const Image b = scaled.LoadImage(0, r2);
  ASSERT_EQ(a.num_bytes(), b.num_bytes());
  double diff = 0;
  for (size_t i = 0; i < a.data.size(); ++i) diff += std::abs(int{a.data[i]} - int{b.data[i]});
  EXPECT_LT(diff / a.data.size(), 4.0);
  EXPECT_GT(diff, 0.0);  // it really took the other path
}

TEST(ImageNetDatasetTest, CorruptJpegErrorReachesTheConsumerNamingTheFile) {
  TempDir dir;
  MakeTree(dir);
  const std::string bad = dir.file("n01/0.JPEG");
  std::ofstream(bad, std::ios::binary | std::ios::trunc) << "garbage, not a JPEG";
  auto ds = std::make_shared<ImageNetDataset>(std::make_shared<ImageFolder>(dir.path()),
                                              SmallOptions(true));
  BatchLoaderOptions lo;
  lo.batch_size = 2;
  lo.num_workers = 2;
  BatchLoader loader(ds, lo);
  loader.StartEpoch(0);
  try {
    while (loader.Next()) {
    }
    FAIL() << "no error";
  } catch (const core::Error& e) {
    EXPECT_NE(std::string(e.what()).find(bad + ": cannot decode JPEG: Not a JPEG file"),
              std::string::npos)
        << e.what();
  }
  EXPECT_FALSE(loader.Next().has_value());
}

}  // namespace
}  // namespace trainbench::data

#include "data/fashion_mnist_dataset.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "data/test_util.h"
#include "data/transforms.h"

namespace trainbench::data {
namespace {

std::shared_ptr<MnistSplit> RandomSplit(int64_t n, uint64_t seed) {
  auto s = std::make_shared<MnistSplit>();
  s->num_examples = n;
  s->rows = 28;
  s->cols = 28;
  Rng rng(seed);
  s->images.resize(static_cast<size_t>(n) * 784);
  for (uint8_t& b : s->images) b = static_cast<uint8_t>(rng.NextU32());
  s->labels.resize(static_cast<size_t>(n));
  for (uint8_t& l : s->labels) l = static_cast<uint8_t>(rng.UniformInt(0, 9));
  return s;
}

Image ImageOf(const MnistSplit& s, int64_t i) {
  Image img(s.rows, s.cols, 1);
  std::copy_n(s.images.begin() + i * 784, 784, img.data.begin());
  return img;
}

TEST(FashionMnistDatasetTest, PlainExampleIsNormalisedPixels) {
  auto split = RandomSplit(10, 1);
  const FashionMnistDataset ds(split, FashionMnistOptions{});
  EXPECT_EQ(ds.size(), 10);
  EXPECT_EQ(ds.shape(), (ExampleShape{1, 28, 28}));
  Rng rng(0);
  const Example e = ds.Get(3, rng);
  EXPECT_EQ(e.label, split->labels[3]);
  for (int i = 0; i < 784; ++i) {
    const float expected = (split->images[3 * 784 + i] / 255.f - 0.2860f) / 0.3530f;
    ASSERT_FLOAT_EQ(e.data[i], expected);
  }
}

TEST(FashionMnistDatasetTest, FusedAugmentationEqualsComposedTransforms) {
  auto split = RandomSplit(50, 2);
  const FashionMnistDataset ds(split, FashionMnistTrainOptions());
  const float mean = kFashionMnistMean, stdev = kFashionMnistStd;
  int flipped = 0;
  for (int64_t i = 0; i < 50; ++i) {
    Rng a = SampleRng(7, 0, i);
    Rng b = a;
    const Example e = ds.Get(i, a);
    Image img = RandomCropWithPadding(ImageOf(*split, i), 28, 28, 4, b);
    flipped += RandomFlipHorizontal(&img, b) ? 1 : 0;
    std::vector<float> expected(784);
    ToFloatChw(img, &mean, &stdev, expected.data());
    ASSERT_EQ(e.data, expected) << "example " << i;  // bit-exact
    EXPECT_EQ(a.NextU64(), b.NextU64());             // same number of draws
  }
  EXPECT_GT(flipped, 5);
  EXPECT_LT(flipped, 45);
}

TEST(FashionMnistDatasetTest, RealTrainSetMeanAndStdMatchTheConstants) {
  const std::string dir = kFashionMnistSystemDir;
  if (!std::filesystem::exists(dir + "/train-images-idx3-ubyte.gz")) {
    GTEST_SKIP() << "Fashion-MNIST not installed in " << dir;
  }
  auto split = std::make_shared<MnistSplit>(LoadMnistSplit(dir, "train"));
  double sum = 0, sum2 = 0;
  for (uint8_t v : split->images) {
    const double x = v / 255.0;
    sum += x;
    sum2 += x * x;
  }
  const double n = static_cast<double>(split->images.size());
  const double mean = sum / n;
  EXPECT_NEAR(mean, kFashionMnistMean, 5e-4);
  EXPECT_NEAR(std::sqrt(sum2 / n - mean * mean), kFashionMnistStd, 5e-4);
}

}  // namespace
}  // namespace trainbench::data

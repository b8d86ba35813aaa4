#include "data/idx_reader.h"

#include <gtest/gtest.h>

#include <array>
#include <filesystem>
#include <fstream>

#include "core/error.h"
#include "data/test_util.h"

namespace trainbench::data {
namespace {

using testing::ErrorOf;
using testing::TempDir;

std::vector<uint8_t> Bytes(size_t n, int mul) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(i * mul + 1);
  return v;
}

void WriteSplit(const TempDir& dir, const std::string& split, int64_t n_images, int64_t n_labels,
                bool gzip) {
  const std::string ext = gzip ? ".gz" : "";
  WriteIdxFile(dir.file(split + "-images-idx3-ubyte" + ext), {n_images, 3, 4},
               Bytes(static_cast<size_t>(n_images * 12), 7), gzip);
  WriteIdxFile(dir.file(split + "-labels-idx1-ubyte" + ext), {n_labels},
               Bytes(static_cast<size_t>(n_labels), 3), gzip);
}

class IdxGzipTest : public ::testing::TestWithParam<bool> {};

TEST_P(IdxGzipTest, LoadsSplit) {
  TempDir dir;
  WriteSplit(dir, "train", 5, 5, GetParam());
  const MnistSplit s = LoadMnistSplit(dir.path(), "train");
  EXPECT_EQ(s.num_examples, 5);
  EXPECT_EQ(s.rows, 3);
  EXPECT_EQ(s.cols, 4);
  EXPECT_EQ(s.images, Bytes(60, 7));
  EXPECT_EQ(s.labels, Bytes(5, 3));
}

TEST_P(IdxGzipTest, MismatchedCountsNameLabelsFileAndOffset) {
  TempDir dir;
  WriteSplit(dir, "t10k", 5, 4, GetParam());
  const std::string msg = ErrorOf([&] { LoadMnistSplit(dir.path(), "t10k"); });
  EXPECT_NE(msg.find("t10k-labels-idx1-ubyte"), std::string::npos) << msg;
  EXPECT_NE(msg.find("offset 4"), std::string::npos) << msg;
  EXPECT_NE(msg.find("label count 4"), std::string::npos) << msg;
  EXPECT_NE(msg.find("image count 5"), std::string::npos) << msg;
}

TEST_P(IdxGzipTest, BadMagicNamesFileAndOffset) {
  TempDir dir;
  const std::string path = dir.file(GetParam() ? "x.gz" : "x");
  WriteIdxFile(path, {6}, Bytes(6, 1), GetParam());  // a labels file
  const std::string msg = ErrorOf([&] { ReadIdxFile(path, kIdxImagesMagic); });
  EXPECT_NE(msg.find(path + ": offset 0: bad magic 0x00000801, expected 0x00000803"),
            std::string::npos)
      << msg;
}

INSTANTIATE_TEST_SUITE_P(RawAndGzip, IdxGzipTest, ::testing::Values(false, true));

TEST(IdxReaderTest, TruncatedRawDataSaysExpectedAndActualBytes) {
  TempDir dir;
  const std::string path = dir.file("images");
  WriteIdxFile(path, {5, 3, 4}, Bytes(60, 7), false);  // 16-byte header + 60 bytes
  std::filesystem::resize_file(path, 16 + 50);
  const std::string msg = ErrorOf([&] { ReadIdxFile(path, kIdxImagesMagic); });
  EXPECT_NE(msg.find(path + ": offset 66: truncated data: expected 60 bytes starting at offset "
                            "16, got 50"),
            std::string::npos)
      << msg;
}

// Found by idx_reader_fuzz: the header's sizes were allocated before a byte of data was read
// (a 10-byte labels file claiming 2^32 - 1 labels took 4 GB; this one claims 1 TB, which was
// std::bad_alloc). Now the buffer grows with the data that is there.
TEST(IdxReaderTest, HugeClaimedSizeIsTruncatedDataNotAnAllocation) {
  TempDir dir;
  const std::string path = dir.file("images");
  // 65535 x 65535 x 255: just under the 2^40-byte plausibility limit; then 3 data bytes.
  std::ofstream(path, std::ios::binary) << std::string(
      "\0\0\x08\x03\0\0\xff\xff\0\0\xff\xff\0\0\0\xff"
      "abc",
      19);
  const std::string msg = ErrorOf([&] { ReadIdxFile(path, kIdxImagesMagic); });
  EXPECT_NE(msg.find(path + ": offset 19: truncated data: expected 1095183237375 bytes starting "
                            "at offset 16, got 3"),
            std::string::npos)
      << msg;
}

TEST(IdxReaderTest, TruncatedHeader) {
  TempDir dir;
  const std::string path = dir.file("images");
  WriteIdxFile(path, {5, 3, 4}, Bytes(60, 7), false);
  std::filesystem::resize_file(path, 9);
  const std::string msg = ErrorOf([&] { ReadIdxFile(path, kIdxImagesMagic); });
  EXPECT_NE(
      msg.find("truncated header (dimensions): expected 12 bytes starting at offset 4, got 5"),
      std::string::npos)
      << msg;
}

TEST(IdxReaderTest, TruncatedGzipStreamIsAnErrorNamingTheFile) {
  TempDir dir;
  const std::string path = dir.file("images.gz");
  std::vector<uint8_t> noise(size_t{50} * 784);
  Rng rng(3);
  for (uint8_t& b : noise) b = static_cast<uint8_t>(rng.NextU32());
  WriteIdxFile(path, {50, 28, 28}, noise, true);
  std::filesystem::resize_file(path, std::filesystem::file_size(path) / 2);
  const std::string msg = ErrorOf([&] { ReadIdxFile(path, kIdxImagesMagic); });
  EXPECT_EQ(msg.rfind(path + ": offset ", 0), 0u) << msg;
  EXPECT_NE(msg.find("expected 39200 bytes starting at offset 16"), std::string::npos) << msg;
}

TEST(IdxReaderTest, TrailingBytesAreAnError) {
  TempDir dir;
  const std::string path = dir.file("labels");
  WriteIdxFile(path, {4}, Bytes(4, 1), false);
  std::ofstream(path, std::ios::app | std::ios::binary) << "xx";
  const std::string msg = ErrorOf([&] { ReadIdxFile(path, kIdxLabelsMagic); });
  EXPECT_NE(msg.find(path + ": offset 12: unexpected bytes"), std::string::npos) << msg;
}

TEST(IdxReaderTest, MissingFilesAreNamed) {
  TempDir dir;
  std::string msg = ErrorOf([&] { ReadIdxFile(dir.file("nope"), kIdxLabelsMagic); });
  EXPECT_NE(msg.find(dir.file("nope") + ": no such file"), std::string::npos) << msg;
  msg = ErrorOf([&] { LoadMnistSplit(dir.path(), "train"); });
  EXPECT_NE(msg.find("train-images-idx3-ubyte.gz: no such file"), std::string::npos) << msg;
}

TEST(IdxReaderTest, PrefersGzipButReadsRaw) {
  TempDir dir;
  WriteSplit(dir, "train", 2, 2, false);
  EXPECT_EQ(LoadMnistSplit(dir.path(), "train").num_examples, 2);
  WriteSplit(dir, "train", 3, 3, true);
  EXPECT_EQ(LoadMnistSplit(dir.path(), "train").num_examples, 3);
}

TEST(IdxReaderTest, RealFashionMnist) {
  const std::string dir = kFashionMnistSystemDir;
  if (!std::filesystem::exists(dir + "/t10k-images-idx3-ubyte.gz")) {
    GTEST_SKIP() << "Fashion-MNIST not installed in " << dir;
  }
  for (const auto& [split, n] :
       {std::pair<std::string, int64_t>{"train", 60000}, {"t10k", 10000}}) {
    const MnistSplit s = LoadMnistSplit(dir, split);
    EXPECT_EQ(s.num_examples, n);
    EXPECT_EQ(s.rows, 28);
    EXPECT_EQ(s.cols, 28);
    ASSERT_EQ(s.images.size(), static_cast<size_t>(n) * 784);
    std::array<int64_t, 10> per_class{};
    for (uint8_t l : s.labels) {
      ASSERT_LT(l, 10);
      ++per_class[l];
    }
    for (int64_t c : per_class) EXPECT_EQ(c, n / 10);  // Fashion-MNIST is exactly balanced
  }
}

}  // namespace
}  // namespace trainbench::data

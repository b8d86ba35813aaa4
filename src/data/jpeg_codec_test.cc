#include "data/jpeg_codec.h"

#include <gtest/gtest.h>

// For writing a CMYK JPEG, which the library's encoder does not offer.
#include <cstdio>
// clang-format off
#include <jpeglib.h>
// clang-format on

#include <cmath>
#include <cstdlib>
#include <fstream>

#include "core/error.h"
#include "data/test_util.h"
#include "data/transforms.h"

namespace trainbench::data {
namespace {

using testing::ErrorOf;
using testing::SyntheticImage;
using testing::TempDir;

double MeanAbsDiff(const Image& a, const Image& b) {
  EXPECT_EQ(a.num_bytes(), b.num_bytes());
  double sum = 0;
  for (size_t i = 0; i < a.data.size(); ++i) sum += std::abs(int{a.data[i]} - int{b.data[i]});
  return sum / static_cast<double>(a.data.size());
}

TEST(JpegCodecTest, RgbRoundTrip) {
  const Image src = SyntheticImage(48, 64, 3, 1);
  const std::vector<uint8_t> jpeg = EncodeJpeg(src, 95);
  const JpegInfo info = ReadJpegInfo(jpeg.data(), jpeg.size(), "mem");
  EXPECT_EQ(info.width, 64);
  EXPECT_EQ(info.height, 48);
  EXPECT_EQ(info.components, 3);
  const Image out = DecodeJpeg(jpeg.data(), jpeg.size(), "mem");
  EXPECT_EQ(out.height, 48);
  EXPECT_EQ(out.width, 64);
  EXPECT_EQ(out.channels, 3);
  EXPECT_LT(MeanAbsDiff(src, out), 3.0);
}

TEST(JpegCodecTest, GrayscaleDecodesToEqualRgbChannels) {
  const Image src = SyntheticImage(40, 30, 1, 2);
  const std::vector<uint8_t> jpeg = EncodeJpeg(src, 95);
  EXPECT_EQ(ReadJpegInfo(jpeg.data(), jpeg.size(), "g").components, 1);
  const Image out = DecodeJpeg(jpeg.data(), jpeg.size(), "g");
  ASSERT_EQ(out.channels, 3);
  Image red(out.height, out.width, 1);
  for (int y = 0; y < out.height; ++y) {
    for (int x = 0; x < out.width; ++x) {
      ASSERT_EQ(out.at(y, x, 0), out.at(y, x, 1));
      ASSERT_EQ(out.at(y, x, 0), out.at(y, x, 2));
      red.at(y, x, 0) = out.at(y, x, 0);
    }
  }
  EXPECT_LT(MeanAbsDiff(src, red), 2.0);
}

// Writes an Adobe CMYK JPEG (libjpeg stores CMYK with an Adobe marker, read back as inverted
// CMYK) whose channels are (r, g, b, 255): decoded as Adobe CMYK that is the RGB (r, g, b).
std::vector<uint8_t> EncodeAdobeCmyk(const Image& rgb) {
  jpeg_compress_struct cinfo;
  jpeg_error_mgr jerr;
  cinfo.err = jpeg_std_error(&jerr);
  jpeg_create_compress(&cinfo);
  unsigned char* buf = nullptr;
  unsigned long size = 0;
  jpeg_mem_dest(&cinfo, &buf, &size);
  cinfo.image_width = rgb.width;
  cinfo.image_height = rgb.height;
  cinfo.input_components = 4;
  cinfo.in_color_space = JCS_CMYK;
  jpeg_set_defaults(&cinfo);
  jpeg_set_quality(&cinfo, 95, TRUE);
  jpeg_start_compress(&cinfo, TRUE);
  std::vector<uint8_t> row(static_cast<size_t>(rgb.width) * 4);
  while (cinfo.next_scanline < cinfo.image_height) {
    const uint8_t* in = rgb.row(cinfo.next_scanline);
    for (size_t x = 0; x < static_cast<size_t>(rgb.width); ++x) {
      row[4 * x] = in[3 * x];
      row[4 * x + 1] = in[3 * x + 1];
      row[4 * x + 2] = in[3 * x + 2];
      row[4 * x + 3] = 255;
    }
    JSAMPROW p = row.data();
    jpeg_write_scanlines(&cinfo, &p, 1);
  }
  jpeg_finish_compress(&cinfo);
  std::vector<uint8_t> out(buf, buf + size);
  jpeg_destroy_compress(&cinfo);
  std::free(buf);
  return out;
}

TEST(JpegCodecTest, CmykDecodesToRgb) {
  const Image src = SyntheticImage(32, 40, 3, 3);
  const std::vector<uint8_t> jpeg = EncodeAdobeCmyk(src);
  EXPECT_EQ(ReadJpegInfo(jpeg.data(), jpeg.size(), "cmyk").components, 4);
  const Image out = DecodeJpeg(jpeg.data(), jpeg.size(), "cmyk");
  ASSERT_EQ(out.channels, 3);
  EXPECT_LT(MeanAbsDiff(src, out), 3.0);
}

TEST(JpegCodecTest, CorruptBytesErrorNamesFile) {
  const std::vector<uint8_t> junk = {'n', 'o', 't', ' ', 'a', ' ', 'j', 'p', 'e', 'g'};
  const std::string msg =
      ErrorOf([&] { DecodeJpeg(junk.data(), junk.size(), "/data/n01/bad.JPEG"); });
  EXPECT_EQ(msg.rfind("/data/n01/bad.JPEG: cannot decode JPEG: Not a JPEG file", 0), 0u) << msg;
}

TEST(JpegCodecTest, TruncatedJpegIsAnErrorNotGrayPadding) {
  TempDir dir;
  std::vector<uint8_t> jpeg = EncodeJpeg(SyntheticImage(64, 64, 3, 4), 90);
  jpeg.resize(jpeg.size() / 2);
  const std::string path = dir.file("truncated.jpg");
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(jpeg.data()), static_cast<std::streamsize>(jpeg.size()));
  const std::string msg = ErrorOf([&] { DecodeJpegFile(path); });
  EXPECT_EQ(msg.rfind(path + ": cannot decode JPEG: Premature end of JPEG file", 0), 0u) << msg;
}

TEST(JpegCodecTest, TruncatedInsideHeader) {
  const std::vector<uint8_t> jpeg = EncodeJpeg(SyntheticImage(16, 16, 3, 5), 90);
  const std::string msg = ErrorOf([&] { DecodeJpeg(jpeg.data(), 40, "head.jpg"); });
  EXPECT_EQ(msg.rfind("head.jpg: cannot decode JPEG: ", 0), 0u) << msg;
}

TEST(JpegCodecTest, MissingFileIsNamed) {
  const std::string msg = ErrorOf([] { DecodeJpegFile("/nonexistent/x.jpg"); });
  EXPECT_NE(msg.find("/nonexistent/x.jpg"), std::string::npos) << msg;
}

TEST(JpegCodecTest, FileRoundTrip) {
  TempDir dir;
  const Image src = SyntheticImage(20, 30, 3, 6);
  WriteJpegFile(dir.file("a.jpg"), src, 95);
  EXPECT_LT(MeanAbsDiff(src, DecodeJpegFile(dir.file("a.jpg"))), 3.0);
}

TEST(JpegCodecTest, DctScalingHalvesAndApproximatesResize) {
  const Image src = SyntheticImage(200, 300, 3, 7);
  const std::vector<uint8_t> jpeg = EncodeJpeg(src, 95);
  JpegDecodeOptions half;
  half.scale_num = 4;
  const Image out = DecodeJpeg(jpeg.data(), jpeg.size(), "s", half);
  EXPECT_EQ(out.height, 100);
  EXPECT_EQ(out.width, 150);
  const Image resized = ResizedCrop(src, {0, 0, 200, 300}, 100, 150);
  EXPECT_LT(MeanAbsDiff(resized, out), 6.0);
  JpegDecodeOptions eighth;
  eighth.scale_num = 1;
  const Image tiny = DecodeJpeg(jpeg.data(), jpeg.size(), "s", eighth);
  EXPECT_EQ(tiny.height, 25);
  EXPECT_EQ(tiny.width, 38);  // ceil(300 / 8)
}

TEST(JpegCodecTest, DctScaleFor) {
  EXPECT_EQ(ScaledJpegDim(300, 1), 38);
  EXPECT_EQ(DctScaleFor(500, 375, 224, 224), 8);
  EXPECT_EQ(DctScaleFor(2000, 1500, 224, 224), 2);  // 250 x 188 is too small at 1/8
  EXPECT_EQ(DctScaleFor(2000, 1500, 224, 180), 1);
  EXPECT_EQ(DctScaleFor(1000, 800, 250, 0), 2);
  EXPECT_EQ(DctScaleFor(1000, 800, 0, 256), 4);
}

}  // namespace
}  // namespace trainbench::data

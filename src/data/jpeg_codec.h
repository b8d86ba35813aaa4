// JPEG decoding into RGB HWC uint8 images and JPEG encoding, with libjpeg(-turbo)'s jpeglib API.
//
// Decoding always yields 3-channel RGB: grayscale is replicated, CMYK/YCCK (Adobe-inverted or
// not) is converted to RGB. Optional DCT-domain downscaling (scale_num/8, decided by the caller,
// e.g. with DctScaleFor) makes decoding of large images for small targets much cheaper.
//
// Errors: a corrupt or truncated JPEG throws core::Error naming the file (the `name` argument)
// and carrying libjpeg's message. libjpeg's longjmp never crosses a C++ frame with live
// objects: all libjpeg calls sit in small C-style functions that own only trivial locals.
// "Premature end of JPEG file" (a truncated file, which libjpeg merely warns about and pads
// with gray) is treated as an error; other corrupt-data warnings are tolerated, as PIL does.
//
// Threading: the functions are reentrant (no shared state); run any number concurrently.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "data/image.h"

namespace trainbench::data {

struct JpegInfo {
  int width = 0;
  int height = 0;
  int components = 0;  // 1 gray, 3 YCbCr/RGB, 4 CMYK/YCCK
};

struct JpegDecodeOptions {
  // Decode at scale_num/8 of the full size; 8 = full size, also 4, 2, 1 (libjpeg supports
  // 1..16, only these have fast IDCT paths). Output size is ceil(full * scale_num / 8).
  int scale_num = 8;
  // libjpeg's JDCT_IFAST instead of the accurate integer IDCT: faster, slightly less accurate.
  bool fast_dct = false;
};

// Reads only the header. `name` is used in error messages (normally the file path).
JpegInfo ReadJpegInfo(const uint8_t* data, size_t size, const std::string& name);

// Decodes to RGB (3 channels). Throws core::Error naming `name` on corrupt/truncated input.
Image DecodeJpeg(const uint8_t* data, size_t size, const std::string& name,
                 const JpegDecodeOptions& options = {});

// Reads and decodes a file; errors name the path.
Image DecodeJpegFile(const std::string& path, const JpegDecodeOptions& options = {});

// Output size of a decode of a width x height image at scale_num/8.
int ScaledJpegDim(int dim, int scale_num);

// The largest downscaling among 8/8, 4/8, 2/8, 1/8 whose output is still at least
// min_width x min_height: returns the scale_num to put in JpegDecodeOptions.
int DctScaleFor(int width, int height, int min_width, int min_height);

// Encodes an RGB (3-channel) or gray (1-channel) image; quality 1..100, 4:2:0 subsampling
// for color. Returns the JFIF bytes.
std::vector<uint8_t> EncodeJpeg(const Image& image, int quality = 90);

// EncodeJpeg + write to path (not atomic; meant for test data). Throws core::Error on failure.
void WriteJpegFile(const std::string& path, const Image& image, int quality = 90);

}  // namespace trainbench::data

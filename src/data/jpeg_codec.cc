#include "data/jpeg_codec.h"

// jpeglib.h needs FILE and size_t declared first.
#include <csetjmp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
// clang-format off
#include <jpeglib.h>
#include <jerror.h>
// clang-format on

#include <fstream>
#include <sstream>

#include "core/atomic_file.h"
#include "core/error.h"

namespace trainbench::data {
namespace {

// Decoded images above this many pixels are rejected as implausible (a corrupt header).
constexpr int64_t kMaxPixels = int64_t{1} << 28;

// ---------------------------------------------------------------------------------------------
// C-style section. Every function that calls libjpeg owns only trivially destructible locals,
// so the longjmp from ErrorExit/EmitMessage back to its setjmp skips no destructor.

struct ErrorState {
  jpeg_error_mgr pub;  // must be first: libjpeg hands us a jpeg_error_mgr*
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

void ErrorExit(j_common_ptr cinfo) {
  auto* err = reinterpret_cast<ErrorState*>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, err->message);
  std::longjmp(err->jump, 1);
}

void EmitMessage(j_common_ptr cinfo, int msg_level) {
  if (msg_level >= 0) return;  // trace messages
  // A warning: truncated data is fatal (libjpeg would pad the image with gray); other
  // corrupt-data warnings (e.g. extraneous bytes before a marker) are tolerated.
  if (cinfo->err->msg_code == JWRN_JPEG_EOF) ErrorExit(cinfo);
  cinfo->err->num_warnings++;
}

void InitErrors(ErrorState* err) {
  jpeg_std_error(&err->pub);
  err->pub.error_exit = ErrorExit;
  err->pub.emit_message = EmitMessage;
  err->message[0] = '\0';
}

struct DecodeJob {
  jpeg_decompress_struct cinfo;
  ErrorState err;
  bool created;
  bool cmyk;  // output is CMYK, to be converted to RGB
};

// Header (and, unless header_only, decompression start). Returns false on error, with the
// message in job->err.message.
bool StartDecode(DecodeJob* job, const uint8_t* data, size_t size, int scale_num, bool fast_dct,
                 bool header_only) {
  InitErrors(&job->err);
  job->cinfo.err = &job->err.pub;
  job->created = false;
  job->cmyk = false;
  if (setjmp(job->err.jump) != 0) return false;
  jpeg_create_decompress(&job->cinfo);
  job->created = true;
  jpeg_mem_src(&job->cinfo, data, static_cast<unsigned long>(size));
  jpeg_read_header(&job->cinfo, TRUE);
  if (header_only) return true;
  if (job->cinfo.jpeg_color_space == JCS_CMYK || job->cinfo.jpeg_color_space == JCS_YCCK) {
    job->cinfo.out_color_space = JCS_CMYK;
    job->cmyk = true;
  } else {
    job->cinfo.out_color_space = JCS_RGB;  // libjpeg-turbo also converts gray -> RGB
  }
  job->cinfo.scale_num = static_cast<unsigned>(scale_num);
  job->cinfo.scale_denom = 8;
  job->cinfo.dct_method = fast_dct ? JDCT_IFAST : JDCT_ISLOW;
  jpeg_calc_output_dimensions(&job->cinfo);
  if (static_cast<int64_t>(job->cinfo.output_width) * job->cinfo.output_height > kMaxPixels) {
    std::snprintf(job->err.message, sizeof(job->err.message), "implausible image size %ux%u",
                  job->cinfo.output_width, job->cinfo.output_height);
    return false;
  }
  jpeg_start_decompress(&job->cinfo);
  return true;
}

void CmykRowToRgb(const uint8_t* cmyk, uint8_t* rgb, size_t width, bool inverted) {
  for (size_t x = 0; x < width; ++x) {
    unsigned c = cmyk[4 * x], m = cmyk[4 * x + 1], y = cmyk[4 * x + 2], k = cmyk[4 * x + 3];
    if (!inverted) {  // plain CMYK: 0 = no ink
      c = 255 - c, m = 255 - m, y = 255 - y, k = 255 - k;
    }
    // Adobe-inverted CMYK (what Photoshop writes): 255 = no ink.
    rgb[3 * x] = static_cast<uint8_t>((c * k + 127) / 255);
    rgb[3 * x + 1] = static_cast<uint8_t>((m * k + 127) / 255);
    rgb[3 * x + 2] = static_cast<uint8_t>((y * k + 127) / 255);
  }
}

// Reads all scanlines into out (output_height rows of output_width*3 bytes). cmyk_row must hold
// output_width*4 bytes when job->cmyk. Returns false on error.
bool ReadRows(DecodeJob* job, uint8_t* out, uint8_t* cmyk_row) {
  if (setjmp(job->err.jump) != 0) return false;
  const size_t stride = static_cast<size_t>(job->cinfo.output_width) * 3;
  const bool inverted = job->cinfo.saw_Adobe_marker != 0;
  while (job->cinfo.output_scanline < job->cinfo.output_height) {
    const JDIMENSION y = job->cinfo.output_scanline;
    JSAMPROW row = job->cmyk ? cmyk_row : out + y * stride;
    if (jpeg_read_scanlines(&job->cinfo, &row, 1) != 1) {
      std::snprintf(job->err.message, sizeof(job->err.message), "no data for scanline %u", y);
      return false;
    }
    if (job->cmyk) {
      CmykRowToRgb(cmyk_row, out + y * stride, job->cinfo.output_width, inverted);
    }
  }
  jpeg_finish_decompress(&job->cinfo);
  return true;
}

struct EncodeJob {
  jpeg_compress_struct cinfo;
  ErrorState err;
  bool created;
  unsigned char* buffer;
  unsigned long size;
};

bool RunEncode(EncodeJob* job, const uint8_t* pixels, int width, int height, int channels,
               int quality) {
  InitErrors(&job->err);
  job->cinfo.err = &job->err.pub;
  job->created = false;
  job->buffer = nullptr;
  job->size = 0;
  if (setjmp(job->err.jump) != 0) return false;
  jpeg_create_compress(&job->cinfo);
  job->created = true;
  jpeg_mem_dest(&job->cinfo, &job->buffer, &job->size);
  job->cinfo.image_width = static_cast<JDIMENSION>(width);
  job->cinfo.image_height = static_cast<JDIMENSION>(height);
  job->cinfo.input_components = channels;
  job->cinfo.in_color_space = channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_set_defaults(&job->cinfo);
  jpeg_set_quality(&job->cinfo, quality, TRUE);
  jpeg_start_compress(&job->cinfo, TRUE);
  const size_t stride = static_cast<size_t>(width) * channels;
  while (job->cinfo.next_scanline < job->cinfo.image_height) {
    // libjpeg does not write through the row pointers; the cast only fits its API.
    JSAMPROW row = const_cast<uint8_t*>(pixels + job->cinfo.next_scanline * stride);
    jpeg_write_scanlines(&job->cinfo, &row, 1);
  }
  jpeg_finish_compress(&job->cinfo);
  return true;
}

// ---------------------------------------------------------------------------------------------

class DecodeJobGuard {
 public:
  explicit DecodeJobGuard(DecodeJob* job) : job_(job) {}
  ~DecodeJobGuard() {
    if (job_->created) jpeg_destroy_decompress(&job_->cinfo);
  }
  DecodeJobGuard(const DecodeJobGuard&) = delete;
  DecodeJobGuard& operator=(const DecodeJobGuard&) = delete;

 private:
  DecodeJob* job_;
};

[[noreturn]] void ThrowJpegError(const std::string& name, const char* message) {
  throw core::FileError(name, 0, std::string("cannot decode JPEG: ") + message);
}

}  // namespace

JpegInfo ReadJpegInfo(const uint8_t* data, size_t size, const std::string& name) {
  DecodeJob job;
  DecodeJobGuard guard(&job);
  if (!StartDecode(&job, data, size, 8, false, /*header_only=*/true)) {
    ThrowJpegError(name, job.err.message);
  }
  JpegInfo info;
  info.width = static_cast<int>(job.cinfo.image_width);
  info.height = static_cast<int>(job.cinfo.image_height);
  info.components = job.cinfo.num_components;
  return info;
}

Image DecodeJpeg(const uint8_t* data, size_t size, const std::string& name,
                 const JpegDecodeOptions& options) {
  TB_CHECK(options.scale_num >= 1 && options.scale_num <= 16,
           "JpegDecodeOptions::scale_num " << options.scale_num);
  DecodeJob job;
  DecodeJobGuard guard(&job);
  if (!StartDecode(&job, data, size, options.scale_num, options.fast_dct, false)) {
    ThrowJpegError(name, job.err.message);
  }
  Image image(static_cast<int>(job.cinfo.output_height), static_cast<int>(job.cinfo.output_width),
              3);
  std::vector<uint8_t> cmyk_row(job.cmyk ? static_cast<size_t>(image.width) * 4 : 0);
  if (!ReadRows(&job, image.data.data(), cmyk_row.data())) {
    ThrowJpegError(name, job.err.message);
  }
  return image;
}

Image DecodeJpegFile(const std::string& path, const JpegDecodeOptions& options) {
  const std::string bytes = core::ReadFile(path);
  return DecodeJpeg(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), path, options);
}

int ScaledJpegDim(int dim, int scale_num) {
  return static_cast<int>((static_cast<int64_t>(dim) * scale_num + 7) / 8);
}

int DctScaleFor(int width, int height, int min_width, int min_height) {
  for (int s : {1, 2, 4}) {
    if (ScaledJpegDim(width, s) >= min_width && ScaledJpegDim(height, s) >= min_height) return s;
  }
  return 8;
}

std::vector<uint8_t> EncodeJpeg(const Image& image, int quality) {
  TB_CHECK(image.channels == 1 || image.channels == 3, "EncodeJpeg: channels " << image.channels);
  TB_CHECK(image.width > 0 && image.height > 0, "EncodeJpeg: empty image");
  EncodeJob job;
  const bool ok =
      RunEncode(&job, image.data.data(), image.width, image.height, image.channels, quality);
  std::vector<uint8_t> out;
  if (ok) out.assign(job.buffer, job.buffer + job.size);
  if (job.created) jpeg_destroy_compress(&job.cinfo);
  if (ok) std::free(job.buffer);
  if (!ok) throw core::Error(std::string("cannot encode JPEG: ") + job.err.message);
  return out;
}

void WriteJpegFile(const std::string& path, const Image& image, int quality) {
  const std::vector<uint8_t> bytes = EncodeJpeg(image, quality);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) throw core::FileError(path, 0, "cannot write JPEG file");
}

}  // namespace trainbench::data

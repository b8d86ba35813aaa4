#include "data/idx_reader.h"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "core/error.h"

namespace trainbench::data {
namespace {

std::string Hex32(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "0x%08x", v);
  return buf;
}

uint32_t BigEndian32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | uint32_t{p[3]};
}

// Owns a gzFile; reads exact byte counts and keeps the uncompressed offset for messages.
class GzReader {
 public:
  explicit GzReader(const std::string& path) : path_(path) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) {
      throw core::FileError(path, 0, "no such file");
    }
    file_ = gzopen(path.c_str(), "rb");
    if (file_ == nullptr) {
      throw core::FileError(path, 0, std::string("cannot open: ") + std::strerror(errno));
    }
    gzbuffer(file_, 1 << 17);
  }
  ~GzReader() {
    if (file_ != nullptr) gzclose_r(file_);
  }
  GzReader(const GzReader&) = delete;
  GzReader& operator=(const GzReader&) = delete;

  // Reads up to n bytes; returns the count actually read (less than n at end of data).
  // A decompression error (corrupt gzip stream) throws, naming the offset.
  int64_t Read(uint8_t* out, int64_t n) {
    int64_t got = 0;
    while (got < n) {
      const int64_t chunk = std::min<int64_t>(n - got, int64_t{1} << 30);
      const int r = gzread(file_, out + got, static_cast<unsigned>(chunk));
      if (r < 0) ThrowZlibError();
      if (r == 0) break;
      got += r;
      offset_ += r;
    }
    if (got < n) {
      // A truncated gzip stream ends with an error rather than a clean end of file.
      int errnum = Z_OK;
      const char* msg = gzerror(file_, &errnum);
      if (errnum != Z_OK && errnum != Z_STREAM_END) zlib_error_ = msg;
    }
    return got;
  }

  int64_t offset() const { return offset_; }
  const std::string& zlib_error() const { return zlib_error_; }

  // Reads exactly n bytes of `what` or throws a truncation error (expected vs actual bytes).
  void ReadExactly(uint8_t* out, int64_t n, const std::string& what) {
    const int64_t start = offset_;
    const int64_t got = Read(out, n);
    if (got < n) {
      std::ostringstream os;
      os << "truncated " << what << ": expected " << n << " bytes starting at offset " << start
         << ", got " << got << " (data ends at offset " << start + got << ")";
      if (!zlib_error_.empty()) os << "; zlib: " << zlib_error_;
      throw core::OffsetError(path_, start + got, os.str());
    }
  }

 private:
  [[noreturn]] void ThrowZlibError() {
    int errnum = 0;
    const char* msg = gzerror(file_, &errnum);
    throw core::OffsetError(path_, offset_, std::string("cannot decompress: ") + msg);
  }

  std::string path_;
  gzFile file_ = nullptr;
  int64_t offset_ = 0;
  std::string zlib_error_;
};

std::string MagicName(uint32_t magic) {
  if (magic == kIdxImagesMagic) return "IDX uint8 images, 3 dims";
  if (magic == kIdxLabelsMagic) return "IDX uint8 labels, 1 dim";
  return "IDX uint8, " + std::to_string(magic & 0xff) + " dims";
}

std::string PickFile(const std::string& dir, const std::string& base) {
  const std::filesystem::path gz = std::filesystem::path(dir) / (base + ".gz");
  const std::filesystem::path raw = std::filesystem::path(dir) / base;
  std::error_code ec;
  if (std::filesystem::exists(gz, ec)) return gz.string();
  if (std::filesystem::exists(raw, ec)) return raw.string();
  throw core::FileError(gz.string(), 0, "no such file (nor " + raw.string() + ")");
}

}  // namespace

IdxArray ReadIdxFile(const std::string& path, uint32_t expected_magic) {
  GzReader in(path);
  uint8_t header[4];
  in.ReadExactly(header, 4, "header (magic)");
  IdxArray out;
  out.magic = BigEndian32(header);
  if (out.magic != expected_magic) {
    throw core::OffsetError(path, 0,
                            "bad magic " + Hex32(out.magic) + ", expected " +
                                Hex32(expected_magic) + " (" + MagicName(expected_magic) + ")");
  }
  const int ndims = static_cast<int>(out.magic & 0xff);
  std::vector<uint8_t> dim_bytes(static_cast<size_t>(ndims) * 4);
  in.ReadExactly(dim_bytes.data(), static_cast<int64_t>(dim_bytes.size()), "header (dimensions)");
  int64_t total = 1;
  constexpr int64_t kMaxBytes = int64_t{1} << 40;
  for (int d = 0; d < ndims; ++d) {
    const int64_t dim = BigEndian32(&dim_bytes[static_cast<size_t>(d) * 4]);
    out.dims.push_back(dim);
    if (dim != 0 && total > kMaxBytes / dim) {
      throw core::OffsetError(path, 4 + 4 * d, "implausible dimensions (more than 2^40 bytes)");
    }
    total *= dim;
  }
  const int64_t data_offset = in.offset();
  // The header's sizes are a claim, not the file's: the buffer grows (doubling, from 1 MiB)
  // with the bytes that actually arrive, so a 20-byte file claiming 4 GB is "truncated data"
  // and not a 4 GB allocation.
  int64_t got = 0;
  while (got < total) {
    const int64_t n = std::min(std::max(int64_t{1} << 20, got), total - got);
    out.data.resize(static_cast<size_t>(got + n));
    const int64_t r = in.Read(out.data.data() + got, n);
    got += r;
    if (r < n) break;
  }
  if (got < total) {
    std::ostringstream os;
    os << "truncated data: expected " << total << " bytes starting at offset " << data_offset
       << ", got " << got << " (data ends at offset " << data_offset + got << ")";
    if (!in.zlib_error().empty()) os << "; zlib: " << in.zlib_error();
    throw core::OffsetError(path, data_offset + got, os.str());
  }
  uint8_t extra;
  if (in.Read(&extra, 1) != 0) {
    std::ostringstream os;
    os << "unexpected bytes after the " << total << " data bytes that start at offset "
       << data_offset << " (dimensions and file size disagree)";
    throw core::OffsetError(path, data_offset + total, os.str());
  }
  return out;
}

void WriteIdxFile(const std::string& path, const std::vector<int64_t>& dims,
                  const std::vector<uint8_t>& data, bool gzip) {
  int64_t total = 1;
  for (int64_t d : dims) total *= d;
  TB_CHECK(total == static_cast<int64_t>(data.size()),
           "WriteIdxFile: dims product " << total << " != data size " << data.size());
  std::vector<uint8_t> bytes;
  bytes.reserve(4 + 4 * dims.size() + data.size());
  auto put32 = [&bytes](uint32_t v) {
    for (int s = 24; s >= 0; s -= 8) bytes.push_back(static_cast<uint8_t>(v >> s));
  };
  put32(0x0800u | static_cast<uint32_t>(dims.size()));
  for (int64_t d : dims) put32(static_cast<uint32_t>(d));
  bytes.insert(bytes.end(), data.begin(), data.end());
  gzFile f = gzopen(path.c_str(), gzip ? "wb6" : "wbT");
  if (f == nullptr) throw core::FileError(path, 0, "cannot open for writing");
  const int written = gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size()));
  const int closed = gzclose_w(f);
  if (written != static_cast<int>(bytes.size()) || closed != Z_OK) {
    throw core::FileError(path, 0, "cannot write");
  }
}

MnistSplit LoadMnistSplit(const std::string& dir, const std::string& split) {
  const std::string images_path = PickFile(dir, split + "-images-idx3-ubyte");
  const std::string labels_path = PickFile(dir, split + "-labels-idx1-ubyte");
  IdxArray images = ReadIdxFile(images_path, kIdxImagesMagic);
  IdxArray labels = ReadIdxFile(labels_path, kIdxLabelsMagic);
  if (labels.dims[0] != images.dims[0]) {
    std::ostringstream os;
    os << "label count " << labels.dims[0] << " does not match the image count " << images.dims[0]
       << " of " << images_path;
    throw core::OffsetError(labels_path, 4, os.str());
  }
  if (images.dims[1] <= 0 || images.dims[2] <= 0 || images.dims[1] > 65535 ||
      images.dims[2] > 65535) {
    throw core::OffsetError(
        images_path, 8,
        "bad image size " + std::to_string(images.dims[1]) + "x" + std::to_string(images.dims[2]));
  }
  MnistSplit out;
  out.num_examples = images.dims[0];
  out.rows = static_cast<int>(images.dims[1]);
  out.cols = static_cast<int>(images.dims[2]);
  out.images = std::move(images.data);
  out.labels = std::move(labels.data);
  return out;
}

}  // namespace trainbench::data

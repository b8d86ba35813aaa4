// The IDX file format of MNIST and Fashion-MNIST, and loading one split of such a dataset.
//
// An IDX file is: 4-byte magic 0x0000TTNN (TT = element type, only 0x08 = uint8 is supported,
// NN = number of dimensions), NN big-endian uint32 dimension sizes, then the elements in
// row-major order. Files are read through zlib, so gzip-compressed (*.gz) and raw files both
// work (zlib reads a non-gzip file as-is). All offsets in error messages are byte offsets in the
// uncompressed stream.
//
// Errors (missing file, bad magic, truncated header or data, trailing bytes, mismatched counts
// between images and labels) are core::Error messages that name the file and the offset.
// Threading: the functions are reentrant; they share no state.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace trainbench::data {

inline constexpr uint32_t kIdxImagesMagic = 0x00000803;  // uint8, 3 dims (N, rows, cols)
inline constexpr uint32_t kIdxLabelsMagic = 0x00000801;  // uint8, 1 dim (N)

struct IdxArray {
  uint32_t magic = 0;
  std::vector<int64_t> dims;
  std::vector<uint8_t> data;  // product(dims) bytes, row-major
};

// Reads an IDX file whose magic must equal expected_magic.
IdxArray ReadIdxFile(const std::string& path, uint32_t expected_magic);

// Writes an IDX uint8 file (gzip-compressed when gzip is true): for tests and fake datasets.
// data.size() must equal product(dims); the magic is 0x0800 | dims.size().
void WriteIdxFile(const std::string& path, const std::vector<int64_t>& dims,
                  const std::vector<uint8_t>& data, bool gzip);

// One split of an MNIST-style dataset, fully in memory.
struct MnistSplit {
  int64_t num_examples = 0;
  int rows = 0;
  int cols = 0;
  std::vector<uint8_t> images;  // num_examples * rows * cols, row-major, 0 = background
  std::vector<uint8_t> labels;  // num_examples class ids
};

// Loads <dir>/<split>-images-idx3-ubyte[.gz] and <dir>/<split>-labels-idx1-ubyte[.gz]
// (split is "train" or "t10k"); the .gz file is used when both exist.
MnistSplit LoadMnistSplit(const std::string& dir, const std::string& split);

// Where Debian's dataset-fashion-mnist package installs the files.
inline constexpr const char* kFashionMnistSystemDir = "/usr/share/datasets/fashion-mnist";

}  // namespace trainbench::data

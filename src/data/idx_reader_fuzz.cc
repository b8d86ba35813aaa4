// libFuzzer target: an IDX (MNIST) file, raw or gzip (data::ReadIdxFile reads a path, so the
// input goes to a temp file), read as an images and as a labels file; then a dataset folder
// with the input as both files of the t10k split (data::LoadMnistSplit) (docs/fuzzing.md).
#include <cstddef>
#include <cstdint>
#include <string>

#include "data/idx_reader.h"
#include "fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trainbench;
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  const std::string path = fuzz::Temp().Write("t10k-images-idx3-ubyte", bytes);
  fuzz::Temp().Write("t10k-labels-idx1-ubyte", bytes);
  for (uint32_t magic : {data::kIdxImagesMagic, data::kIdxLabelsMagic}) {
    fuzz::ExpectOnlyCoreErrors([&] { (void)data::ReadIdxFile(path, magic); });
  }
  fuzz::ExpectOnlyCoreErrors([&] { (void)data::LoadMnistSplit(fuzz::Temp().dir(), "t10k"); });
  return 0;
}

// libFuzzer target: a parallel corpus (text::ReadParallelCorpus on a source and a target file:
// the input split at its first NUL byte) and the whole input as an ids file
// (text::ReadIdCorpus). Both read paths, so the input goes to temp files (docs/fuzzing.md).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz/fuzz_util.h"
#include "text/id_corpus.h"
#include "text/parallel_corpus.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trainbench;
  const std::vector<std::string> parts = fuzz::Split(data, size, '\0', 2);
  const std::string src = fuzz::Temp().Write("train.en", parts[0]);
  const std::string tgt = fuzz::Temp().Write("train.es", parts.size() > 1 ? parts[1] : "");
  fuzz::ExpectOnlyCoreErrors([&] { (void)text::ReadParallelCorpus(src, tgt); });
  const std::string ids =
      fuzz::Temp().Write("train.ids", std::string(reinterpret_cast<const char*>(data), size));
  fuzz::ExpectOnlyCoreErrors([&] { (void)text::ReadIdCorpus(ids, 1000); });
  return 0;
}

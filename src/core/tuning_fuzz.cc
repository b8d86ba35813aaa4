// libFuzzer target: a tuning file (core::LoadTuning takes a name or a path, so the YAML goes to
// a temp file named *.yaml), asked for three benchmark / scale pairs (docs/fuzzing.md).
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/tuning.h"
#include "fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trainbench;
  const std::string path =
      fuzz::Temp().Write("tuning.yaml", std::string(reinterpret_cast<const char*>(data), size));
  static const char* const kAsked[][2] = {
      {"recommendation", "mini"}, {"instance_segmentation", "mini"}, {"translation", "full"}};
  for (const auto& asked : kAsked) {
    fuzz::ExpectOnlyCoreErrors([&] { (void)core::LoadTuning(path, asked[0], asked[1]); });
  }
  return 0;
}

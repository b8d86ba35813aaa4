// libFuzzer target: a MovieLens ratings.csv (data::ReadRatingsCsv; it reads a path, so the
// input goes to a temp file), and what it read formatted and read back (docs/fuzzing.md).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "data/ratings_csv.h"
#include "fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trainbench;
  const std::string path =
      fuzz::Temp().Write("ratings.csv", std::string(reinterpret_cast<const char*>(data), size));
  fuzz::ExpectOnlyCoreErrors([&] {
    data::RatingsTable table = data::ReadRatingsCsv(path);
    const std::string again =
        fuzz::Temp().Write("again.csv", data::FormatRatingsCsv(table.ratings));
    try {
      (void)data::ReadRatingsCsv(again);
    } catch (const core::Error& e) {
      std::fprintf(stderr, "finding: FormatRatingsCsv wrote what ReadRatingsCsv refuses: %s\n",
                   e.what());
      std::abort();
    }
  });
  return 0;
}

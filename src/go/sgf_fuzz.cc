// libFuzzer target: SGF game records (go::ParseSgf), each game replayed, written back with
// WriteSgf and read again: what trainbench writes it must read (docs/fuzzing.md).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "fuzz/fuzz_util.h"
#include "go/sgf.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trainbench;
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<go::SgfRecord> records;
  fuzz::ExpectOnlyCoreErrors([&] { records = go::ParseSgf(text, "fuzz.sgf"); });
  for (const go::SgfRecord& r : records) {
    fuzz::ExpectOnlyCoreErrors([&] {
      go::Game g = go::Replay(r, "fuzz.sgf");
      const std::string written = go::WriteSgf(g, r.black, r.white, r.result, r.rules);
      try {
        go::Replay(go::ParseSgf(written, "rewritten.sgf").at(0), "rewritten.sgf");
      } catch (const core::Error& e) {
        std::fprintf(stderr, "finding: WriteSgf wrote a record ParseSgf refuses: %s\n%s\n",
                     e.what(), written.c_str());
        std::abort();
      }
    });
  }
  return 0;
}

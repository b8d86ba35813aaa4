// libFuzzer target: the GTP engine (go::GtpEngine::Handle), one request per input line, with a
// player that takes the first legal point, until `quit` (docs/fuzzing.md). Handle answers bad
// requests with "? ..." and throws nothing.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "fuzz/fuzz_util.h"
#include "go/gtp.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trainbench;
  go::GtpEngine engine("fuzz", "1", [](const go::Game& g, go::Color c) {
    auto legal = g.board().LegalMoves(c);
    return legal.empty() ? go::kPass : legal.front();
  });
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  std::string line;
  while (!engine.quit() && std::getline(in, line)) (void)engine.Handle(line);
  return 0;
}

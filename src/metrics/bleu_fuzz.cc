// libFuzzer target: `trainbench score bleu` on a reference and a hypothesis file (the input
// split at its first NUL byte; the first byte's low bits pick the tokenizer, lowercasing and
// JSON output), then every tokenizer on each line of both (docs/fuzzing.md).
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "fuzz/fuzz_util.h"
#include "metrics/bleu.h"
#include "metrics/score_command.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trainbench;
  if (size == 0) return 0;
  const uint8_t mode = data[0];
  const std::vector<std::string> parts = fuzz::Split(data + 1, size - 1, '\0', 2);
  static const char* const kTokenizers[] = {"13a", "intl", "t2t", "none"};
  metrics::ScoreBleuOptions o;
  o.ref_file = fuzz::Temp().Write("ref.txt", parts[0]);
  o.hyp_file = fuzz::Temp().Write("hyp.txt", parts.size() > 1 ? parts[1] : "");
  o.tokenize = kTokenizers[mode & 3];
  o.lowercase = (mode & 4) != 0;
  o.json = (mode & 8) != 0;
  fuzz::ExpectOnlyCoreErrors([&] {
    std::ostringstream out;
    metrics::RunScoreBleuCommand(o, out);
  });
  for (const std::string& part : parts) {
    std::istringstream lines(part);
    std::string line;
    while (std::getline(lines, line)) {
      for (auto t : {metrics::BleuTokenize::k13a, metrics::BleuTokenize::kIntl,
                     metrics::BleuTokenize::kNone, metrics::BleuTokenize::kT2t}) {
        fuzz::ExpectOnlyCoreErrors([&] {
          (void)metrics::TokenizeForBleu(line, metrics::BleuOptions{t, (mode & 4) != 0});
        });
      }
    }
  }
  return 0;
}

// libFuzzer target: a benchmark definition (core::LoadBenchmarkDef reads a path, so the YAML
// goes to a temp file) and, for each of its scales and both divisions, the configuration that
// `--set` overrides resolve to, serialized as the harness logs it. The input is the YAML, then
// after a NUL byte one `key=value` override per line (docs/fuzzing.md).
#include <cstddef>
#include <cstdint>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "core/benchmark_def.h"
#include "core/json.h"
#include "fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trainbench;
  const std::vector<std::string> parts = fuzz::Split(data, size, '\0', 2);
  const std::string path = fuzz::Temp().Write("benchmark.yaml", parts[0]);
  fuzz::ExpectOnlyCoreErrors([&] {
    core::BenchmarkDef def = core::LoadBenchmarkDef(path);
    std::vector<std::string> set;
    if (parts.size() > 1) {
      std::istringstream lines(parts[1]);
      for (std::string line; std::getline(lines, line);) set.push_back(line);
    }
    const std::map<std::string, std::string> overrides = core::ParseOverrides(set);
    for (const auto& kv : def.scales) {
      const core::ScaleDef& scale = def.Scale(kv.first);
      for (core::Division d : {core::Division::kClosed, core::Division::kOpen}) {
        fuzz::ExpectOnlyCoreErrors([&] {
          core::ResolvedConfig c = core::ResolveConfig(scale, overrides, d);
          // As the harness logs them (MLLOG lines).
          (void)core::PythonJsonDumps(c.effective);
          (void)core::PythonJsonDumps(c.requested);
        });
      }
    }
  });
  return 0;
}

#include "package/official_benchmarks.h"

#include <iterator>

namespace trainbench::package {
namespace {

// mlperf_logging/benchmark_meta.py: _ALL_RESULT_FILE_COUNTS['training'] and
// _ALL_ALLOWED_BENCHMARKS['training']['4.0'], for the benchmarks trainbench has.
constexpr OfficialBenchmark kOfficial[] = {
    {"resnet", 5, true},        {"ssd", 5, true},   {"maskrcnn", 5, false}, {"gnmt", 10, false},
    {"transformer", 10, false}, {"ncf", 10, false}, {"minigo", 10, false},
};

}  // namespace

const OfficialBenchmark* FindOfficialBenchmark(const std::string& log_name) {
  for (const OfficialBenchmark& b : kOfficial) {
    if (log_name == b.log_name) return &b;
  }
  return nullptr;
}

}  // namespace trainbench::package

// Test helpers for the summary tests: writes small but complete MLLOG and legacy v0.5 run logs
// into a fresh temporary folder. Header-only, used by the *_test.cc files only.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/benchmark_def.h"
#include "core/json.h"
#include "core/mllog.h"
#include "core/mllog_keys.h"
#include "summary/run_result.h"

namespace trainbench::summary::test_logs {

// A fresh, empty folder under the GoogleTest temporary directory, removed when it goes out of
// scope.
class ScopedDir {
 public:
  explicit ScopedDir(const std::string& name)
      : path_((std::filesystem::path(::testing::TempDir()) /
               ("trainbench_summary_" + name + "_" + std::to_string(::getpid())))
                  .string()) {
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScopedDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScopedDir(const ScopedDir&) = delete;
  ScopedDir& operator=(const ScopedDir&) = delete;

  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

inline void WriteText(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  ASSERT_TRUE(out) << "cannot write " << path;
  out << text;
}

// One trainbench-style run. Times are exact: minutes * 60000 ms after start_ms.
struct MllogRun {
  std::string benchmark = "resnet";  // submission_benchmark
  std::string trainbench_benchmark;  // "" = key not logged
  std::string scale;                 // "" = key not logged
  std::string division = "closed";
  int64_t start_ms = 1700000000000;
  double minutes = 1.0;
  bool success = true;
  int epochs = 3;
  double accuracy = 0.76;
  int64_t seed = 1;
};

inline std::string MllogText(const MllogRun& r) {
  using core::EventType;
  namespace keys = core::keys;
  std::ostringstream os;
  int line = 10;
  auto emit = [&](int64_t t, EventType type, const char* key, const core::Json& value,
                  const core::Json& md = core::Json::object()) {
    os << core::FormatMllogLine("", t, type, key, value, "train.cc", line++, md) << "\n";
  };
  const int64_t t0 = r.start_ms - 1000;
  emit(t0, EventType::kIntervalStart, keys::kInitStart, nullptr);
  emit(t0 + 1, EventType::kPointInTime, keys::kSubmissionBenchmark, r.benchmark);
  emit(t0 + 2, EventType::kPointInTime, keys::kSubmissionDivision, r.division);
  if (!r.trainbench_benchmark.empty()) {
    emit(t0 + 3, EventType::kPointInTime, keys::kTrainbenchBenchmark, r.trainbench_benchmark);
  }
  if (!r.scale.empty()) emit(t0 + 4, EventType::kPointInTime, keys::kTrainbenchScale, r.scale);
  emit(t0 + 5, EventType::kPointInTime, keys::kSeed, r.seed);
  emit(t0 + 6, EventType::kIntervalEnd, keys::kInitStop, nullptr);
  emit(r.start_ms, EventType::kIntervalStart, keys::kRunStart, nullptr);
  const int64_t stop = r.start_ms + static_cast<int64_t>(r.minutes * 60000.0 + 0.5);
  for (int e = 1; e <= r.epochs; ++e) {
    const int64_t t = r.start_ms + (stop - r.start_ms) * e / (r.epochs + 1);
    emit(t, EventType::kIntervalEnd, keys::kEpochStop, nullptr, {{keys::kMdEpochNum, e}});
    const double acc = r.accuracy - 0.01 * (r.epochs - e);
    emit(t + 1, EventType::kPointInTime, keys::kEvalAccuracy, acc, {{keys::kMdEpochNum, e}});
  }
  emit(stop, EventType::kIntervalEnd, keys::kRunStop, nullptr,
       {{keys::kMdStatus, r.success ? keys::kStatusSuccess : keys::kStatusAborted}});
  return os.str();
}

// One legacy v0.5 run, as the published v0.5 results hold them.
struct LegacyRun {
  std::string benchmark = "resnet";
  double start_s = 1541638787.25;
  double minutes = 1.0;
  bool success = true;
  int epoch = 3;
  double accuracy = 0.73;
};

inline std::string LegacyText(const LegacyRun& r) {
  std::ostringstream os;
  os.precision(17);
  const std::string m = ":::MLPv0.5.0 " + r.benchmark + " ";
  const double stop = r.start_s + r.minutes * 60.0;
  os << m << r.start_s - 5 << " (<string>:1) run_clear_caches\n";
  os << m << r.start_s << " (" << r.benchmark << "/main.py:123) run_start\n";
  os << m << r.start_s + 0.5 << " (main.py:124) run_set_random_seed: 7\n";
  os << m << r.start_s + 1 << " (main.py:200) train_epoch: 0\n";
  os << m << stop - 1 << " (main.py:300) eval_accuracy: {\"epoch\": " << r.epoch
     << ", \"value\": " << r.accuracy << "}\n";
  os << m << stop - 0.5 << " (main.py:301) eval_target: 0.749\n";
  os << m << stop << " (main.py:310) run_stop: {\"success\": " << (r.success ? "true" : "false")
     << "}\n";
  os << m << stop + 0.5 << " (main.py:320) run_final\n";
  return os.str();
}

// A benchmark definition for tests (tests never read configs/benchmarks): each scale given as
// {scale, runs_per_result, reference_time_minutes}.
struct TestScale {
  std::string scale;
  int runs_per_result;
  double reference_time_minutes;
};
inline core::BenchmarkDef TestDef(const std::string& name, const std::string& log_name,
                                  const std::string& source, const std::vector<TestScale>& scales) {
  core::BenchmarkDef d;
  d.name = name;
  d.log_name = log_name;
  d.source = source;
  for (const auto& s : scales) {
    core::ScaleDef sd;
    sd.scale = s.scale;
    sd.runs_per_result = s.runs_per_result;
    sd.reference_time_minutes = s.reference_time_minutes;
    d.scales[s.scale] = sd;
  }
  return d;
}

}  // namespace trainbench::summary::test_logs

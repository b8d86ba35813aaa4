// Test helpers for the runner tests: a scratch folder and fake worker logs. Header-only, used by
// the *_test.cc files only.
#pragma once

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <string>

#include "core/atomic_file.h"
#include "core/json.h"
#include "core/mllog.h"
#include "core/mllog_keys.h"
#include "runner/result_files.h"

namespace trainbench::runner::test_util {

// A fresh, empty folder under the GoogleTest temporary directory, removed when it goes out of
// scope.
class ScopedDir {
 public:
  explicit ScopedDir(const std::string& name)
      : path_((std::filesystem::path(::testing::TempDir()) /
               ("trainbench_runner_" + name + "_" + std::to_string(::getpid())))
                  .string()) {
    std::filesystem::remove_all(path_);
    core::MakeDirs(path_);
  }
  ~ScopedDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// What a fake worker logs: run_start, then an evaluation (0.75 after epoch 3) two minutes
// later, then, when `stop_status` is not empty, run_stop with that status.
inline void WriteFakeLog(int fd, const std::string& stop_status) {
  int64_t t = 1700000000000;
  core::Logger log{FdSink{fd}, [&t] { return t += 60000; }};
  TB_MLLOG_START(log, core::keys::kRunStart);
  TB_MLLOG_EVENT(log, core::keys::kEvalAccuracy, 0.75, core::Json{{core::keys::kMdEpochNum, 3}});
  if (!stop_status.empty()) {
    TB_MLLOG_END(log, core::keys::kRunStop, nullptr,
                 core::Json{{core::keys::kMdStatus, stop_status}});
  }
}

// abort() without a core dump: a dump can take seconds where the system pipes it to a handler.
[[noreturn]] inline void AbortQuietly() {
  rlimit none{0, 0};
  ::setrlimit(RLIMIT_CORE, &none);
  std::abort();
}

}  // namespace trainbench::runner::test_util

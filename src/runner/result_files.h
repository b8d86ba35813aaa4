// The result files of `trainbench run`: result_<i>.txt in a results folder, one per run.
//
// A run's log is streamed to result_<i>.txt.part and renamed to result_<i>.txt when the run has
// ended, so a finished result file appears atomically. A worker that died without run_stop gets
// an aborted run_stop appended that says how it died. Existing result files are never
// overwritten: a new run takes the next free index.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>

namespace trainbench::runner {

// Line sink (core::Logger::Sink) writing straight to a file descriptor: every line reaches the
// kernel at once, so a worker that crashes loses nothing it logged.
class FdSink {
 public:
  explicit FdSink(int fd) : fd_(fd) {}
  void operator()(const std::string& line) const;

 private:
  int fd_;
};

// Smallest i >= 1 such that neither result_<i>.txt nor result_<i>.txt.part exists in dir.
int NextFreeIndex(const std::string& dir);

// A run's log while it is written: `fd` is open on `part` (write, append, close-on-exec).
struct PartFile {
  int index = 0;
  std::string path;  // result_<index>.txt: what `part` becomes
  std::string part;  // result_<index>.txt.part
  int fd = -1;
};

// Creates the .part of the next free index. O_EXCL: a launcher sharing the folder that took
// the same index in between makes this one move on to the next, never share a file. Throws
// core::Error naming the file when it cannot be created.
PartFile CreatePartFile(const std::string& dir);

// "killed by signal 9 (Killed)" or "exited with code 1", from a wait status.
std::string DescribeExit(int wait_status);

// What a finished run's log says.
struct Finished {
  std::string path;
  std::string status = "aborted";  // run_stop's status
  double minutes = NAN;            // run_start to run_stop
  int epochs = 0;                  // epoch_num of the last evaluation
  double last_eval = NAN;          // its primary accuracy
  uint64_t seed = 0;
  std::string error;  // run_stop's error, or how the worker died
};

// Makes sure the log ends with run_stop (appending an aborted one that names how the worker
// died, from `wait_status`, when it has none), then renames `part` to `final_path`. Throws
// core::Error naming the file when the rename fails.
Finished FinalizeLog(const std::string& part, const std::string& final_path, int wait_status,
                     uint64_t seed);

}  // namespace trainbench::runner

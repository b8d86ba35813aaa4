// `trainbench run --suite`: every benchmark of a scale in turn, each to its runs per result,
// resumable. This part knows nothing of training: what a results folder already holds for the
// suite, setting interrupted runs aside, and the suite's progress line with its estimate of the
// time left. The CLI runs each run (cli/run_command.cc).
#pragma once

#include <cmath>
#include <string>
#include <vector>

namespace trainbench::runner {

// What a benchmark's results folder (RESULTS/SYSTEM/BENCHMARK) holds.
struct FolderRuns {
  // Finished runs that belong to the result: every result_<i>.txt but the interrupted ones (a
  // run that failed or was aborted by its epoch limit counts: it is part of the result).
  std::vector<std::string> counted;
  int succeeded = 0;  // of `counted`, the runs whose run_stop says success
  // Finished runs the user interrupted (run_stop's error core::keys::kErrorInterrupted, or the
  // worker killed by SIGINT or SIGTERM): not part of the result, to be run again.
  std::vector<std::string> interrupted;
  // result_<i>.txt.part: a run being written now, or one whose launcher died.
  std::vector<std::string> unfinished;
};

// Reads `dir` (absent: nothing yet). Throws core::Error naming the file when a result log
// cannot be read.
FolderRuns ScanResultsFolder(const std::string& dir);

// Renames each interrupted log result_<i>.txt to result_<i>.interrupted.txt (or
// result_<i>.interrupted.<k>.txt when that name is taken: never over a file), a name no reader
// of results takes for a run (check, summarize, report), so that the run's index is free for the
// run that replaces it and the log is kept. Returns the new paths. Throws core::Error naming the
// file when a rename fails.
std::vector<std::string> SetAsideInterrupted(const std::vector<std::string>& interrupted);

// One benchmark of a suite.
struct SuiteItem {
  std::string benchmark;
  int runs = 0;                  // runs its result needs
  int done = 0;                  // runs already in its folder (FolderRuns::counted)
  double reference_minutes = 0;  // one run of the reference configuration; 0: unknown
};

// Minutes the suite still needs: the runs not done, at the reference times scaled by how this
// machine compares with the reference so far (`measured_minutes` for runs whose reference time
// totals `measured_reference_minutes`; 1 when nothing was measured yet). NaN when a benchmark
// with runs left has no reference time.
double EstimateMinutesLeft(const std::vector<SuiteItem>& items, double measured_minutes,
                           double measured_reference_minutes);

// "suite mini: 12/40 runs done; now 3/7 instance_segmentation, run 2/5; 1:02 elapsed, about
// 2:10 left" (h:mm; "time left unknown" for NaN).
std::string SuiteLine(const std::string& scale, const std::vector<SuiteItem>& items, size_t current,
                      double elapsed_minutes, double minutes_left);

}  // namespace trainbench::runner

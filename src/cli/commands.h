// The trainbench subcommands. main.cc parses flags (CLI11) into these option structs; each
// command returns the process exit code. Exit codes: 0 success, 1 a compliance/benchmark
// failure (check failed, a run did not converge), 2 bad input or usage, 130 interrupted.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace trainbench::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitBadInput = 2;
inline constexpr int kExitInterrupted = 130;

struct ListOptions {
  bool json = false;
  bool tunings = false;  // the tunings and the entry each takes on this CPU
};
int RunList(const ListOptions& o);

struct PrepareOptions {
  std::string benchmark;
  std::string scale = "mini";
  std::string data_dir;          // empty: the definition's default
  std::vector<std::string> set;  // generator options key=value (generated datasets)
};
int RunPrepare(const PrepareOptions& o);

struct RunOptions {
  std::string benchmark;
  std::string scale = "mini";
  int runs = 0;         // 0: the benchmark's runs per result
  long long seed = -1;  // -1: a fresh random base seed
  int threads = 0;      // 0: all logical CPUs
  int loader_threads = 1;
  std::string division = "closed";
  std::string results = "results";
  std::string system;  // empty: the host name
  std::string org = "trainbench";
  std::string data_dir;  // empty: the definition's default
  std::string device = "cpu";
  std::vector<std::string> set;  // key=value hyperparameter overrides
  std::string tuning;  // configs/tunings/<name>.yaml or a file: overrides applied before --set
  long long max_steps = -1;  // step budget per run (testing); -1: none
  int max_epochs = -1;       // epoch limit per run below the definition's (testing); -1: none
  bool progress = true;
  // Data parallelism (dist/rendezvous.h): --nproc N local processes, or one member of a job on
  // several machines (--rank, --world-size, --master, or a launcher's environment).
  int nproc = 0;
  int rank = -1;
  int world_size = -1;
  std::string master;
  double dist_timeout = 120;   // seconds: bound on connecting and on any one collective
  bool oversubscribe = false;  // allow more processes or threads than logical CPUs
};
int RunRun(const RunOptions& o);

// `trainbench run --suite SCALE [BENCHMARK...]` (cli/suite_command.cc): the benchmarks of
// run.scale (all, or those named) in turn, each to its runs per result (run.runs when set),
// resumable; `run`'s other flags apply to every run (--data: a folder with one subfolder per
// dataset, named as `trainbench prepare` names them). Ends with the summary and the HTML report.
struct SuiteOptions {
  RunOptions run;
  std::vector<std::string> benchmarks;  // empty: every benchmark with the scale
};
int RunSuite(const SuiteOptions& o);

// In the LibTorch-free `trainbench` of a LibTorch build: replaces this process with
// trainbench-torch from the same folder, given the same arguments (`run` and `gtp` train or
// play there). Returns only by throwing core::Error when it cannot be started.
[[noreturn]] void ExecTorchBinary(char** argv);

// The host name as a folder name (characters other than letters, digits, - and _ become _).
std::string DefaultSystemName();
// Throws core::Error unless `name` is one path component (--system may be empty: the host name).
void CheckPathComponent(const char* flag, const std::string& name);

// `trainbench gtp`: trainbench's Go player over the Go Text Protocol on stdin/stdout.
struct GtpOptions {
  int size = 9;
  double komi = 7.5;
  std::string player = "mcts";  // mcts (network + search) or random
  std::string weights;          // GoNet parameters saved by torch::save; empty: a fresh network
  int filters = 32, blocks = 9, value_fc = 64;
  int readouts = 200;
  int threads = 1;
  long long seed = 1;
};
int RunGtp(const GtpOptions& o);

}  // namespace trainbench::cli

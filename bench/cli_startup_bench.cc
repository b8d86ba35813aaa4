// How long trainbench's commands take to start and finish on small inputs: each command run 20
// times (fork + exec + wait), the median and the slowest printed in milliseconds. The commands
// that need no LibTorch should take a few milliseconds; `trainbench-torch --version` shows what
// loading LibTorch costs.
//
//   cli_startup_bench BUILD_DIR/src/cli [REPEATS]
//
// It runs `trainbench` and `trainbench-torch` from that folder, on a log and a results folder
// it writes under /tmp (removed at the end). Nothing else should run beside it.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace {

// Milliseconds for one run of `args` with stdout and stderr to /dev/null; -1 when it could not
// start. The exit code is not judged (a check of a failing log is as fast as a passing one).
double TimeOnce(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::fflush(stdout);  // or the child's exit would print this process's buffer again
  const auto t0 = std::chrono::steady_clock::now();
  const pid_t pid = ::fork();
  if (pid == 0) {
    std::freopen("/dev/null", "w", stdout);
    std::freopen("/dev/null", "w", stderr);
    ::execv(argv[0], argv.data());
    ::_exit(127);  // _exit: no stdio buffers flushed
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return WIFEXITED(status) && WEXITSTATUS(status) == 127 ? -1 : ms;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: cli_startup_bench BUILD_DIR/src/cli [REPEATS]\n");
    return 2;
  }
  const std::string dir = argv[1];
  const int repeats = argc > 2 ? std::max(1, std::atoi(argv[2])) : 20;
  const std::string tb = dir + "/trainbench", torch = dir + "/trainbench-torch";
  const std::string scratch = "/tmp/cli_startup_bench_" + std::to_string(::getpid());
  const std::string results = scratch + "/results/sys/recommendation";
  std::filesystem::create_directories(results);
  const std::string log = results + "/result_1.txt";
  {
    // A short closed NCF log: what `check` and `summarize` read.
    std::ofstream out(log);
    long t = 1700000000000;
    auto ev = [&](const char* type, const char* key, const std::string& value,
                  const std::string& md) {
      out << ":::MLLOG {\"namespace\": \"\", \"time_ms\": " << t++ << ", \"event_type\": \"" << type
          << "\", \"key\": \"" << key << "\", \"value\": " << value << ", \"metadata\": {" << md
          << "}}\n";
    };
    ev("POINT_IN_TIME", "submission_benchmark", "\"ncf\"", "");
    ev("INTERVAL_START", "run_start", "null", "");
    ev("POINT_IN_TIME", "eval_accuracy", "0.5", "\"epoch_num\": 1");
    ev("INTERVAL_END", "run_stop", "null", "\"status\": \"success\"");
  }
  const std::string ref = scratch + "/ref.txt", hyp = scratch + "/hyp.txt";
  std::ofstream(ref) << "the cat sat on the mat\n";
  std::ofstream(hyp) << "the cat sat on a mat\n";
  const std::vector<std::pair<std::string, std::vector<std::string>>> commands = {
      {"trainbench --version", {tb, "--version"}},
      {"trainbench list", {tb, "list"}},
      {"trainbench list --tunings", {tb, "list", "--tunings"}},
      {"trainbench check LOG", {tb, "check", log}},
      {"trainbench summarize DIR --no-history",
       {tb, "summarize", scratch + "/results", "--no-history"}},
      {"trainbench score bleu REF HYP", {tb, "score", "bleu", ref, hyp}},
      {"trainbench run --help", {tb, "run", "--help"}},
      {"trainbench-torch --version (LibTorch)", {torch, "--version"}},
  };
  std::printf("%-40s %10s %10s   (%d runs each)\n", "command", "median ms", "max ms", repeats);
  for (const auto& [name, args] : commands) {
    std::vector<double> ms;
    for (int i = 0; i < repeats; ++i) ms.push_back(TimeOnce(args));
    std::sort(ms.begin(), ms.end());
    if (ms.front() < 0) {
      std::printf("%-40s %10s\n", name.c_str(), "(cannot start)");
      continue;
    }
    std::printf("%-40s %10.1f %10.1f\n", name.c_str(), ms[ms.size() / 2], ms.back());
  }
  std::filesystem::remove_all(scratch);
  return 0;
}

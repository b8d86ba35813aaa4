// `trainbench run`: N runs of a benchmark, each in its own worker process so that a crash or
// Ctrl-C in run k leaves runs 1..k-1 intact and run k recorded as aborted.
//
// Each run's log is streamed (one flushed line per event) to result_<i>.txt.part and renamed to
// result_<i>.txt when the run ends, so a finished result file appears atomically. If the worker
// dies without writing run_stop, the runner appends an aborted run_stop that says how it died.
// Existing result files are never overwritten: new runs take the next free indices.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <random>
#include <thread>

#include "cli/commands.h"
#include "core/atomic_file.h"
#include "core/benchmark_def.h"
#include "core/error.h"
#include "core/log_reader.h"
#include "core/mllog.h"
#include "core/mllog_keys.h"
#include "core/paths.h"
#include "train/harness.h"
#include "workloads/registry.h"

namespace trainbench::cli {

namespace fs = std::filesystem;
using core::Json;

namespace {

std::atomic<bool> g_interrupt{false};
volatile sig_atomic_t g_parent_interrupt = 0;

void WorkerSigint(int) { g_interrupt.store(true); }
void ParentSigint(int) { g_parent_interrupt = 1; }

std::string DefaultSystemName() {
  char host[256] = {0};
  ::gethostname(host, sizeof(host) - 1);
  std::string s = host[0] ? host : "local";
  for (char& c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') c = '_';
  }
  return s;
}

// Smallest i >= 1 such that neither result_<i>.txt nor result_<i>.txt.part exists.
int NextFreeIndex(const std::string& dir) {
  for (int i = 1;; ++i) {
    std::string p = dir + "/result_" + std::to_string(i) + ".txt";
    if (!fs::exists(p) && !fs::exists(p + ".part")) return i;
  }
}

// Line sink writing straight to a file descriptor: every line reaches the kernel at once.
class FdSink {
 public:
  explicit FdSink(int fd) : fd_(fd) {}
  void operator()(const std::string& line) const {
    std::string l = line + "\n";
    size_t done = 0;
    while (done < l.size()) {
      ssize_t n = ::write(fd_, l.data() + done, l.size() - done);
      if (n < 0) {
        if (errno == EINTR) continue;
        return;  // nothing better to do from inside a logger; the runner checks the log later
      }
      done += static_cast<size_t>(n);
    }
  }

 private:
  int fd_;
};

struct RunPlan {
  core::BenchmarkDef def;
  const core::ScaleDef* scale = nullptr;
  core::Division division = core::Division::kClosed;
  core::ResolvedConfig config;
  std::string dir;
  std::string system;
  std::string data_dir;
  int threads = 1;
};

// Runs in the forked worker. Never returns.
[[noreturn]] void WorkerMain(const RunOptions& o, const RunPlan& p, int fd, uint64_t seed, int run_number,
                             int run_count) {
  struct sigaction sa {};
  sa.sa_handler = WorkerSigint;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGINT, &sa, nullptr);
  ::sigaction(SIGTERM, &sa, nullptr);
  int code = kExitFailure;
  {
    core::Logger log{FdSink{fd}};
    train::RunContext ctx;
    ctx.benchmark = p.def.name;
    ctx.scale = p.scale;
    ctx.config = p.config.effective;
    ctx.data_dir = p.data_dir;
    ctx.seed = seed;
    ctx.threads = p.threads;
    ctx.loader_threads = o.loader_threads;
    ctx.device = o.device;
    train::RunSettings s;
    s.benchmark = &p.def;
    s.scale = p.scale;
    s.division = p.division;
    s.org = o.org;
    s.platform = p.system;
    Json req = p.config.requested;
    req["scale"] = o.scale;
    req["division"] = o.division;
    if (o.seed >= 0) req["seed"] = o.seed;
    if (o.threads > 0) req["threads"] = o.threads;
    req["loader_threads"] = o.loader_threads;
    req["device"] = o.device;
    if (!o.data_dir.empty()) req["data_dir"] = o.data_dir;
    s.requested_config = req;
    s.max_steps = o.max_steps;
    s.run_number = run_number;
    s.run_count = run_count;
    s.progress = o.progress ? &std::cerr : nullptr;
    s.progress_is_tty = ::isatty(STDERR_FILENO);
    std::unique_ptr<train::Workload> w = workloads::CreateWorkload(p.def.name, p.scale->scale);
    train::RunOutcome out = train::RunBenchmark(*w, ctx, s, log, &g_interrupt);
    code = out.interrupted ? kExitInterrupted : (out.success ? kExitOk : kExitFailure);
    if (out.other_cpu_share > 0.10) {
      std::fprintf(stderr,
                   "trainbench: warning: other processes used %.0f%% of the machine's CPU during run %d; "
                   "its time is not representative of this system (trainbench_cpu_share in the log)\n",
                   100.0 * out.other_cpu_share, run_number);
    }
    if (out.reason == "error" || out.reason == "init failed") {
      std::cerr << "trainbench: run " << run_number << " failed: see run_stop in the log\n";
    }
  }
  ::close(fd);
  std::cout.flush();
  std::cerr.flush();
  ::_exit(code);
}

struct Finished {
  std::string path;
  std::string status = "aborted";
  double minutes = NAN;
  int epochs = 0;
  double last_eval = NAN;
  uint64_t seed = 0;
  std::string error;
};

// Makes sure the log ends with run_stop (appending an aborted one when the worker died), then
// renames .part -> .txt.
Finished FinalizeLog(const std::string& part, const std::string& final_path, int wait_status,
                     uint64_t seed) {
  Finished f;
  f.path = final_path;
  f.seed = seed;
  core::ParsedLog log = core::ReadLogFile(part);
  if (!log.Find(core::keys::kRunStop)) {
    std::string how;
    if (WIFSIGNALED(wait_status)) {
      how = std::string("worker process killed by signal ") + std::to_string(WTERMSIG(wait_status)) +
            " (" + strsignal(WTERMSIG(wait_status)) + ")";
    } else {
      how = "worker process exited with code " + std::to_string(WEXITSTATUS(wait_status)) +
            " without ending the run";
    }
    int fd = ::open(part.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
    if (fd >= 0) {
      core::Logger l{FdSink{fd}};
      TB_MLLOG_END(l, core::keys::kRunStop, nullptr,
                   Json({{core::keys::kMdStatus, core::keys::kStatusAborted}, {"error", how}}));
      ::fsync(fd);
      ::close(fd);
    }
    log = core::ReadLogFile(part);
    f.error = how;
  }
  if (::rename(part.c_str(), final_path.c_str()) != 0) {
    throw core::FileError(final_path, 0, std::string("cannot rename from .part: ") + std::strerror(errno));
  }
  const auto* start = log.Find(core::keys::kRunStart);
  const auto* stop = log.Find(core::keys::kRunStop);
  if (stop) {
    f.status = stop->metadata.value(core::keys::kMdStatus, "aborted");
    if (f.error.empty()) f.error = stop->metadata.value("error", "");
  }
  if (start && stop) f.minutes = (stop->time_ms - start->time_ms) / 60000.0;
  auto evals = log.FindAll(core::keys::kEvalAccuracy);
  if (!evals.empty()) {
    f.last_eval = evals.back()->value.is_number() ? evals.back()->value.get<double>() : NAN;
    f.epochs = evals.back()->metadata.value(core::keys::kMdEpochNum, 0);
  }
  return f;
}

}  // namespace

int RunRun(const RunOptions& o) {
  RunPlan p;
  p.def = core::FindBenchmark(core::BenchmarksDir(), o.benchmark);
  p.scale = &p.def.Scale(o.scale);
  p.division = core::ParseDivision(o.division);
  p.config = core::ResolveConfig(*p.scale, core::ParseOverrides(o.set), p.division);
  if (o.runs < 0) throw core::Error("--runs must be >= 1");
  if (o.threads < 0) throw core::Error("--threads must be >= 1");
  if (o.loader_threads < 0) throw core::Error("--loader-threads must be >= 0");
  if (o.device != "cpu" && o.device.rfind("cuda", 0) != 0) {
    throw core::Error("--device \"" + o.device + "\": expected cpu or cuda[:N]");
  }
  // Fail before any run starts if the benchmark has no implementation at this scale.
  workloads::CreateWorkload(p.def.name, p.scale->scale);
  const int runs = o.runs > 0 ? o.runs : p.scale->runs_per_result;
  p.threads = o.threads > 0 ? o.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  p.system = o.system.empty() ? DefaultSystemName() : o.system;
  p.data_dir = o.data_dir.empty() ? p.scale->data_dir : o.data_dir;
  if (!fs::is_directory(p.data_dir)) {
    throw core::FileError(p.data_dir, 0,
                          "dataset folder not found (see `trainbench prepare " + p.def.name + "`, or pass --data)");
  }
  p.dir = o.results + "/" + p.system + "/" + p.def.name;
  core::MakeDirs(p.dir);

  uint64_t base_seed = o.seed >= 0 ? static_cast<uint64_t>(o.seed) : (std::random_device{}() & 0x7fffffff);
  std::fprintf(stderr, "trainbench: %s (%s scale, %s division): %d run(s), target %s >= %g, results in %s\n",
               p.def.name.c_str(), p.scale->scale.c_str(), o.division.c_str(), runs,
               p.scale->metric.c_str(), p.scale->quality_target, p.dir.c_str());

  struct sigaction sa {}, old_int {}, old_term {};
  sa.sa_handler = ParentSigint;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGINT, &sa, &old_int);
  ::sigaction(SIGTERM, &sa, &old_term);

  std::vector<Finished> done;
  bool interrupted = false;
  for (int r = 1; r <= runs; ++r) {
    const int index = NextFreeIndex(p.dir);
    const std::string final_path = p.dir + "/result_" + std::to_string(index) + ".txt";
    const std::string part = final_path + ".part";
    const uint64_t seed = base_seed + static_cast<uint64_t>(r - 1);
    int fd = ::open(part.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) throw core::FileError(part, 0, std::string("cannot create: ") + std::strerror(errno));
    std::cout.flush();
    std::cerr.flush();
    pid_t pid = ::fork();
    if (pid < 0) {
      ::close(fd);
      throw core::Error(std::string("fork failed: ") + std::strerror(errno));
    }
    if (pid == 0) WorkerMain(o, p, fd, seed, r, runs);
    ::close(fd);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0) {
      if (errno != EINTR) break;
      if (g_parent_interrupt) ::kill(pid, SIGINT);  // SIGTERM to us, or SIGINT from outside the group
    }
    Finished f = FinalizeLog(part, final_path, status, seed);
    done.push_back(f);
    if (f.status == "success") {
      std::fprintf(stderr, "run %d/%d: success in %.2f min (%d epochs, %s %.4f, seed %llu) -> %s\n", r, runs,
                   f.minutes, f.epochs, p.scale->metric.c_str(), f.last_eval,
                   static_cast<unsigned long long>(seed), final_path.c_str());
    } else {
      std::fprintf(stderr, "run %d/%d: aborted after %.2f min (%d epochs, last %s %.4f, seed %llu)%s%s -> %s\n", r,
                   runs, f.minutes, f.epochs, p.scale->metric.c_str(), f.last_eval,
                   static_cast<unsigned long long>(seed), f.error.empty() ? "" : ": ", f.error.c_str(),
                   final_path.c_str());
    }
    if (g_parent_interrupt || (WIFEXITED(status) && WEXITSTATUS(status) == kExitInterrupted) ||
        (WIFSIGNALED(status) && WTERMSIG(status) == SIGINT)) {
      interrupted = true;
      std::fprintf(stderr, "trainbench: interrupted; run %d recorded as aborted, earlier runs kept\n", r);
      break;
    }
  }
  ::sigaction(SIGINT, &old_int, nullptr);
  ::sigaction(SIGTERM, &old_term, nullptr);

  int converged = 0;
  double sum = 0;
  for (const auto& f : done) {
    if (f.status == "success") {
      ++converged;
      sum += f.minutes;
    }
  }
  std::printf("%s %s: %d of %zu run(s) reached %s >= %g", p.def.name.c_str(), p.scale->scale.c_str(), converged,
              done.size(), p.scale->metric.c_str(), p.scale->quality_target);
  if (converged > 0) std::printf("; mean time to train %.2f min", sum / converged);
  std::printf("\nlogs: %s/result_*.txt (summarize with: trainbench summarize %s)\n", p.dir.c_str(),
              o.results.c_str());
  if (interrupted) return kExitInterrupted;
  return converged == static_cast<int>(done.size()) ? kExitOk : kExitFailure;
}

}  // namespace trainbench::cli

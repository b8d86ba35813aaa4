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
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <optional>
#include <random>
#include <thread>

#include "cli/commands.h"
#include "core/atomic_file.h"
#include "core/benchmark_def.h"
#include "core/error.h"
#include "core/eval_accuracy.h"
#include "core/log_reader.h"
#include "core/mllog.h"
#include "core/mllog_keys.h"
#include "core/paths.h"
#include "core/tuning.h"
#include "dist/connect.h"
#include "dist/rendezvous.h"
#include "train/harness.h"
#include "training/device.h"
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

// --system and --org name one folder each under --results: "../../escaped" wrote outside it.
void CheckPathComponent(const char* flag, const std::string& name) {
  if (name.empty() && std::string(flag) == "--system") return;  // the host name
  const bool bad = name.empty() || name == "." || name == ".." || name.size() > 255 ||
                   name.find('/') != std::string::npos || name.find('\0') != std::string::npos;
  if (bad) {
    throw core::Error(std::string(flag) + " \"" + name +
                      "\": expected a name that is one path component (no '/', not . or ..)");
  }
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
  dist::Rendezvous rendezvous;  // master_port: the store's actual port
  std::optional<core::Tuning> tuning;
};

// Runs in the forked worker. Never returns.
// `fd`: where the MLLOG log goes (rank 0), or -1 (other ranks: no log).
[[noreturn]] void WorkerMain(const RunOptions& o, const RunPlan& p, int fd, uint64_t seed,
                             int run_number, int run_count, int rank,
                             const std::vector<int>& siblings) {
  struct sigaction sa {};
  sa.sa_handler = WorkerSigint;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGINT, &sa, nullptr);
  ::sigaction(SIGTERM, &sa, nullptr);
  int code = kExitFailure;
  {
    std::function<void(const std::string&)> sink = [](const std::string&) {};
    if (fd >= 0) sink = FdSink{fd};
    core::Logger log{sink};
    train::RunContext ctx;
    ctx.benchmark = p.def.name;
    ctx.scale = p.scale;
    ctx.config = p.config.effective;
    ctx.data_dir = p.data_dir;
    ctx.seed = seed;
    ctx.threads = p.threads;
    ctx.loader_threads = o.loader_threads;
    ctx.device = o.device;
    ctx.rank = rank;
    ctx.world_size = p.rendezvous.world_size;
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
    if (p.tuning) {
      req["tuning"] = Json{{"name", p.tuning->name}, {"path", p.tuning->path}};
      if (p.tuning->nproc) req["tuning"]["launch"]["nproc"] = *p.tuning->nproc;
      if (p.tuning->threads) req["tuning"]["launch"]["threads"] = *p.tuning->threads;
    }
    if (o.threads > 0) req["threads"] = o.threads;
    req["loader_threads"] = o.loader_threads;
    req["device"] = o.device;
    if (!o.data_dir.empty()) req["data_dir"] = o.data_dir;
    if (o.nproc > 0) req["nproc"] = o.nproc;
    if (p.rendezvous.mode == dist::LaunchMode::kMember) req["world_size"] = p.rendezvous.world_size;
    s.requested_config = req;
    if (p.rendezvous.world_size > 1) {
      s.setup = [&p, rank, run_number](train::RunContext& c) {
        dist::Rendezvous me = p.rendezvous;
        me.rank = rank;
        // Local workers talk over loopback; members bind to the host's (or GLOO_SOCKET_IFNAME's)
        // address.
        const std::string bind = me.mode == dist::LaunchMode::kLocal ? "127.0.0.1" : "";
        c.group = dist::ConnectGroup(me, "run" + std::to_string(run_number) + "/", bind);
        c.dist_info = Json{
            {"backend", "gloo"},
            {"rendezvous", dist::Describe(p.rendezvous)},
            {"timeout_s", p.rendezvous.timeout_s},
            {"gradients", "averaged over ranks, bucketed all-reduce overlapped with backward"}};
      };
    }
    s.max_steps = o.max_steps;
    s.max_epochs = o.max_epochs;
    s.run_number = run_number;
    s.run_count = run_count;
    s.progress = (o.progress && rank == 0) ? &std::cerr : nullptr;
    s.sibling_pids = siblings;
    s.progress_is_tty = ::isatty(STDERR_FILENO);
    std::unique_ptr<train::Workload> w = workloads::CreateWorkload(p.def.name, p.scale->scale);
    train::RunOutcome out = train::RunBenchmark(*w, ctx, s, log, &g_interrupt);
    code = out.interrupted ? kExitInterrupted : (out.success ? kExitOk : kExitFailure);
    if (out.other_cpu_share > 0.10 && fd >= 0) {
      std::fprintf(
          stderr,
          "trainbench: warning: other processes used %.0f%% of the machine's CPU during run %d; "
          "its time is not representative of this system (trainbench_cpu_share in the log)\n",
          100.0 * out.other_cpu_share, run_number);
    }
    if (out.reason == "error" || out.reason == "init failed") {
      if (fd >= 0) {
        std::cerr << "trainbench: run " << run_number << " failed: see run_stop in the log\n";
      } else {
        std::cerr << "trainbench: rank " << rank << ": run " << run_number
                  << " failed: " << out.error << "\n";
      }
    }
  }
  if (fd >= 0) ::close(fd);
  std::cout.flush();
  std::cerr.flush();
  ::_exit(code);
}

// "killed by signal 9 (Killed)" or "exited with code 1", from a wait status.
std::string DescribeExit(int status) {
  if (WIFSIGNALED(status)) {
    return std::string("killed by signal ") + std::to_string(WTERMSIG(status)) + " (" +
           strsignal(WTERMSIG(status)) + ")";
  }
  return "exited with code " + std::to_string(WEXITSTATUS(status));
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
    std::string how = "worker process " + DescribeExit(wait_status);
    if (!WIFSIGNALED(wait_status)) how += " without ending the run";
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
    throw core::FileError(final_path, 0,
                          std::string("cannot rename from .part: ") + std::strerror(errno));
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
    // Mask R-CNN logs {"BBOX", "SEGM"}: its box mAP, the metric the target names.
    f.last_eval = core::PrimaryAccuracy(evals.back()->value).value_or(NAN);
    f.epochs = evals.back()->metadata.value(core::keys::kMdEpochNum, 0);
  }
  return f;
}

}  // namespace

// The launcher's side of one run's worker processes (one, or --nproc of them).
struct Workers {
  std::vector<pid_t> pids;  // by local rank
  std::vector<int> status;  // wait statuses
};

// Forks one worker per local rank; rank 0 (when local) gets the log's fd. The last rank is
// forked first, so that the first (which writes the log) knows its siblings' pids.
Workers StartWorkers(const RunOptions& o, const RunPlan& p, int fd, uint64_t seed, int r, int runs,
                     const std::vector<int>& ranks) {
  Workers w;
  w.pids.assign(ranks.size(), 0);
  std::vector<int> siblings;
  for (size_t i = ranks.size(); i-- > 0;) {
    const int rank = ranks[i];
    std::cout.flush();
    std::cerr.flush();
    pid_t pid = ::fork();
    if (pid < 0) {
      for (pid_t q : w.pids) {
        if (q > 0) ::kill(q, SIGKILL);
      }
      throw core::Error(std::string("fork failed: ") + std::strerror(errno));
    }
    if (pid == 0) WorkerMain(o, p, rank == 0 ? fd : -1, seed, r, runs, rank, siblings);
    w.pids[i] = pid;
    siblings.push_back(pid);
  }
  w.status.assign(w.pids.size(), 0);
  return w;
}

// Waits for every worker. Once one has ended, the others get the collective timeout plus a
// grace period to end too (a rank that died makes the others' next collective fail; a rank
// that hangs makes it time out); whoever is left after that is killed, so a run never hangs.
constexpr double kGraceSeconds = 10;

void WaitWorkers(Workers& w, const std::vector<int>& ranks, double timeout_s) {
  const size_t n = w.pids.size();
  std::vector<bool> done(n, false);
  size_t left = n;
  bool forwarded = false;
  std::optional<std::chrono::steady_clock::time_point> deadline;
  while (left > 0) {
    int status = 0;
    pid_t pid = ::waitpid(-1, &status, n == 1 ? 0 : WNOHANG);
    if (pid > 0) {
      for (size_t i = 0; i < n; ++i) {
        if (w.pids[i] == pid && !done[i]) {
          done[i] = true;
          w.status[i] = status;
          --left;
          bool clean = WIFEXITED(status) &&
                       (WEXITSTATUS(status) == kExitOk || WEXITSTATUS(status) == kExitFailure ||
                        WEXITSTATUS(status) == kExitInterrupted);
          if (n > 1 && !clean) {
            std::fprintf(stderr, "trainbench: rank %d (pid %d) %s\n", ranks[i],
                         static_cast<int>(pid), DescribeExit(status).c_str());
          }
          if (!deadline) {
            deadline =
                std::chrono::steady_clock::now() +
                std::chrono::milliseconds(static_cast<int64_t>((timeout_s + kGraceSeconds) * 1000));
          }
        }
      }
      continue;
    }
    if (pid < 0 && errno != EINTR) break;  // ECHILD: nothing left to wait for
    if (g_parent_interrupt && !forwarded) {
      // SIGTERM to us, or SIGINT from outside the process group: pass it on.
      for (size_t i = 0; i < n; ++i) {
        if (!done[i]) ::kill(w.pids[i], SIGINT);
      }
      forwarded = true;
    }
    if (deadline && std::chrono::steady_clock::now() > *deadline) {
      for (size_t i = 0; i < n; ++i) {
        if (done[i]) continue;
        std::fprintf(stderr,
                     "trainbench: rank %d (pid %d) did not end within %.0f s of another rank "
                     "ending; killing it\n",
                     ranks[i], static_cast<int>(w.pids[i]), timeout_s + kGraceSeconds);
        ::kill(w.pids[i], SIGKILL);
      }
      deadline.reset();
    }
    if (n > 1) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

// "benchmark=..., scale=..., ..." of what must match on every rank of a job.
std::string JobFingerprint(const RunOptions& o, const RunPlan& p, int runs) {
  Json j = {{"benchmark", p.def.name},      {"scale", p.scale->scale},
            {"division", o.division},       {"runs", runs},
            {"config", p.config.effective}, {"max_steps", o.max_steps},
            {"max_epochs", o.max_epochs},   {"world_size", p.rendezvous.world_size}};
  return j.dump();
}

// The first top-level key whose value differs between two fingerprints.
std::string FirstDifference(const std::string& a, const std::string& b) {
  Json ja = Json::parse(a), jb = Json::parse(b);
  for (auto it = ja.begin(); it != ja.end(); ++it) {
    if (!jb.contains(it.key()) || jb[it.key()] != it.value()) {
      if (it.value().is_object() && jb.contains(it.key()) && jb[it.key()].is_object()) {
        for (auto k = it.value().begin(); k != it.value().end(); ++k) {
          if (!jb[it.key()].contains(k.key()) || jb[it.key()][k.key()] != k.value()) {
            return it.key() + "." + k.key() +
                   " (rank 0: " + jb[it.key()].value(k.key(), Json()).dump() +
                   ", here: " + k.value().dump() + ")";
          }
        }
      }
      return it.key() + " (rank 0: " + jb.value(it.key(), Json()).dump() +
             ", here: " + it.value().dump() + ")";
    }
  }
  return "(no single key)";
}

int RunRun(const RunOptions& o) {
  RunPlan p;
  p.def = core::FindBenchmark(core::BenchmarksDir(), o.benchmark);
  p.scale = &p.def.Scale(o.scale);
  p.division = core::ParseDivision(o.division);
  std::map<std::string, std::string> overrides;
  if (!o.tuning.empty()) {
    p.tuning = core::LoadTuning(o.tuning, p.def.name, o.scale);
    overrides = p.tuning->overrides;
  }
  for (const auto& [k, v] : core::ParseOverrides(o.set)) overrides[k] = v;  // --set wins
  try {
    p.config = core::ResolveConfig(*p.scale, overrides, p.division);
  } catch (const core::Error& e) {
    if (!p.tuning) throw;
    throw core::Error(std::string(e.what()) + " (with tuning " + p.tuning->path + ")");
  }
  if (o.runs < 0) throw core::Error("--runs must be >= 1");
  if (o.threads < 0) throw core::Error("--threads must be >= 1");
  if (o.loader_threads < 0) throw core::Error("--loader-threads must be >= 0");
  training::CheckDevice(o.device);
  CheckPathComponent("--system", o.system);
  CheckPathComponent("--org", o.org);
  dist::RendezvousFlags rf;
  rf.nproc = o.nproc;
  rf.rank = o.rank;
  rf.world_size = o.world_size;
  rf.master = o.master;
  rf.timeout_s = o.dist_timeout;
  const auto env = [](const char* v) { return std::getenv(v); };
  p.rendezvous = dist::ResolveRendezvous(rf, env);
  // The tuning's process layout, unless the command chose one (--nproc, or a multi-machine job).
  if (p.tuning && p.tuning->nproc && o.nproc == 0 &&
      p.rendezvous.mode == dist::LaunchMode::kSingle) {
    rf.nproc = *p.tuning->nproc;
    p.rendezvous = dist::ResolveRendezvous(rf, env);
  }
  const dist::Rendezvous& rv = p.rendezvous;
  const bool member = rv.mode == dist::LaunchMode::kMember;
  const bool writes_results = !member || rv.rank == 0;
  const int local_procs = rv.mode == dist::LaunchMode::kLocal ? rv.world_size : 1;
  const int cpus = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  // Process and thread counts are bounded by the machine before anything is forked: a tuning's
  // `launch: {nproc: 1000}` started 1000 workers.
  if (!o.oversubscribe) {
    const std::string from_tuning = p.tuning ? " (tuning " + p.tuning->path + ")" : "";
    if (local_procs > cpus) {
      throw core::Error((o.nproc > 0 ? "--nproc " : "launch.nproc ") + std::to_string(local_procs) +
                        (o.nproc > 0 ? "" : from_tuning) +
                        " is more worker processes than this machine's " + std::to_string(cpus) +
                        " logical CPUs (--oversubscribe starts them anyway)");
    }
    const int threads = o.threads > 0                   ? o.threads
                        : p.tuning && p.tuning->threads ? *p.tuning->threads
                                                        : 0;
    if (threads > cpus) {
      throw core::Error((o.threads > 0 ? "--threads " : "launch.threads ") +
                        std::to_string(threads) + (o.threads > 0 ? "" : from_tuning) +
                        " is more threads than this machine's " + std::to_string(cpus) +
                        " logical CPUs (--oversubscribe allows it)");
    }
  }
  // Fail before any run starts (and before any worker is forked) if the benchmark has no
  // implementation at this scale, the configuration is one it refuses, or its batch does not
  // split over the ranks.
  {
    auto workload = workloads::CreateWorkload(p.def.name, p.scale->scale);
    workload->CheckConfig(p.config.effective, o.device);
    train::CheckWorldSize(*workload, p.def.name, p.config.effective, rv.world_size);
  }
  const int runs = o.runs > 0 ? o.runs : p.scale->runs_per_result;
  p.threads = o.threads > 0                   ? o.threads
              : p.tuning && p.tuning->threads ? *p.tuning->threads
                                              : std::max(1, cpus / local_procs);
  p.system = o.system.empty() ? DefaultSystemName() : o.system;
  p.data_dir = o.data_dir.empty() ? p.scale->data_dir : o.data_dir;
  if (!fs::is_directory(p.data_dir)) {
    throw core::FileError(
        p.data_dir, 0,
        "dataset folder not found (see `trainbench prepare " + p.def.name + "`, or pass --data)");
  }
  p.dir = o.results + "/" + p.system + "/" + p.def.name;
  if (writes_results) core::MakeDirs(p.dir);

  uint64_t base_seed =
      o.seed >= 0 ? static_cast<uint64_t>(o.seed) : (std::random_device{}() & 0x7fffffff);
  // The rendezvous store lives in rank 0's launcher for all runs; the workers of each run meet
  // under their own key prefix. Members agree on the base seed and check they run the same job.
  std::unique_ptr<dist::StoreServer> store;
  if (rv.mode == dist::LaunchMode::kLocal) {
    store = std::make_unique<dist::StoreServer>("127.0.0.1", 0, rv.timeout_s);
    p.rendezvous.master_port = store->port();
  } else if (member && rv.rank == 0) {
    store = std::make_unique<dist::StoreServer>(rv.master_addr, rv.master_port, rv.timeout_s);
    store->Set("trainbench/base_seed", std::to_string(base_seed));
    store->Set("trainbench/job", JobFingerprint(o, p, runs));
  } else if (member) {
    std::string theirs =
        dist::StoreGet(rv.master_addr, rv.master_port, "trainbench/job", rv.timeout_s);
    std::string mine = JobFingerprint(o, p, runs);
    if (theirs != mine) {
      throw core::Error(
          "rank " + std::to_string(rv.rank) +
          " was started with a different job than rank 0: " + FirstDifference(mine, theirs));
    }
    base_seed = std::stoull(
        dist::StoreGet(rv.master_addr, rv.master_port, "trainbench/base_seed", rv.timeout_s));
  }
  std::string procs = rv.world_size > 1 ? ", " + dist::Describe(rv) + " x " +
                                              std::to_string(p.threads) + " thread(s)"
                                        : "";
  if (writes_results) {
    std::fprintf(
        stderr,
        "trainbench: %s (%s scale, %s division): %d run(s)%s, target %s >= %g, results in %s\n",
        p.def.name.c_str(), p.scale->scale.c_str(), o.division.c_str(), runs, procs.c_str(),
        p.scale->metric.c_str(), p.scale->quality_target, p.dir.c_str());
  } else {
    std::fprintf(stderr, "trainbench: %s (%s scale): %d run(s) as %s; rank 0 writes the results\n",
                 p.def.name.c_str(), p.scale->scale.c_str(), runs, dist::Describe(rv).c_str());
  }
  std::vector<int> ranks;
  if (rv.mode == dist::LaunchMode::kLocal) {
    for (int k = 0; k < rv.world_size; ++k) ranks.push_back(k);
  } else {
    ranks.push_back(rv.rank);
  }

  struct sigaction sa {
  }, old_int{}, old_term{};
  sa.sa_handler = ParentSigint;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGINT, &sa, &old_int);
  ::sigaction(SIGTERM, &sa, &old_term);

  std::vector<Finished> done;
  bool interrupted = false;
  int member_failures = 0;
  for (int r = 1; r <= runs; ++r) {
    const uint64_t seed = base_seed + static_cast<uint64_t>(r - 1);
    if (!writes_results) {
      Workers w = StartWorkers(o, p, -1, seed, r, runs, ranks);
      WaitWorkers(w, ranks, rv.timeout_s);
      int st = w.status[0];
      bool ok = WIFEXITED(st) && WEXITSTATUS(st) == kExitOk;
      if (!ok) ++member_failures;
      std::fprintf(stderr, "rank %d: run %d/%d ended: %s\n", rv.rank, r, runs,
                   ok ? "success" : ("aborted, worker " + DescribeExit(st)).c_str());
      if (g_parent_interrupt || (WIFEXITED(st) && WEXITSTATUS(st) == kExitInterrupted)) {
        interrupted = true;
        break;
      }
      continue;
    }
    const int index = NextFreeIndex(p.dir);
    const std::string final_path = p.dir + "/result_" + std::to_string(index) + ".txt";
    const std::string part = final_path + ".part";
    int fd = ::open(part.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0)
      throw core::FileError(part, 0, std::string("cannot create: ") + std::strerror(errno));
    Workers w;
    try {
      w = StartWorkers(o, p, fd, seed, r, runs, ranks);
    } catch (...) {
      ::close(fd);
      throw;
    }
    ::close(fd);
    if (w.pids.size() > 1) {
      std::string list;
      for (size_t i = 0; i < w.pids.size(); ++i) {
        list += (i ? ", " : "") + std::to_string(ranks[i]) + "=" + std::to_string(w.pids[i]);
      }
      std::fprintf(stderr, "run %d/%d: worker processes (rank=pid): %s\n", r, runs, list.c_str());
    }
    WaitWorkers(w, ranks, rv.timeout_s);
    const int status = w.status[0];
    Finished f = FinalizeLog(part, final_path, status, seed);
    done.push_back(f);
    if (f.status == "success") {
      std::fprintf(stderr, "run %d/%d: success in %.2f min (%d epochs, %s %.4f, seed %llu) -> %s\n",
                   r, runs, f.minutes, f.epochs, p.scale->metric.c_str(), f.last_eval,
                   static_cast<unsigned long long>(seed), final_path.c_str());
    } else if (f.epochs == 0) {
      // No epoch, no evaluation: nothing to time or report but the reason.
      std::fprintf(stderr, "run %d/%d: aborted before its first epoch (seed %llu)%s%s -> %s\n", r,
                   runs, static_cast<unsigned long long>(seed), f.error.empty() ? "" : ": ",
                   f.error.c_str(), final_path.c_str());
    } else {
      std::fprintf(
          stderr,
          "run %d/%d: aborted after %.2f min (%d epochs, last %s %.4f, seed %llu)%s%s -> %s\n", r,
          runs, f.minutes, f.epochs, p.scale->metric.c_str(), f.last_eval,
          static_cast<unsigned long long>(seed), f.error.empty() ? "" : ": ", f.error.c_str(),
          final_path.c_str());
    }
    if (g_parent_interrupt || (WIFEXITED(status) && WEXITSTATUS(status) == kExitInterrupted) ||
        (WIFSIGNALED(status) && WTERMSIG(status) == SIGINT)) {
      interrupted = true;
      std::fprintf(stderr,
                   "trainbench: interrupted; run %d recorded as aborted, earlier runs kept\n", r);
      break;
    }
  }
  ::sigaction(SIGINT, &old_int, nullptr);
  ::sigaction(SIGTERM, &old_term, nullptr);

  if (!writes_results) {
    std::printf("rank %d: %d run(s) done, %d aborted; the results are in rank 0's %s\n", rv.rank,
                static_cast<int>(runs), member_failures, o.results.c_str());
    if (interrupted) return kExitInterrupted;
    return member_failures == 0 ? kExitOk : kExitFailure;
  }
  int converged = 0;
  double sum = 0;
  for (const auto& f : done) {
    if (f.status == "success") {
      ++converged;
      sum += f.minutes;
    }
  }
  std::printf("%s %s: %d of %zu run(s) reached %s >= %g", p.def.name.c_str(),
              p.scale->scale.c_str(), converged, done.size(), p.scale->metric.c_str(),
              p.scale->quality_target);
  if (converged > 0) std::printf("; mean time to train %.2f min", sum / converged);
  std::printf("\nlogs: %s/result_*.txt (summarize with: trainbench summarize %s)\n", p.dir.c_str(),
              o.results.c_str());
  if (interrupted) return kExitInterrupted;
  return converged == static_cast<int>(done.size()) ? kExitOk : kExitFailure;
}

}  // namespace trainbench::cli

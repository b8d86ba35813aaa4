#include "runner/result_files.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "core/error.h"
#include "core/eval_accuracy.h"
#include "core/log_reader.h"
#include "core/mllog.h"
#include "core/mllog_keys.h"

namespace trainbench::runner {

namespace fs = std::filesystem;
using core::Json;

void FdSink::operator()(const std::string& line) const {
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

namespace {

std::string ResultPath(const std::string& dir, int index) {
  return dir + "/result_" + std::to_string(index) + ".txt";
}

bool IndexTaken(const std::string& dir, int index) {
  const std::string p = ResultPath(dir, index);
  return fs::exists(p) || fs::exists(p + ".part");
}

}  // namespace

int NextFreeIndex(const std::string& dir) {
  int i = 1;
  while (IndexTaken(dir, i)) ++i;
  return i;
}

PartFile CreatePartFile(const std::string& dir) {
  for (int i = NextFreeIndex(dir);; ++i) {
    if (IndexTaken(dir, i)) continue;
    PartFile f;
    f.index = i;
    f.path = ResultPath(dir, i);
    f.part = f.path + ".part";
    f.fd = ::open(f.part.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
    if (f.fd >= 0) return f;
    if (errno == EEXIST) continue;
    throw core::FileError(f.part, 0, std::string("cannot create: ") + std::strerror(errno));
  }
}

std::string DescribeExit(int status) {
  if (WIFSIGNALED(status)) {
    return std::string("killed by signal ") + std::to_string(WTERMSIG(status)) + " (" +
           strsignal(WTERMSIG(status)) + ")";
  }
  return "exited with code " + std::to_string(WEXITSTATUS(status));
}

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

}  // namespace trainbench::runner

#include "runner/suite.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <regex>

#include "core/error.h"
#include "core/log_reader.h"
#include "core/mllog_keys.h"

namespace trainbench::runner {

namespace fs = std::filesystem;

namespace {

// How a finished log ended: its last run_stop's status and error ("" when absent).
struct Ending {
  std::string status, error;
};
Ending EndingOf(const std::string& path) {
  const core::ParsedLog log = core::ReadLogFile(path);
  for (auto it = log.records.rbegin(); it != log.records.rend(); ++it) {
    if (it->key != core::keys::kRunStop || !it->metadata.is_object()) continue;
    const auto text = [&](const char* field) {
      auto f = it->metadata.find(field);
      return f != it->metadata.end() && f->is_string() ? f->get<std::string>() : "";
    };
    return {text(core::keys::kMdStatus), text("error")};
  }
  return {};
}

// The user interrupted it: the harness's run_stop error, or the runner's appended run_stop for
// a worker killed by SIGINT (2) or SIGTERM (15).
bool Interrupted(const Ending& e) {
  return e.error == core::keys::kErrorInterrupted ||
         e.error.find("killed by signal 2 ") != std::string::npos ||
         e.error.find("killed by signal 15 ") != std::string::npos;
}

// The run index of result_<i>.txt (for ordering), 0 for another name.
int IndexOf(const std::string& name, const std::regex& re) {
  std::smatch m;
  return std::regex_match(name, m, re) ? std::stoi(m[1].str()) : 0;
}

std::string Clock(double minutes) {
  const long total = std::lround(std::max(0.0, minutes));
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%ld:%02ld", total / 60, total % 60);
  return buf;
}

}  // namespace

FolderRuns ScanResultsFolder(const std::string& dir) {
  FolderRuns out;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return out;
  static const std::regex kFinished("result_([0-9]+)\\.txt"), kPart("result_([0-9]+)\\.txt\\.part");
  std::vector<std::pair<int, std::string>> finished, parts;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (int i = IndexOf(name, kFinished); i > 0) finished.emplace_back(i, e.path().string());
    if (int i = IndexOf(name, kPart); i > 0) parts.emplace_back(i, e.path().string());
  }
  std::sort(finished.begin(), finished.end());
  std::sort(parts.begin(), parts.end());
  for (const auto& [i, path] : finished) {
    const Ending e = EndingOf(path);
    (Interrupted(e) ? out.interrupted : out.counted).push_back(path);
    if (!Interrupted(e) && e.status == core::keys::kStatusSuccess) ++out.succeeded;
  }
  for (const auto& [i, path] : parts) out.unfinished.push_back(path);
  return out;
}

std::vector<std::string> SetAsideInterrupted(const std::vector<std::string>& interrupted) {
  std::vector<std::string> moved;
  for (const std::string& path : interrupted) {
    const fs::path from(path);
    const fs::path dir = from.parent_path();
    const std::string stem = from.stem().string();  // result_2
    fs::path to = dir / (stem + ".interrupted.txt");
    for (int k = 2; fs::exists(to) || fs::is_symlink(to); ++k) {
      to = dir / (stem + ".interrupted." + std::to_string(k) + ".txt");
    }
    // link + unlink: unlike rename, never replaces a file that appeared in between.
    if (::link(from.c_str(), to.c_str()) != 0) {
      throw core::FileError(
          path, 0,
          "cannot set the interrupted run aside as " + to.string() + ": " + std::strerror(errno));
    }
    if (::unlink(from.c_str()) != 0) {
      throw core::FileError(
          path, 0, std::string("cannot remove after setting it aside: ") + std::strerror(errno));
    }
    moved.push_back(to.string());
  }
  return moved;
}

double EstimateMinutesLeft(const std::vector<SuiteItem>& items, double measured_minutes,
                           double measured_reference_minutes) {
  const double factor = measured_minutes > 0 && measured_reference_minutes > 0
                            ? measured_minutes / measured_reference_minutes
                            : 1.0;
  double left = 0;
  for (const SuiteItem& it : items) {
    const int runs_left = std::max(0, it.runs - it.done);
    if (runs_left == 0) continue;
    if (!(it.reference_minutes > 0)) return NAN;
    left += runs_left * it.reference_minutes * factor;
  }
  return left;
}

std::string SuiteLine(const std::string& scale, const std::vector<SuiteItem>& items, size_t current,
                      double elapsed_minutes, double minutes_left) {
  int done = 0, total = 0;
  for (const SuiteItem& it : items) {
    done += std::min(it.done, it.runs);
    total += it.runs;
  }
  std::string line =
      "suite " + scale + ": " + std::to_string(done) + "/" + std::to_string(total) + " runs done";
  if (current < items.size()) {
    const SuiteItem& it = items[current];
    line += "; now " + std::to_string(current + 1) + "/" + std::to_string(items.size()) + " " +
            it.benchmark + ", run " + std::to_string(std::min(it.done + 1, it.runs)) + "/" +
            std::to_string(it.runs);
  }
  line += "; " + Clock(elapsed_minutes) + " elapsed, ";
  line += std::isnan(minutes_left) ? "time left unknown (no reference time)"
                                   : "about " + Clock(minutes_left) + " left";
  return line;
}

}  // namespace trainbench::runner

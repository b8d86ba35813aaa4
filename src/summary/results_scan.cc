#include "summary/results_scan.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <system_error>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/strings.h"

namespace trainbench::summary {

namespace {

namespace fs = std::filesystem;

constexpr const char* kResultsFolder = "results";
constexpr const char* kSystemsFolder = "systems";
constexpr const char* kEntryJson = "entry.json";  // v0.5: results/<system>/entry.json
constexpr const char* kDivisionField = "division";
// Published system descriptions are a few KB; a bigger "entry.json" is not one.
constexpr uintmax_t kMaxDescriptionBytes = 1 << 20;

using core::EndsWith;

std::vector<std::string> Components(const fs::path& p) {
  std::vector<std::string> out;
  for (const auto& c : p) {
    std::string s = c.string();
    if (s.empty() || s == "/" || s == ".") continue;
    out.push_back(s);
  }
  return out;
}

// Reads the "division" field of a published system description; "" when unreadable.
class DivisionLookup {
 public:
  std::string Get(const fs::path& file) {
    auto key = file.string();
    auto it = cache_.find(key);
    if (it != cache_.end()) return it->second;
    std::string division;
    // A FIFO named entry.json would block the scan; anything unreadable only costs the division.
    std::error_code ec;
    if (fs::is_regular_file(file, ec) && fs::file_size(file, ec) <= kMaxDescriptionBytes && !ec) {
      try {
        core::Json j = core::ParseJson(core::ReadFile(key));
        if (j.is_object() && j.contains(kDivisionField) && j[kDivisionField].is_string()) {
          division = j[kDivisionField].get<std::string>();
        }
      } catch (const std::exception&) {
        // A malformed description only costs the division.
      }
    }
    cache_[key] = division;
    return division;
  }

 private:
  std::map<std::string, std::string> cache_;
};

// core::FileError messages start with "<path>: "; a FileIssue carries the path separately.
std::string StripPathPrefix(const std::string& msg, const std::string& path) {
  const std::string prefix = path + ": ";
  return msg.compare(0, prefix.size(), prefix) == 0 ? msg.substr(prefix.size()) : msg;
}

}  // namespace

bool IsResultFileName(const std::string& name) {
  const std::string prefix = "result_", suffix = ".txt";
  if (name.size() <= prefix.size() + suffix.size()) return false;
  if (name.compare(0, prefix.size(), prefix) != 0 || !EndsWith(name, suffix)) return false;
  for (size_t i = prefix.size(); i < name.size() - suffix.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(name[i]))) return false;
  }
  return true;
}

ScanResult ScanResults(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw core::FileError(dir, 0, "results directory not found");
  const fs::path root(dir);
  const std::vector<std::string> root_parts = Components(fs::absolute(root, ec).lexically_normal());

  std::vector<fs::path> files;
  fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec);
  if (ec) throw core::FileError(dir, 0, "cannot read results directory: " + ec.message());
  for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) break;
    const std::string name = it->path().filename().string();
    if (EndsWith(name, ".part") || name.find(".tmp.") != std::string::npos) continue;
    if (!IsResultFileName(name)) continue;
    files.push_back(it->path());
  }
  std::sort(files.begin(), files.end());

  ScanResult out;
  DivisionLookup divisions;
  for (const auto& file : files) {
    const std::string path = file.string();
    // Only regular files are read: a FIFO would block, a device never end; a folder named
    // like a result is no result either. Each is named as skipped.
    const std::string not_regular = core::NotRegularFileReason(path);
    if (!not_regular.empty()) {
      out.skipped.push_back({path, 0, not_regular + "; skipped"});
      continue;
    }
    std::optional<RunResult> run;
    std::vector<FileIssue> warnings;
    FileIssue skip;
    try {
      run = ExtractRun(core::ReadLogFile(path), &skip, &warnings);
    } catch (const std::exception& e) {
      // Whatever one file does, the others are still read; the file is named as skipped.
      out.skipped.push_back({path, 0, StripPathPrefix(e.what(), path)});
      continue;
    }
    out.warnings.insert(out.warnings.end(), warnings.begin(), warnings.end());
    if (!run) {
      out.skipped.push_back(skip);
      continue;
    }

    // Folder layout: all components from the filesystem root, so a DIR that is itself the
    // system or benchmark folder still names them.
    std::vector<std::string> rel = Components(file.lexically_relative(root));
    std::vector<std::string> parts = root_parts;
    parts.insert(parts.end(), rel.begin(), rel.end());
    const size_t n = parts.size();  // parts[n - 1] is the file name
    if (n >= 2) run->benchmark_folder = parts[n - 2];
    if (n >= 3) run->system = parts[n - 3];
    if (n >= 4 && parts[n - 4] == kResultsFolder && n - 4 >= root_parts.size()) {
      // Published layout with its results/ folder inside DIR: name the system by the folders
      // above results/ (org, v0.5 org/submission), or DIR's own name when results/ is on top.
      std::string prefix;
      for (size_t i = root_parts.size(); i < n - 4; ++i) {
        prefix += (prefix.empty() ? "" : "/") + parts[i];
      }
      if (prefix.empty() && !root_parts.empty()) prefix = root_parts.back();
      if (!prefix.empty()) run->system = prefix + "/" + parts[n - 3];
    }

    if (run->division.empty() && n >= 3) {
      fs::path system_dir = file.parent_path().parent_path();
      run->division = divisions.Get(system_dir / kEntryJson);
      if (run->division.empty() && n >= 4 && parts[n - 4] == kResultsFolder) {
        run->division = divisions.Get(system_dir.parent_path().parent_path() / kSystemsFolder /
                                      (parts[n - 3] + ".json"));
      }
    }
    out.runs.push_back(std::move(*run));
  }
  return out;
}

}  // namespace trainbench::summary

#include "compliance/check_command.h"

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "compliance/checker.h"
#include "compliance/rules.h"
#include "core/error.h"
#include "core/log_reader.h"
#include "core/strings.h"

namespace trainbench::compliance {

namespace fs = std::filesystem;

namespace {

using core::EndsWith;

bool IsResultFileName(const std::string& name) {
  if (EndsWith(name, ".part") || name.find(".tmp.") != std::string::npos) return false;
  return name.rfind("result_", 0) == 0 && EndsWith(name, ".txt");
}

int BadInput(std::ostream& out, const std::string& message) {
  out << "trainbench check: error: " << message << "\n";
  return kExitBadInput;
}

}  // namespace

std::vector<std::string> FindResultFiles(const std::string& dir,
                                         std::vector<std::string>* not_regular) {
  std::vector<std::string> out;
  std::error_code ec;
  fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec);
  if (ec) throw core::FileError(dir, 0, "cannot read directory: " + ec.message());
  for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) throw core::FileError(dir, 0, "cannot read directory: " + ec.message());
    std::error_code fec;
    if (!IsResultFileName(it->path().filename().string())) continue;
    if (it->is_regular_file(fec)) {
      out.push_back(it->path().string());
    } else if (not_regular) {
      not_regular->push_back(it->path().string());
    }
  }
  std::sort(out.begin(), out.end());
  if (not_regular) std::sort(not_regular->begin(), not_regular->end());
  return out;
}

int RunCheckCommand(const std::vector<std::string>& paths, const std::string& ruleset,
                    const std::string& rules_dir, std::ostream& out) {
  if (paths.empty()) return BadInput(out, "no log file or results folder given");
  Ruleset rs;
  try {
    rs = LoadRuleset(rules_dir, ruleset);
  } catch (const core::Error& e) {
    return BadInput(out, e.what());
  }

  // Resolve every path before checking anything, so bad input checks nothing.
  std::vector<std::string> logs;
  bool folder_given = false;
  for (const auto& p : paths) {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      folder_given = true;
      std::vector<std::string> found, not_regular;
      try {
        found = FindResultFiles(p, &not_regular);
      } catch (const core::Error& e) {
        return BadInput(out, e.what());
      }
      // A FIFO would block the check, a folder is no log: named, not read.
      for (const auto& n : not_regular) {
        out << n << ": skipped: " << core::NotRegularFileReason(n) << "\n";
      }
      if (found.empty()) return BadInput(out, p + ": no result_*.txt files below this folder");
      logs.insert(logs.end(), found.begin(), found.end());
    } else if (fs::is_regular_file(p, ec)) {
      logs.push_back(p);
    } else {
      return BadInput(out, p + ": no such file or folder");
    }
  }

  int failed = 0;
  for (const auto& path : logs) {
    CheckReport report;
    try {
      report = CheckLogFile(path, rs);
    } catch (const std::exception& e) {
      // A log that cannot be read (or judged) fails alone; the others are still checked and
      // the overall line still comes. core::FileError messages start with the path.
      std::string why = e.what();
      if (why.rfind(path + ": ", 0) == 0) why = why.substr(path.size() + 2);
      out << "checking " << path << " against ruleset " << rs.name << "\n";
      out << path << ": error: cannot check this log: " << why << "\n";
      out << path << ": FAILED (cannot be read)\n";
      ++failed;
      continue;
    }
    WriteReport(report, out);
    if (!report.passed()) ++failed;
  }
  if (logs.size() > 1 || folder_given) {
    const int n = static_cast<int>(logs.size());
    if (failed == 0) {
      out << "overall: SUCCESS (" << n << (n == 1 ? " log" : " logs") << " checked against "
          << rs.name << ", all passed)\n";
    } else {
      out << "overall: FAILED (" << failed << " of " << n << (n == 1 ? " log" : " logs")
          << " failed against " << rs.name << ")\n";
    }
  }
  return failed == 0 ? kExitPass : kExitFail;
}

}  // namespace trainbench::compliance

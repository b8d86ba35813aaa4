#include "rcp/rcp_command.h"

#include <algorithm>
#include <filesystem>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/strings.h"
#include "rcp/rcp_file.h"

namespace trainbench::rcp {

namespace fs = std::filesystem;

std::vector<std::string> FindResultLogs(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec);
  if (ec) throw core::FileError(dir, 0, "cannot read directory: " + ec.message());
  for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) throw core::FileError(dir, 0, "cannot read directory: " + ec.message());
    const std::string name = it->path().filename().string();
    if (name.rfind("result_", 0) != 0 || !core::EndsWith(name, ".txt")) continue;
    std::error_code fec;
    if (it->is_regular_file(fec)) out.push_back(it->path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

int RunRcpBuildCommand(const BuildOptions& o, std::ostream& out, std::ostream& err) {
  try {
    if (o.paths.empty()) throw core::Error("no results folder or log given");
    if (!IsKnownRuleset(o.ruleset)) throw core::Error("unknown RCP ruleset " + o.ruleset);
    std::vector<std::string> logs;
    for (const auto& p : o.paths) {
      std::error_code ec;
      if (fs::is_directory(p, ec)) {
        auto found = FindResultLogs(p);
        if (found.empty()) throw core::FileError(p, 0, "no result_*.txt files below this folder");
        logs.insert(logs.end(), found.begin(), found.end());
      } else if (fs::exists(p, ec)) {
        logs.push_back(p);
      } else {
        throw core::FileError(p, 0, "no such file or folder");
      }
    }
    ReadOptions ro;
    ro.ruleset = o.ruleset;
    ro.bert_train_samples = o.bert_train_samples;
    std::vector<LogConvergence> runs;
    for (const auto& l : logs) runs.push_back(ReadConvergenceFile(l, ro));
    RcpOptions opt;
    opt.ruleset = o.ruleset;
    std::vector<std::string> skipped;
    const core::Json j = BuildRcpJson(runs, opt, &skipped);
    for (const auto& s : skipped) err << s << ": did not converge, left out of the RCP\n";
    const std::string text = j.dump(2) + "\n";
    if (o.output.empty()) {
      out << text;
    } else {
      core::WriteFileAtomically(o.output, text);
      for (const auto& [name, rec] : j.items()) {
        err << o.output << ": " << name << ": " << rec["Epochs to converge"].size()
            << " runs, olympic mean "
            << core::PythonJsonDumps(rec["trainbench"]["stats"]["olympic_mean_epochs"])
            << " epochs, min acceptable "
            << core::PythonJsonDumps(rec["trainbench"]["stats"]["min_epochs"]) << "\n";
      }
    }
    return 0;
  } catch (const core::Error& e) {
    err << "trainbench rcp build: error: " << e.what() << "\n";
    return 2;
  }
}

}  // namespace trainbench::rcp

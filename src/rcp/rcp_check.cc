#include "rcp/rcp_check.h"

#include <filesystem>

#include "core/error.h"
#include "rcp/rcp_file.h"

namespace trainbench::rcp {

SetResult CheckSet(const std::vector<std::string>& logs, const SetOptions& o) {
  SetResult res;
  ReadOptions ro;
  ro.ruleset = o.ruleset;
  ro.bert_train_samples = o.bert_train_samples;
  for (const auto& path : logs) res.logs.push_back(ReadConvergenceFile(path, ro));

  // rcp_checker.get_submission_epochs: the batch size is the first one logged (a log without one
  // does not count against the others), the benchmark the first log's.
  core::Json bs = -1;
  std::optional<std::string> benchmark;
  int not_converged = 0;
  std::vector<double> epochs;
  std::string mismatch;
  for (const auto& l : res.logs) {
    epochs.push_back(l.epochs);
    if (!l.converged) ++not_converged;
    if (bs == -1) {
      bs = l.bs;
    } else if (l.bs != bs) {
      mismatch = "Batch sizes in files do not match";
      break;
    }
    if (!benchmark) {
      benchmark = l.benchmark;
    } else if (l.benchmark != benchmark) {
      mismatch = "Benchmark names in files do not match";
      break;
    }
  }
  res.benchmark = benchmark.value_or("");
  res.bs_text = core::PythonJsonDumps(bs);
  if (!mismatch.empty()) {
    // The official checker stops with an exception here (it looks up benchmark None).
    res.verdict.message = mismatch;
    return res;
  }
  if (bs == -1 || !bs.is_number()) {
    res.verdict.message = "Could not detect global_batch_size";
    return res;
  }
  const int allowed = res.benchmark == "unet3d" ? 4 : 1;
  if (not_converged > allowed) {
    res.verdict.message = "Insufficient convergence";
    return res;
  }

  std::string scale, tb_benchmark;
  for (const auto& l : res.logs) {
    if (scale.empty()) scale = l.trainbench_scale;
    if (tb_benchmark.empty()) tb_benchmark = l.trainbench_benchmark;
  }
  if (scale.empty()) scale = "mini";
  res.rcp_file = o.rcp_file;
  if (res.rcp_file.empty()) {
    if (tb_benchmark.empty()) {
      res.verdict.outcome = Outcome::kMissing;
      res.verdict.message =
          "no RCP data: the logs name no trainbench_benchmark (give --rcp-file FILE)";
      return res;
    }
    res.rcp_file = RcpFilePath(tb_benchmark, scale);
    std::error_code ec;
    if (!std::filesystem::exists(res.rcp_file, ec)) {
      res.verdict.outcome = Outcome::kMissing;
      res.verdict.message = "no RCP data: " + res.rcp_file + " does not exist";
      return res;
    }
  }
  std::vector<RcpRecord> records = LoadRcpFile(res.rcp_file);
  for (const auto& r : records) {
    if (r.benchmark != res.benchmark) {
      res.warnings.push_back("RCP record " + r.name + " is for " + r.benchmark + ", the logs for " +
                             res.benchmark);
    }
  }
  RcpOptions opt;
  opt.ruleset = o.ruleset;
  opt.pruned = o.pruned;
  opt.submission_runs = SubmissionRuns(res.benchmark, scale);
  res.submission_runs = opt.submission_runs;
  const RcpSet set = MakeRcpSet(std::move(records), opt);
  res.verdict = Evaluate(set, bs.get<double>(), res.bs_text, epochs, opt);
  return res;
}

}  // namespace trainbench::rcp

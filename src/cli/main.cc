// trainbench: the command-line front end. Flags live here only; every command takes an
// options struct (commands.h). Expected failures (core::Error) print "trainbench: <message>"
// and exit 2; broken invariants abort.
#include <CLI/CLI.hpp>

#include <charconv>
#include <exception>
#include <iostream>
#include <limits>

#include "cli/commands.h"
#include "compliance/check_command.h"
#include "core/error.h"
#include "core/paths.h"
#include "go/game.h"
#include "coco/score_command.h"
#include "metrics/score_command.h"
#include "report/history_command.h"
#include "report/history_import.h"
#include "report/report_command.h"
#include "summary/compare_command.h"
#include "summary/summarize_command.h"

namespace {

using namespace trainbench;

// A non-negative decimal integer that fits in a long long, exactly ("99999999999999999999" was
// silently clamped to 2^63-1, "-5" meant "random").
const CLI::Validator kSeed(
    [](const std::string& s) -> std::string {
      long long v = 0;
      auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
      if (s.empty() || s[0] == '-' || s[0] == '+' || ec != std::errc() || end != s.data() + s.size()) {
        return "a seed is an integer in 0.." + std::to_string(std::numeric_limits<long long>::max()) +
               ", got \"" + s + "\"";
      }
      return "";
    },
    "SEED");
// Komi: a finite decimal number (go::ParseKomi, as the GTP command takes it); CLI11 alone took
// "nan", "inf" and "0x10".
const CLI::Validator kKomi(
    [](const std::string& s) -> std::string {
      return go::ParseKomi(s) ? "" : "komi is a finite decimal number within +-1000, got \"" + s + "\"";
    },
    "KOMI");

int Main(int argc, char** argv) {
  CLI::App app{"trainbench: time-to-train benchmarks for ML training systems (MLPerf Training style)"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "trainbench 0.1.0");

  cli::ListOptions list;
  auto* list_cmd = app.add_subcommand("list", "List the benchmarks: scale, dataset, quality target, runs, reference time");
  list_cmd->add_flag("--json", list.json, "Print JSON");

  cli::PrepareOptions prep;
  auto* prep_cmd = app.add_subcommand("prepare", "Prepare (or verify) a benchmark's dataset");
  prep_cmd->add_option("benchmark", prep.benchmark, "Benchmark name (see `trainbench list`)")->required();
  prep_cmd->add_option("--scale", prep.scale, "mini or full")->capture_default_str();
  prep_cmd->add_option("--data", prep.data_dir, "Dataset directory (default: the definition's)");
  prep_cmd->add_option("--set", prep.set, "Generator option key=value for generated datasets (repeatable)");

  cli::RunOptions run;
  auto* run_cmd = app.add_subcommand("run", "Train a benchmark to its quality target, N times, one MLLOG log per run");
  run_cmd->add_option("benchmark", run.benchmark, "Benchmark name (see `trainbench list`)")->required();
  run_cmd->add_option("--scale", run.scale, "mini or full")->capture_default_str();
  run_cmd->add_option("--runs", run.runs, "Number of runs (default: the benchmark's runs per result)")
      ->check(CLI::Range(1, 1000));
  run_cmd->add_option("--seed", run.seed, "Base seed; run i uses seed+i-1 (default: random)")->check(kSeed);
  run_cmd->add_option("--threads", run.threads,
                      "Intra-op threads (default: all logical CPUs; more than the CPUs needs --oversubscribe)")
      ->check(CLI::Range(1, 4096));
  run_cmd->add_option("--loader-threads", run.loader_threads, "Data-loading worker threads")
      ->check(CLI::Range(0, 256))
      ->capture_default_str();
  run_cmd->add_option("--division", run.division, "closed or open")->capture_default_str();
  run_cmd->add_option("--results", run.results, "Results directory")->capture_default_str();
  run_cmd->add_option("--system", run.system, "System name (default: the host name)");
  run_cmd->add_option("--org", run.org, "Submitting organisation")->capture_default_str();
  run_cmd->add_option("--data", run.data_dir, "Dataset directory (default: the definition's)");
  run_cmd->add_option("--device", run.device, "cpu or cuda[:N]")->capture_default_str();
  run_cmd->add_option("--set", run.set, "Hyperparameter override key=value (repeatable)");
  run_cmd->add_option("--tuning", run.tuning,
                      "System tuning: a name under configs/tunings (e.g. optimized) or a YAML file; its settings "
                      "for this benchmark apply before --set (docs/performance.md)");
  run_cmd->add_option("--max-steps", run.max_steps, "Step budget per run, for tests (the run ends aborted)")
      ->check(CLI::Range(1LL, std::numeric_limits<long long>::max() / 2));
  run_cmd->add_option("--max-epochs", run.max_epochs, "Epoch limit per run below the definition's, for tests and probes (a run that has not converged by then ends aborted)")
      ->check(CLI::Range(1, 1000000));
  run_cmd->add_option("--nproc", run.nproc,
                      "Data-parallel: start N worker processes on this machine (Gloo; at most the CPUs unless --oversubscribe)")
      ->check(CLI::Range(0, 4096));
  run_cmd->add_option("--rank", run.rank, "Data-parallel over machines: this process's rank (or RANK, OMPI_COMM_WORLD_RANK, ...)")
      ->check(CLI::Range(0, 1 << 20));
  run_cmd->add_option("--world-size", run.world_size, "Data-parallel over machines: number of ranks (or WORLD_SIZE, ...)")
      ->check(CLI::Range(1, 1 << 20));
  run_cmd->add_option("--master", run.master, "Data-parallel over machines: rank 0's ADDR:PORT (or MASTER_ADDR, MASTER_PORT)");
  run_cmd->add_option("--dist-timeout", run.dist_timeout, "Seconds a rank waits for the others before the run aborts")
      ->check(CLI::Range(0.001, 7 * 86400.0))
      ->capture_default_str();
  run_cmd->add_flag("--oversubscribe", run.oversubscribe,
                    "Allow more worker processes (--nproc, a tuning's launch.nproc) or threads than this machine's "
                    "logical CPUs (a time measured so is not representative)");
  bool no_progress = false;
  run_cmd->add_flag("--no-progress", no_progress, "No live progress line on stderr");

  std::vector<std::string> check_paths;
  std::string ruleset = "trainbench-1.0";
  std::string rules_dir;
  auto* check_cmd = app.add_subcommand("check", "Check the compliance of a log or a results folder");
  check_cmd->add_option("paths", check_paths, "Log files or results folders")->required();
  check_cmd->add_option("--ruleset", ruleset, "Rule set (folder under rules/): trainbench-1.0, 0.7.0, 4.0.0")->capture_default_str();
  check_cmd->add_option("--rules-dir", rules_dir, "Where rule sets live (default: the installed rules/)");

  std::vector<std::string> sum_dirs;
  bool sum_json = false, sum_csv = false;
  auto* sum_cmd = app.add_subcommand("summarize", "Olympic scores per benchmark and system from results folders");
  sum_cmd->add_option("results", sum_dirs, "Results folders")->required();
  auto* jf = sum_cmd->add_flag("--json", sum_json, "Print JSON");
  sum_cmd->add_flag("--csv", sum_csv, "Print CSV")->excludes(jf);
  std::string sum_db;
  bool sum_no_history = false;
  sum_cmd->add_option("--db", sum_db, "Results history database (default: the user's data folder)");
  sum_cmd->add_flag("--no-history", sum_no_history, "Do not record the runs in the results history");

  std::string cmp_a, cmp_b;
  bool cmp_json = false;
  auto* cmp_cmd = app.add_subcommand("compare", "A/B comparison of two results folders: ratio of olympic means, bootstrap CI, Mann-Whitney U");
  cmp_cmd->add_option("results_a", cmp_a, "Results folder A (the baseline)")->required();
  cmp_cmd->add_option("results_b", cmp_b, "Results folder B (compared against A)")->required();
  cmp_cmd->add_flag("--json", cmp_json, "Print JSON");

  report::ReportOptions rep;
  bool rep_no_history = false;
  auto* rep_cmd = app.add_subcommand("report", "Self-contained HTML report (plots, scores, runs) of results folders");
  rep_cmd->add_option("results", rep.dirs, "Results folders")->required();
  rep_cmd->add_option("-o,--output", rep.output, "HTML file to write")->required();
  rep_cmd->add_option("--baseline", rep.baseline_system, "System the speed-ups are relative to");
  rep_cmd->add_option("--db", rep.db_path, "Results history database (default: the user's data folder)");
  rep_cmd->add_flag("--no-history", rep_no_history, "Do not record the runs in the results history");

  report::HistoryOptions hist;
  auto* hist_cmd = app.add_subcommand("history", "Olympic times per git revision from the results history");
  hist_cmd->add_option("benchmark", hist.benchmark, "Benchmark (trainbench or MLPerf name; default: all)");
  hist_cmd->add_option("--system", hist.system, "Only this system");
  hist_cmd->add_option("--db", hist.db_path, "Results history database (default: the user's data folder)");

  metrics::ScoreBleuOptions bleu;
  coco::ScoreCocoOptions coco_score;
  cli::GtpOptions gtp;
  auto* gtp_cmd = app.add_subcommand("gtp", "Play Go over the Go Text Protocol on stdin/stdout (MiniGo-style player)");
  gtp_cmd->add_option("--size", gtp.size, "Board size")->check(CLI::Range(2, 19))->capture_default_str();
  gtp_cmd->add_option("--komi", gtp.komi, "Komi")->check(kKomi)->capture_default_str();
  gtp_cmd->add_option("--player", gtp.player, "mcts (network + search) or random")->capture_default_str();
  gtp_cmd->add_option("--weights", gtp.weights, "Network parameters (torch::save of the GoNet); default: untrained");
  gtp_cmd->add_option("--filters", gtp.filters, "Network width")->check(CLI::Range(1, 1024))->capture_default_str();
  gtp_cmd->add_option("--blocks", gtp.blocks, "Residual blocks")->check(CLI::Range(0, 100))->capture_default_str();
  gtp_cmd->add_option("--readouts", gtp.readouts, "MCTS readouts per move")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  gtp_cmd->add_option("--threads", gtp.threads, "Intra-op threads")->check(CLI::Range(1, 4096))->capture_default_str();
  gtp_cmd->add_option("--seed", gtp.seed, "Seed (network init and search noise)")->check(kSeed)->capture_default_str();

  auto* score_cmd = app.add_subcommand("score", "Score your own outputs with a benchmark's quality metric");
  score_cmd->require_subcommand(1);
  auto* bleu_cmd = score_cmd->add_subcommand("bleu", "Corpus BLEU of a hypothesis file against a reference file (docs/bleu.md)");
  bleu_cmd->add_option("ref_file", bleu.ref_file, "Reference translations, one segment per line (UTF-8)")->required();
  bleu_cmd->add_option("hyp_file", bleu.hyp_file, "Hypotheses, line-aligned with the references (UTF-8)")->required();
  bleu_cmd->add_option("--tokenize", bleu.tokenize, "13a, intl (sacreBLEU) or t2t (t2t compute_bleu), or none")
      ->check(CLI::IsMember({"13a", "intl", "t2t", "none"}))
      ->capture_default_str();
  bleu_cmd->add_flag("--lowercase", bleu.lowercase, "Uncased BLEU (Python's str.lower() on both sides)");
  bleu_cmd->add_flag("--json", bleu.json, "Print JSON");
  auto* coco_cmd = score_cmd->add_subcommand("coco", "COCO detection metrics (the 12 numbers) of a results file (docs/coco_eval.md)");
  coco_cmd->add_option("gt_file", coco_score.gt_file, "Ground truth: COCO instances JSON (e.g. instances_val2017.json)")->required();
  coco_cmd->add_option("results_file", coco_score.results_file,
                       "Detections: COCO results JSON, a list of {image_id, category_id, bbox or segmentation, score}")
      ->required();
  coco_cmd->add_option("--iou-type", coco_score.iou_type, "bbox (box IoU) or segm (mask IoU on RLE masks)")
      ->check(CLI::IsMember({"bbox", "segm"}))
      ->capture_default_str();
  coco_cmd->add_flag("--json", coco_score.json, "Print JSON");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : cli::kExitBadInput;
  }

  if (*list_cmd) return cli::RunList(list);
  if (*gtp_cmd) return cli::RunGtp(gtp);
  if (*prep_cmd) return cli::RunPrepare(prep);
  if (*run_cmd) {
    run.progress = !no_progress;
    return cli::RunRun(run);
  }
  if (*check_cmd) {
    return compliance::RunCheckCommand(check_paths, ruleset,
                                       rules_dir.empty() ? core::RulesDir() : rules_dir, std::cout);
  }
  if (*sum_cmd) {
    int rc = summary::RunSummarizeCommand(sum_dirs, sum_json ? "json" : (sum_csv ? "csv" : "table"),
                                          std::cout, std::cerr);
    if (rc == 0 && !sum_no_history) report::RecordHistory(sum_dirs, sum_db, std::cerr);
    return rc;
  }
  if (*cmp_cmd) {
    return summary::RunCompareCommand(cmp_a, cmp_b, cmp_json ? "json" : "table", std::cout, std::cerr);
  }
  if (*rep_cmd) {
    rep.record_history = !rep_no_history;
    return report::RunReportCommand(rep, std::cout, std::cerr);
  }
  if (*hist_cmd) return report::RunHistoryCommand(hist, std::cout, std::cerr);
  if (*bleu_cmd) return metrics::RunScoreBleuCommand(bleu, std::cout);
  if (*coco_cmd) return coco::RunScoreCocoCommand(coco_score, std::cout, std::cerr);
  return cli::kExitBadInput;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return Main(argc, argv);
  } catch (const trainbench::core::Error& e) {
    std::cerr << "trainbench: " << e.what() << "\n";
    return trainbench::cli::kExitBadInput;
  } catch (const std::exception& e) {
    std::cerr << "trainbench: error: " << e.what() << "\n";
    return trainbench::cli::kExitFailure;
  }
}

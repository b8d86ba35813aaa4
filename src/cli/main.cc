// trainbench: the command-line front end. Flags live here only; every command takes an
// options struct (commands.h). Expected failures (core::Error) print "trainbench: <message>"
// and exit 2; broken invariants abort.
#include <CLI/CLI.hpp>
#include <charconv>
#include <exception>
#include <functional>
#include <iostream>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "coco/score_command.h"
#include "compliance/check_command.h"
#include "core/error.h"
#include "core/paths.h"
#include "go/game.h"
#include "metrics/score_command.h"
#include "package/package.h"
#include "rcp/rcp_command.h"
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
      if (s.empty() || s[0] == '-' || s[0] == '+' || ec != std::errc() ||
          end != s.data() + s.size()) {
        return "a seed is an integer in 0.." +
               std::to_string(std::numeric_limits<long long>::max()) + ", got \"" + s + "\"";
      }
      return "";
    },
    "SEED");
// Komi: a finite decimal number (go::ParseKomi, as the GTP command takes it); CLI11 alone took
// "nan", "inf" and "0x10".
const CLI::Validator kKomi(
    [](const std::string& s) -> std::string {
      return go::ParseKomi(s) ? ""
                              : "komi is a finite decimal number within +-1000, got \"" + s + "\"";
    },
    "KOMI");

// One subcommand: its node in the parser, and what runs it once the flags have been parsed into
// the options it holds.
struct Command {
  CLI::App* app;
  std::function<int()> run;
};

Command AddList(CLI::App& app) {
  auto o = std::make_shared<cli::ListOptions>();
  auto* cmd = app.add_subcommand(
      "list", "List the benchmarks: scale, dataset, quality target, runs, reference time");
  cmd->add_flag("--json", o->json, "Print JSON");
  cmd->add_flag("--tunings", o->tunings,
                "The tunings (configs/tunings) instead: for each benchmark and scale, the entry "
                "that applies on this machine's CPU and why");
  return {cmd, [o] { return cli::RunList(*o); }};
}

Command AddPrepare(CLI::App& app) {
  auto o = std::make_shared<cli::PrepareOptions>();
  auto* cmd = app.add_subcommand("prepare", "Prepare (or verify) a benchmark's dataset");
  cmd->add_option("benchmark", o->benchmark, "Benchmark name (see `trainbench list`)")->required();
  cmd->add_option("--scale", o->scale, "mini or full")->capture_default_str();
  cmd->add_option("--data", o->data_dir, "Dataset directory (default: the definition's)");
  cmd->add_option("--set", o->set,
                  "Generator option key=value for generated datasets (repeatable)");
  return {cmd, [o] { return cli::RunPrepare(*o); }};
}

// The data-parallel flags of `run` (docs/data_parallel.md).
void AddRunLayoutFlags(CLI::App* cmd, cli::RunOptions& run) {
  cmd->add_option("--nproc", run.nproc,
                  "Data-parallel: start N worker processes on this machine (Gloo; at most the CPUs "
                  "unless --oversubscribe)")
      ->check(CLI::Range(0, 4096));
  cmd->add_option(
         "--rank", run.rank,
         "Data-parallel over machines: this process's rank (or RANK, OMPI_COMM_WORLD_RANK, ...)")
      ->check(CLI::Range(0, 1 << 20));
  cmd->add_option("--world-size", run.world_size,
                  "Data-parallel over machines: number of ranks (or WORLD_SIZE, ...)")
      ->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--master", run.master,
                  "Data-parallel over machines: rank 0's ADDR:PORT (or MASTER_ADDR, MASTER_PORT)");
  cmd->add_option("--dist-timeout", run.dist_timeout,
                  "Seconds a rank waits for the others before the run aborts")
      ->check(CLI::Range(0.001, 7 * 86400.0))
      ->capture_default_str();
  cmd->add_flag("--oversubscribe", run.oversubscribe,
                "Allow more worker processes (--nproc, a tuning's launch.nproc) or threads than "
                "this machine's "
                "logical CPUs (a time measured so is not representative)");
}

Command AddRun(CLI::App& app, char** argv) {
  struct Flags {
    cli::RunOptions run;
    std::vector<std::string> benchmarks;
    std::string suite;
    bool no_progress = false;
  };
  auto f = std::make_shared<Flags>();
  cli::RunOptions& run = f->run;
  auto* cmd = app.add_subcommand(
      "run", "Train a benchmark to its quality target, N times, one MLLOG log per run");
  cmd->add_option("benchmark", f->benchmarks,
                  "Benchmark name (see `trainbench list`); with --suite, the benchmarks of the "
                  "suite (default: all)");
  auto* suite = cmd->add_option(
      "--suite", f->suite,
      "Run the suite of a scale (mini or full): every benchmark in turn to its runs "
      "per result; the same command resumes an interrupted suite; ends with the "
      "summary and an HTML report (docs/suite.md)");
  cmd->add_option("--scale", run.scale, "mini or full")->capture_default_str()->excludes(suite);
  cmd->add_option("--runs", run.runs,
                  "Number of runs (default: the benchmark's runs per result; with --suite, of "
                  "each benchmark)")
      ->check(CLI::Range(1, 1000));
  cmd->add_option("--seed", run.seed, "Base seed; run i uses seed+i-1 (default: random)")
      ->check(kSeed);
  cmd->add_option(
         "--threads", run.threads,
         "Intra-op threads (default: all logical CPUs; more than the CPUs needs --oversubscribe)")
      ->check(CLI::Range(1, 4096));
  cmd->add_option("--loader-threads", run.loader_threads, "Data-loading worker threads")
      ->check(CLI::Range(0, 256))
      ->capture_default_str();
  cmd->add_option("--division", run.division, "closed or open")->capture_default_str();
  cmd->add_option("--results", run.results, "Results directory")->capture_default_str();
  cmd->add_option("--system", run.system, "System name (default: the host name)");
  cmd->add_option("--org", run.org, "Submitting organisation")->capture_default_str();
  cmd->add_option("--data", run.data_dir, "Dataset directory (default: the definition's)");
  cmd->add_option("--device", run.device, "cpu or cuda[:N]")->capture_default_str();
  cmd->add_option("--set", run.set, "Hyperparameter override key=value (repeatable)");
  cmd->add_option(
      "--tuning", run.tuning,
      "System tuning: a name under configs/tunings (e.g. optimized) or a YAML file; its settings "
      "for this benchmark apply before --set (docs/performance.md)");
  cmd->add_option("--max-steps", run.max_steps,
                  "Step budget per run, for tests (the run ends aborted)")
      ->check(CLI::Range(1LL, std::numeric_limits<long long>::max() / 2));
  cmd->add_option("--max-epochs", run.max_epochs,
                  "Epoch limit per run below the definition's, for tests and probes (a run that "
                  "has not converged by then ends aborted)")
      ->check(CLI::Range(1, 1000000));
  AddRunLayoutFlags(cmd, run);
  cmd->add_flag("--no-progress", f->no_progress, "No live progress line on stderr");
  return {cmd, [f, argv] {
#ifdef TRAINBENCH_DELEGATE_TO_TORCH
            cli::ExecTorchBinary(argv);  // the flags were checked here; trainbench-torch trains
#endif
            f->run.progress = !f->no_progress;
            if (!f->suite.empty()) {
              cli::SuiteOptions s;
              s.run = f->run;
              s.run.scale = f->suite;
              s.benchmarks = f->benchmarks;
              return cli::RunSuite(s);
            }
            if (f->benchmarks.size() != 1) {
              throw core::Error(f->benchmarks.empty()
                                    ? "run: name a benchmark (see `trainbench list`), or --suite "
                                      "mini|full"
                                    : "run: one benchmark at a time; several need --suite");
            }
            f->run.benchmark = f->benchmarks.front();
            return cli::RunRun(f->run);
          }};
}

Command AddCheck(CLI::App& app) {
  struct Flags {
    std::vector<std::string> paths;
    std::string ruleset = "trainbench-1.0";
    std::string rules_dir;
    bool rcp = false;
    compliance::RcpCheckOptions rcp_options;
    std::string rcp_pass = "pruned";
  };
  auto f = std::make_shared<Flags>();
  auto* cmd = app.add_subcommand("check", "Check the compliance of a log or a results folder");
  cmd->add_option("paths", f->paths, "Log files or results folders")->required();
  cmd->add_option("--ruleset", f->ruleset,
                  "Rule set (folder under rules/): trainbench-1.0, 0.7.0, 4.0.0")
      ->capture_default_str();
  cmd->add_option("--rules-dir", f->rules_dir,
                  "Where rule sets live (default: the installed rules/)");
  cmd->add_flag("--rcp", f->rcp,
                "Run the RCP convergence test (mlperf_logging's rcp_checker) on each results "
                "folder instead of the rules");
  cmd->add_option("--rcp-file", f->rcp_options.rcp_file,
                  "RCP file (default: configs/rcp/<benchmark>_<scale>.json from the logs)");
  cmd->add_option("--rcp-version", f->rcp_options.ruleset, "Official RCP ruleset version")
      ->capture_default_str();
  cmd->add_option("--rcp-pass", f->rcp_pass, "Judge against the pruned or the full RCP set")
      ->check(CLI::IsMember({"pruned", "full"}))
      ->capture_default_str();
  cmd->add_flag("--bert-train-samples", f->rcp_options.bert_train_samples,
                "bert: samples to converge from train_samples (official --bert_train_samples)");
  return {cmd, [f] {
            if (f->rcp) {
              f->rcp_options.pruned = f->rcp_pass == "pruned";
              return compliance::RunCheckRcpCommand(f->paths, f->rcp_options, std::cout);
            }
            return compliance::RunCheckCommand(
                f->paths, f->ruleset, f->rules_dir.empty() ? core::RulesDir() : f->rules_dir,
                std::cout);
          }};
}

Command AddRcp(CLI::App& app) {
  auto o = std::make_shared<rcp::BuildOptions>();
  auto* rcp_cmd = app.add_subcommand(
      "rcp", "Reference convergence points (RCP): build them from reference runs");
  rcp_cmd->require_subcommand(1);
  auto* cmd = rcp_cmd->add_subcommand(
      "build", "Build an RCP file (official rcps_*.json layout) from reference result logs");
  cmd->add_option("results", o->paths, "Results folders or logs of reference runs")->required();
  cmd->add_option("-o,--output", o->output, "Write the RCP file here (default: print it)");
  cmd->add_option("--rcp-version", o->ruleset, "Official RCP ruleset version")
      ->capture_default_str();
  cmd->add_flag("--bert-train-samples", o->bert_train_samples,
                "bert: samples to converge from train_samples");
  return {rcp_cmd, [o] { return rcp::RunRcpBuildCommand(*o, std::cout, std::cerr); }};
}

Command AddSummarize(CLI::App& app) {
  struct Flags {
    std::vector<std::string> dirs;
    bool json = false, csv = false;
    std::string db;
    bool no_history = false;
  };
  auto f = std::make_shared<Flags>();
  auto* cmd = app.add_subcommand("summarize",
                                 "Olympic scores per benchmark and system from results folders");
  cmd->add_option("results", f->dirs, "Results folders")->required();
  auto* jf = cmd->add_flag("--json", f->json, "Print JSON");
  cmd->add_flag("--csv", f->csv, "Print CSV")->excludes(jf);
  cmd->add_option("--db", f->db, "Results history database (default: the user's data folder)");
  cmd->add_flag("--no-history", f->no_history, "Do not record the runs in the results history");
  return {cmd, [f] {
            int rc = summary::RunSummarizeCommand(
                f->dirs, f->json ? "json" : (f->csv ? "csv" : "table"), std::cout, std::cerr);
            if (rc == 0 && !f->no_history) report::RecordHistory(f->dirs, f->db, std::cerr);
            return rc;
          }};
}

Command AddCompare(CLI::App& app) {
  struct Flags {
    std::string a, b;
    bool json = false;
  };
  auto f = std::make_shared<Flags>();
  auto* cmd = app.add_subcommand("compare",
                                 "A/B comparison of two results folders: ratio of olympic means, "
                                 "bootstrap CI, Mann-Whitney U");
  cmd->add_option("results_a", f->a, "Results folder A (the baseline)")->required();
  cmd->add_option("results_b", f->b, "Results folder B (compared against A)")->required();
  cmd->add_flag("--json", f->json, "Print JSON");
  return {cmd, [f] {
            return summary::RunCompareCommand(f->a, f->b, f->json ? "json" : "table", std::cout,
                                              std::cerr);
          }};
}

Command AddReport(CLI::App& app) {
  struct Flags {
    report::ReportOptions rep;
    bool no_history = false;
  };
  auto f = std::make_shared<Flags>();
  auto* cmd = app.add_subcommand(
      "report", "Self-contained HTML report (plots, scores, runs) of results folders");
  cmd->add_option("results", f->rep.dirs, "Results folders")->required();
  cmd->add_option("-o,--output", f->rep.output, "HTML file to write")->required();
  cmd->add_option("--baseline", f->rep.baseline_system, "System the speed-ups are relative to");
  cmd->add_option("--db", f->rep.db_path,
                  "Results history database (default: the user's data folder)");
  cmd->add_flag("--no-history", f->no_history, "Do not record the runs in the results history");
  return {cmd, [f] {
            f->rep.record_history = !f->no_history;
            return report::RunReportCommand(f->rep, std::cout, std::cerr);
          }};
}

Command AddHistory(CLI::App& app) {
  auto o = std::make_shared<report::HistoryOptions>();
  auto* cmd =
      app.add_subcommand("history", "Olympic times per git revision from the results history");
  cmd->add_option("benchmark", o->benchmark, "Benchmark (trainbench or MLPerf name; default: all)");
  cmd->add_option("--system", o->system, "Only this system");
  cmd->add_option("--db", o->db_path, "Results history database (default: the user's data folder)");
  return {cmd, [o] { return report::RunHistoryCommand(*o, std::cout, std::cerr); }};
}

Command AddPackage(CLI::App& app) {
  auto o = std::make_shared<package::PackageOptions>();
  auto* cmd = app.add_subcommand(
      "package", "Write the MLPerf Training submission tree of results folders (docs/package.md)");
  cmd->add_option("results", o->results, "Results folders (RESULTS/<system>/<benchmark>/...)")
      ->required();
  cmd->add_option("--org", o->org, "Submitting organization (the package's top folder)")
      ->required();
  cmd->add_option("-o,--output", o->output, "Folder to write (must not exist, or be empty)")
      ->required();
  cmd->add_option("--system", o->system,
                  "System name (default: each results folder's system level)");
  cmd->add_option("--system-json", o->system_json,
                  "JSON object of system-description fields only a person knows (its keys "
                  "override what the logs tell)");
  cmd->add_option("--ruleset", o->ruleset, "Rule set every log must pass (as `check`)")
      ->capture_default_str();
  cmd->add_option("--rules-dir", o->rules_dir,
                  "Where rule sets live (default: the installed rules/)");
  return {cmd, [o] { return package::RunPackageCommand(*o, std::cout, std::cerr); }};
}

Command AddGtp(CLI::App& app, char** argv) {
  auto o = std::make_shared<cli::GtpOptions>();
  auto* cmd = app.add_subcommand(
      "gtp", "Play Go over the Go Text Protocol on stdin/stdout (MiniGo-style player)");
  cmd->add_option("--size", o->size, "Board size")->check(CLI::Range(2, 19))->capture_default_str();
  cmd->add_option("--komi", o->komi, "Komi")->check(kKomi)->capture_default_str();
  cmd->add_option("--player", o->player, "mcts (network + search) or random")
      ->capture_default_str();
  cmd->add_option("--weights", o->weights,
                  "Network parameters (torch::save of the GoNet); default: untrained");
  cmd->add_option("--filters", o->filters, "Network width")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  cmd->add_option("--blocks", o->blocks, "Residual blocks")
      ->check(CLI::Range(0, 100))
      ->capture_default_str();
  cmd->add_option("--readouts", o->readouts, "MCTS readouts per move")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  cmd->add_option("--threads", o->threads, "Intra-op threads")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  cmd->add_option("--seed", o->seed, "Seed (network init and search noise)")
      ->check(kSeed)
      ->capture_default_str();
  return {cmd, [o, argv] {
#ifdef TRAINBENCH_DELEGATE_TO_TORCH
            cli::ExecTorchBinary(argv);
#endif
            return cli::RunGtp(*o);
          }};
}

Command AddScoreBleu(CLI::App* score) {
  auto o = std::make_shared<metrics::ScoreBleuOptions>();
  auto* cmd = score->add_subcommand(
      "bleu", "Corpus BLEU of a hypothesis file against a reference file (docs/bleu.md)");
  cmd->add_option("ref_file", o->ref_file, "Reference translations, one segment per line (UTF-8)")
      ->required();
  cmd->add_option("hyp_file", o->hyp_file, "Hypotheses, line-aligned with the references (UTF-8)")
      ->required();
  cmd->add_option("--tokenize", o->tokenize,
                  "13a, intl (sacreBLEU) or t2t (t2t compute_bleu), or none")
      ->check(CLI::IsMember({"13a", "intl", "t2t", "none"}))
      ->capture_default_str();
  cmd->add_flag("--lowercase", o->lowercase, "Uncased BLEU (Python's str.lower() on both sides)");
  cmd->add_flag("--json", o->json, "Print JSON");
  return {cmd, [o] { return metrics::RunScoreBleuCommand(*o, std::cout); }};
}

Command AddScoreCoco(CLI::App* score) {
  auto o = std::make_shared<coco::ScoreCocoOptions>();
  auto* cmd = score->add_subcommand(
      "coco", "COCO detection metrics (the 12 numbers) of a results file (docs/coco_eval.md)");
  cmd->add_option("gt_file", o->gt_file,
                  "Ground truth: COCO instances JSON (e.g. instances_val2017.json)")
      ->required();
  cmd->add_option("results_file", o->results_file,
                  "Detections: COCO results JSON, a list of {image_id, category_id, bbox or "
                  "segmentation, score}")
      ->required();
  cmd->add_option("--iou-type", o->iou_type, "bbox (box IoU) or segm (mask IoU on RLE masks)")
      ->check(CLI::IsMember({"bbox", "segm"}))
      ->capture_default_str();
  cmd->add_flag("--json", o->json, "Print JSON");
  return {cmd, [o] { return coco::RunScoreCocoCommand(*o, std::cout, std::cerr); }};
}

int Main(int argc, char** argv) {
  CLI::App app{
      "trainbench: time-to-train benchmarks for ML training systems (MLPerf Training style)"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "trainbench 0.1.0");
  // In this order in the help.
  std::vector<Command> commands = {AddList(app),   AddPrepare(app),   AddRun(app, argv),
                                   AddCheck(app),  AddSummarize(app), AddCompare(app),
                                   AddReport(app), AddHistory(app),   AddPackage(app),
                                   AddRcp(app),    AddGtp(app, argv)};
  auto* score =
      app.add_subcommand("score", "Score your own outputs with a benchmark's quality metric");
  score->require_subcommand(1);
  commands.push_back(AddScoreBleu(score));
  commands.push_back(AddScoreCoco(score));

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : cli::kExitBadInput;
  }
  for (const Command& c : commands) {
    if (*c.app) return c.run();
  }
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

// Reference convergence points (RCP): the arithmetic of mlperf_logging's rcp_checker (commit
// 7bbf792), reproduced step for step so that `trainbench check --rcp` gives the outcome the
// official checker gives on the same logs and RCP file. No I/O here (rcp_file.h reads and writes
// the JSON, rcp_log.h reads the logs); no LibTorch.
//
// The official test, in short: each RCP record (one benchmark, one global batch size) lists the
// epochs to converge of reference runs. Its mean is the olympic mean (sorted, the first and last
// dropped; 4 each for unet3d), its stdev the population stdev of all runs. "Min Epochs" is the
// smallest submission mean a one-sided equal-variance t-test (alpha 0.05) cannot tell apart from
// the RCP mean, found by bisection on [0, mean] to 1e-4. A submission set passes when its olympic
// mean (non-converged runs count as 1e9) is >= RCP Mean / Max Speedup (= Min Epochs). A batch
// size between two RCPs is judged against their linear interpolation; below the smallest it is
// judged against the smallest (passing means "slower convergence on smaller batch size"); above
// the largest the RCP is missing.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace trainbench::rcp {

// Student's t cumulative distribution, P(T <= t) for `df` degrees of freedom (scipy's
// special.stdtr). NaN when df <= 0 or an argument is NaN.
double StudentTCdf(double df, double t);

// numpy's float64 sum (pairwise summation, numpy 1.24) and np.mean / np.std (ddof 0) of `v`, so
// that means and stdevs agree with the official checker to the last bit. Mean of an empty list
// is NaN, as numpy's.
double NumpySum(const std::vector<double>& v);
double NumpyMean(const std::vector<double>& v);
double NumpyStd(const std::vector<double>& v);
// np.interp(x, [x0, x1], [y0, y1]) for x0 < x1.
double NumpyInterp(double x, double x0, double x1, double y0, double y1);

// Runs dropped at each end of a sorted list for the olympic mean: 4 for unet3d, else 1.
int SamplesRejected(const std::string& benchmark);
// np.mean(sorted(v)[r:len-r]) with r = SamplesRejected(benchmark).
double OlympicMean(std::vector<double> v, const std::string& benchmark);

// Settings of the test. submission_runs: the benchmark's submission run count (the official
// table: resnet, ssd, maskrcnn 5, ...); it sets the submission side of the t-test.
struct RcpOptions {
  int submission_runs = 5;
  double alpha = 0.05;
  double tolerance = 0.0001;
  bool pruned = true;  // the official default (--rcp_pass pruned_rcps); false: full_rcps
  // The official ruleset version (--rcp_version): 1.0.0 .. 6.1.0. From 5.0.0 llama31_405b's
  // bound is shifted by 46080 samples; 3.1.0 reads stable_diffusion's evals by step_num.
  std::string ruleset = "6.0.0";
};

// The rulesets the official checker accepts.
bool IsKnownRuleset(const std::string& version);
// version >= min, comparing dotted numbers (rcp_checker's is_version_at_least).
bool IsVersionAtLeast(const std::string& version, const std::string& min);
// The official submission run count of a benchmark (rcp_checker's submission_runs["training"]);
// nullopt for a benchmark it does not know (gnmt, transformer, ncf, minigo).
std::optional<int> OfficialSubmissionRuns(const std::string& log_name);

// One RCP record as stored, plus the statistics the checker derives from it.
struct RcpRecord {
  std::string name;            // the record's key in the JSON file, e.g. "resnet_ref_128"
  std::string benchmark;       // MLPerf log name
  double bs = 0;               // global batch size
  std::vector<double> epochs;  // epochs (or samples) to converge of each reference run
  double mean = 0;             // olympic mean
  double stdev = 0;            // population stdev of all runs
  double min_epochs = 0;       // smallest acceptable submission mean
  double max_speedup = 0;      // mean / min_epochs
  bool interpolated = false;
};

// The smallest acceptable submission mean (rcp_checker's _find_min_acceptable_mean): `mean`
// itself when stdev == 0, else the bisection described above, with `num_samples_ref` runs on
// the reference side and submission_runs - 2 on the submission side.
double MinAcceptableMean(double mean, double stdev, double num_samples_ref, const RcpOptions& o);

// Fills mean, stdev, min_epochs, max_speedup of a stored record (sorts its epochs).
void ComputeStats(RcpRecord& r, const RcpOptions& o);

// The record interpolated at batch size bs between low and high (rcp_checker's
// _create_interp_rcp): mean and stdev interpolated linearly, the bound computed with
// 2 * submission_runs reference runs, as the official checker does.
RcpRecord Interpolate(double bs, const RcpRecord& low, const RcpRecord& high, const RcpOptions& o);

// A benchmark's RCP records with their statistics, sorted by batch size (stable), and the
// pruned subset the official checker uses by default: records below the batch size of the
// fastest-converging one are dropped, then every inner record converging slower than the
// interpolation of its neighbours.
struct RcpSet {
  std::vector<RcpRecord> all;
  std::vector<RcpRecord> pruned;
};
RcpSet MakeRcpSet(std::vector<RcpRecord> records, const RcpOptions& o);

enum class Outcome { kPass, kFail, kMissing };
const char* OutcomeName(Outcome o);  // "PASSED", "FAILED", "MISSING"

// The verdict on one submission set.
struct Verdict {
  Outcome outcome = Outcome::kFail;
  bool passed = false;  // the official checker's rcp_check
  // The official message: "RCP found", "RCP Interpolation", "RCP not found but slower
  // convergence on smaller batch size", "Missing RCP, please submit RCP with BS = <bs>",
  // "Cannot find any RCPs", "Could not detect global_batch_size", "Insufficient convergence";
  // trainbench adds "Batch sizes in files do not match" and "Benchmark names in files do not
  // match" (where the official checker stops with an exception).
  std::string message;
  double norm_factor = 1.0;      // RCP mean / submission mean when faster but within the bound
  std::optional<RcpRecord> rcp;  // the record judged against, when there was one
  double submission_mean = 0;    // olympic mean of the submission (valid when rcp is set)
};

// Judges a submission: its batch size (as Python's str prints it, for the message) and the
// epochs to converge of each run (1e9 for a run that did not converge).
Verdict Evaluate(const RcpSet& set, double bs, const std::string& bs_text,
                 std::vector<double> subm_epochs, const RcpOptions& o);

// The value the official checker gives a run that did not converge.
inline constexpr double kNotConverged = 1e9;

}  // namespace trainbench::rcp

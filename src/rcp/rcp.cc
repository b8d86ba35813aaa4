#include "rcp/rcp.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <utility>

#include "core/json.h"

namespace trainbench::rcp {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Continued fraction of the regularized incomplete beta function (modified Lentz).
double BetaContinuedFraction(double a, double b, double x) {
  constexpr double kTiny = 1e-300;
  constexpr double kEps = 1e-16;
  double qab = a + b, qap = a + 1, qam = a - 1;
  double c = 1, d = 1 - qab * x / qap;
  if (std::fabs(d) < kTiny) d = kTiny;
  d = 1 / d;
  double h = d;
  for (int m = 1; m <= 1000; ++m) {
    const double m2 = 2.0 * m;
    double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
    d = 1 + aa * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1 + aa / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    h *= d * c;
    aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
    d = 1 + aa * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1 + aa / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    const double del = d * c;
    h *= del;
    if (std::fabs(del - 1) < kEps) break;
  }
  return h;
}

// I_x(a, b), the regularized incomplete beta function, for a, b > 0 and 0 <= x <= 1.
double IncompleteBeta(double a, double b, double x) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const double front = std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) +
                                a * std::log(x) + b * std::log1p(-x));
  if (x < (a + 1) / (a + b + 2)) return front * BetaContinuedFraction(a, b, x) / a;
  return 1 - front * BetaContinuedFraction(b, a, 1 - x) / b;
}

// Pairwise summation exactly as numpy's pairwise_sum_DOUBLE (PW_BLOCKSIZE 128).
double PairwiseSum(const double* a, size_t n) {
  if (n < 8) {
    double res = 0.;
    for (size_t i = 0; i < n; ++i) res += a[i];
    return res;
  }
  if (n <= 128) {
    double r[8];
    for (int j = 0; j < 8; ++j) r[j] = a[j];
    size_t i = 8;
    for (; i < n - (n % 8); i += 8) {
      for (int j = 0; j < 8; ++j) r[j] += a[i + j];
    }
    double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) res += a[i];
    return res;
  }
  size_t n2 = n / 2;
  n2 -= n2 % 8;
  return PairwiseSum(a, n2) + PairwiseSum(a + n2, n - n2);
}

// scipy.stats.ttest_ind_from_stats(..., equal_var=True) turned one-sided as rcp_checker's
// _find_p_value does: p = P(T <= t) for t < 0, else 1 - P(T <= -t).
double OneSidedP(double mean1, double std1, double n1, double mean2, double std2, double n2) {
  const double df = n1 + n2 - 2.0;
  const double svar = ((n1 - 1) * (std1 * std1) + (n2 - 1) * (std2 * std2)) / df;
  const double denom = std::sqrt(svar * (1.0 / n1 + 1.0 / n2));
  const double t = (mean1 - mean2) / denom;
  double p = StudentTCdf(df, -std::fabs(t)) * 2;
  if (t < 0) return p / 2;
  return 1 - (p / 2);
}

}  // namespace

double StudentTCdf(double df, double t) {
  if (!(df > 0) || std::isnan(t)) return kNaN;
  if (t == 0) return 0.5;
  if (std::isinf(t)) return t < 0 ? 0.0 : 1.0;
  const double x = df / (df + t * t);
  const double tail = 0.5 * IncompleteBeta(0.5 * df, 0.5, x);
  return t < 0 ? tail : 1 - tail;
}

double NumpySum(const std::vector<double>& v) { return 0.0 + PairwiseSum(v.data(), v.size()); }

double NumpyMean(const std::vector<double>& v) {
  if (v.empty()) return kNaN;
  return NumpySum(v) / static_cast<double>(v.size());
}

double NumpyStd(const std::vector<double>& v) {
  if (v.empty()) return kNaN;
  const double mean = NumpyMean(v);
  std::vector<double> sq(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    const double x = v[i] - mean;
    sq[i] = x * x;
  }
  return std::sqrt(NumpySum(sq) / static_cast<double>(v.size()));
}

double NumpyInterp(double x, double x0, double x1, double y0, double y1) {
  if (x < x0) return y0;
  if (x > x1) return y1;
  if (x == x1) return y1;
  if (x == x0) return y0;
  const double slope = (y1 - y0) / (x1 - x0);
  double res = slope * (x - x0) + y0;
  if (std::isnan(res)) {
    res = slope * (x - x1) + y1;
    if (std::isnan(res) && y0 == y1) res = y0;
  }
  return res;
}

bool IsKnownRuleset(const std::string& version) {
  static const char* const kKnown[] = {"1.0.0", "1.1.0", "2.0.0", "2.1.0", "3.0.0", "3.1.0",
                                       "4.0.0", "4.1.0", "5.0.0", "5.1.0", "6.0.0", "6.1.0"};
  for (const char* k : kKnown) {
    if (version == k) return true;
  }
  return false;
}

namespace {
std::vector<long> VersionParts(const std::string& v) {
  std::vector<long> parts;
  size_t start = 0;
  while (start <= v.size()) {
    size_t dot = v.find('.', start);
    if (dot == std::string::npos) dot = v.size();
    parts.push_back(std::strtol(v.substr(start, dot - start).c_str(), nullptr, 10));
    start = dot + 1;
  }
  return parts;
}
}  // namespace

bool IsVersionAtLeast(const std::string& version, const std::string& min) {
  std::vector<long> a = VersionParts(version), b = VersionParts(min);
  const size_t n = std::max(a.size(), b.size());
  a.resize(n, 0);
  b.resize(n, 0);
  return a >= b;
}

std::optional<int> OfficialSubmissionRuns(const std::string& log_name) {
  static const std::pair<const char*, int> kRuns[] = {{"bert", 10},
                                                      {"dlrm_dcnv2", 10},
                                                      {"gpt3", 3},
                                                      {"maskrcnn", 5},
                                                      {"resnet", 5},
                                                      {"ssd", 5},
                                                      {"retinanet", 5},
                                                      {"unet3d", 40},
                                                      {"rnnt", 10},
                                                      {"stable_diffusion", 10},
                                                      {"gnn", 10},
                                                      {"rgat", 10},
                                                      {"llama2_70b_lora", 10},
                                                      {"flux1", 10},
                                                      {"llama31_405b", 3},
                                                      {"llama31_8b", 10},
                                                      {"gpt_oss_20b", 10},
                                                      {"deepseekv3_671b", 3},
                                                      {"qwen35_397b_grpo", 3}};
  for (const auto& [name, runs] : kRuns) {
    if (log_name == name) return runs;
  }
  return std::nullopt;
}

int SamplesRejected(const std::string& benchmark) { return benchmark == "unet3d" ? 4 : 1; }

double OlympicMean(std::vector<double> v, const std::string& benchmark) {
  std::sort(v.begin(), v.end());
  const long r = SamplesRejected(benchmark);
  const long n = static_cast<long>(v.size());
  // Python's slice v[r:n-r] is empty when n - r <= r.
  if (n - r <= r) return kNaN;
  return NumpyMean(std::vector<double>(v.begin() + r, v.begin() + (n - r)));
}

double MinAcceptableMean(double mean, double stdev, double num_samples_ref, const RcpOptions& o) {
  if (stdev == 0) return mean;
  const double num_samples_subm = o.submission_runs - 2;
  double mean_max = mean;
  double mean_min = 0.0;
  double mean_mid = (mean_min + mean_max) / 2;
  while (mean_max - mean_min > o.tolerance) {
    // As the official checker: the candidate mean gets the reference's run count and the
    // reference mean the submission's (equal stdevs, so only the degrees of freedom and the
    // standard error see the counts).
    const double p = OneSidedP(mean_mid, stdev, num_samples_ref, mean, stdev, num_samples_subm);
    if (p > o.alpha) {
      mean_max = mean_mid;
    } else {
      mean_min = mean_mid;
    }
    mean_mid = (mean_min + mean_max) / 2;
  }
  return mean_mid;
}

void ComputeStats(RcpRecord& r, const RcpOptions& o) {
  std::sort(r.epochs.begin(), r.epochs.end());
  const long rej = SamplesRejected(r.benchmark);
  r.mean = OlympicMean(r.epochs, r.benchmark);
  r.stdev = NumpyStd(r.epochs);
  r.min_epochs =
      MinAcceptableMean(r.mean, r.stdev, static_cast<double>(r.epochs.size()) - rej * 2, o);
  r.max_speedup = r.mean / r.min_epochs;
}

RcpRecord Interpolate(double bs, const RcpRecord& low, const RcpRecord& high, const RcpOptions& o) {
  RcpRecord r;
  r.benchmark = low.benchmark;
  r.bs = bs;
  r.name = low.benchmark + "_interp_" + core::PythonJsonDumps(core::Json(bs));
  r.mean = NumpyInterp(bs, low.bs, high.bs, low.mean, high.mean);
  r.stdev = NumpyInterp(bs, low.bs, high.bs, low.stdev, high.stdev);
  r.min_epochs = MinAcceptableMean(r.mean, r.stdev, o.submission_runs * 2.0, o);
  r.max_speedup = r.mean / r.min_epochs;
  r.interpolated = true;
  return r;
}

RcpSet MakeRcpSet(std::vector<RcpRecord> records, const RcpOptions& o) {
  RcpSet set;
  for (auto& r : records) ComputeStats(r, o);
  std::stable_sort(records.begin(), records.end(),
                   [](const RcpRecord& a, const RcpRecord& b) { return a.bs < b.bs; });
  set.all = records;
  if (records.empty()) return set;

  // Step 1: drop the records with a smaller batch size than the fastest-converging one (the
  // first of equal means, as Python's min).
  std::vector<const RcpRecord*> kept;
  const RcpRecord* fastest = &records.front();
  for (const auto& r : records) {
    if (r.mean < fastest->mean) fastest = &r;
  }
  for (const auto& r : records) {
    if (r.bs >= fastest->bs) kept.push_back(&r);
  }
  // Step 2: drop each inner record converging slower than the interpolation of its neighbours.
  long list_len = static_cast<long>(kept.size());
  long i = 1;
  while (i < list_len - 1) {
    const RcpRecord interp = Interpolate(kept[i]->bs, *kept[i - 1], *kept[i + 1], o);
    if (kept[i]->mean > interp.mean) {
      kept.erase(kept.begin() + i);
      --i;
      --list_len;
    }
    ++i;
  }
  // Every record (in batch-size order) with the benchmark and batch size of a kept one.
  for (const RcpRecord* k : kept) {
    for (const auto& r : records) {
      if (r.benchmark == k->benchmark && r.bs == k->bs) set.pruned.push_back(r);
    }
  }
  return set;
}

const char* OutcomeName(Outcome o) {
  switch (o) {
    case Outcome::kPass:
      return "PASSED";
    case Outcome::kFail:
      return "FAILED";
    case Outcome::kMissing:
      return "MISSING";
  }
  return "?";
}

namespace {

// rcp_checker's _eval_submission_record.
bool EvalRecord(RcpRecord rcp, std::vector<double> subm, const RcpOptions& o, Verdict& v) {
  if (IsVersionAtLeast(o.ruleset, "5.0.0") && rcp.benchmark == "llama31_405b") {
    rcp.max_speedup = rcp.mean / (rcp.min_epochs - 46080);
  }
  v.submission_mean = OlympicMean(std::move(subm), rcp.benchmark);
  const double nf = rcp.mean / v.submission_mean;
  v.norm_factor = nf < 1 ? 1.0 : nf;
  v.rcp = rcp;
  return v.submission_mean >= (rcp.mean / rcp.max_speedup);
}

}  // namespace

Verdict Evaluate(const RcpSet& set, double bs, const std::string& bs_text,
                 std::vector<double> subm_epochs, const RcpOptions& o) {
  Verdict v;
  const std::vector<RcpRecord>& data = o.pruned ? set.pruned : set.all;
  const RcpRecord* found = nullptr;
  const RcpRecord* top_min = nullptr;     // the largest batch size below bs
  const RcpRecord* bottom_max = nullptr;  // the smallest batch size above bs
  const RcpRecord* min_rcp = nullptr;     // the smallest batch size
  double min_bs = 0, max_bs = 1e9, smallest = 1e9;
  for (const auto& r : data) {
    if (!found && r.bs == bs) found = &r;
    if (r.bs < bs && r.bs > min_bs) {
      min_bs = r.bs;
      top_min = &r;
    }
    if (r.bs > bs && r.bs < max_bs) {
      max_bs = r.bs;
      bottom_max = &r;
    }
    if (r.bs < smallest) {
      smallest = r.bs;
      min_rcp = &r;
    }
  }
  const std::string missing = "Missing RCP, please submit RCP with BS = " + bs_text;
  if (found) {
    v.message = "RCP found";
    v.passed = EvalRecord(*found, std::move(subm_epochs), o, v);
    v.outcome = v.passed ? Outcome::kPass : Outcome::kFail;
  } else if (top_min && bottom_max) {
    v.message = "RCP Interpolation";
    v.passed = EvalRecord(Interpolate(bs, *top_min, *bottom_max, o), std::move(subm_epochs), o, v);
    v.outcome = v.passed ? Outcome::kPass : Outcome::kFail;
  } else if (top_min && !bottom_max) {
    v.message = missing;
    v.passed = false;
    v.outcome = Outcome::kMissing;
  } else if (!top_min && bottom_max) {
    v.passed = EvalRecord(*min_rcp, std::move(subm_epochs), o, v);
    if (v.passed) {
      v.message = "RCP not found but slower convergence on smaller batch size";
      v.outcome = Outcome::kPass;
    } else {
      v.message = missing;
      v.outcome = Outcome::kMissing;
    }
  } else {
    v.message = "Cannot find any RCPs";
    v.passed = false;
    v.outcome = Outcome::kMissing;
  }
  return v;
}

}  // namespace trainbench::rcp

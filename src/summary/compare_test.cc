// The comparison library on hand-made results with known answers: exact ratios, a
// deterministic bootstrap interval, the significance verdict, matching of benchmarks, and
// result folders written as MLLOG logs (test_logs.h) read back through the scanner.
#include "summary/compare.h"

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "summary/compare_command.h"
#include "summary/summarize_command.h"
#include "summary/test_logs.h"

namespace trainbench::summary {
namespace {

constexpr RunSample F{0, false};  // a run that did not converge
RunSample T(double t) { return {t, true}; }

std::vector<core::BenchmarkDef> Defs() {
  return {test_logs::TestDef("image_classification", "resnet", "", {{"mini", 5, 9}}),
          test_logs::TestDef("recommendation", "ncf", "", {{"mini", 5, 3}})};
}

// Writes runs of `benchmark` (log name) mini under dir/<system>/<folder>/result_<i>.txt; a
// negative time is a run that did not converge after that many minutes.
void WriteRuns(const std::string& dir, const std::string& system, const std::string& benchmark,
               const std::vector<double>& minutes) {
  for (size_t i = 0; i < minutes.size(); ++i) {
    test_logs::MllogRun r;
    r.benchmark = benchmark;
    r.scale = "mini";
    r.start_ms = 1700000000000 + static_cast<int64_t>(i) * 3600000;
    r.minutes = std::fabs(minutes[i]);
    r.success = minutes[i] > 0;
    r.seed = static_cast<int64_t>(i + 1);
    test_logs::WriteText(
        dir + "/" + system + "/" + benchmark + "/result_" + std::to_string(i + 1) + ".txt",
        test_logs::MllogText(r));
  }
}

SummaryReport Summary(const std::string& dir) { return BuildReport({dir}, Defs()); }

TEST(BootstrapRatioInterval, ConstantSidesGiveTheExactRatio) {
  const std::vector<RunSample> a(5, T(10)), b(5, T(5));
  RatioInterval ci = BootstrapRatioInterval(a, 0, b, 0, CompareOptions{});
  ASSERT_TRUE(ci.ok);
  EXPECT_EQ(ci.resamples, 10000);
  EXPECT_EQ(ci.undefined, 0);
  EXPECT_EQ(ci.low, 0.5);
  EXPECT_EQ(ci.high, 0.5);
  EXPECT_FALSE(ci.Contains(1.0));
}

TEST(BootstrapRatioInterval, DeterministicWithTheSeed) {
  const std::vector<RunSample> a = {T(10), T(11), T(9.5), T(10.5), T(12)};
  const std::vector<RunSample> b = {T(6), T(5.5), T(7), T(6.5), T(7.5)};
  RatioInterval x = BootstrapRatioInterval(a, 0, b, 0, CompareOptions{});
  RatioInterval y = BootstrapRatioInterval(a, 0, b, 0, CompareOptions{});
  ASSERT_TRUE(x.ok);
  EXPECT_EQ(x.low, y.low);
  EXPECT_EQ(x.high, y.high);
  // Every resample's olympic mean lies within the smallest and largest times of its side.
  EXPECT_GE(x.low, 5.5 / 12);
  EXPECT_LE(x.high, 7.5 / 9.5);
  EXPECT_LT(x.low, x.high);
  // Another seed draws other resamples, but the same kind of interval.
  CompareOptions other;
  other.seed = 7;
  RatioInterval z = BootstrapRatioInterval(a, 0, b, 0, other);
  EXPECT_TRUE(z.ok);
  EXPECT_FALSE(z.low == x.low && z.high == x.high);
  EXPECT_FALSE(z.Contains(1.0));
}

TEST(BootstrapRatioInterval, GoldenValuesForTheDocumentedSeed) {
  // Pinned: the interval for kBootstrapSeed must not change across platforms or refactors (the
  // engine is std::mt19937_64, indices by rejection). Update only with a schema/doc note.
  const std::vector<RunSample> a = {T(10), T(11), T(9.5), T(10.5), T(12)};
  const std::vector<RunSample> b = {T(6), T(5.5), T(7), T(6.5), T(8)};
  RatioInterval ci = BootstrapRatioInterval(a, 0, b, 0, CompareOptions{});
  ASSERT_TRUE(ci.ok);
  std::ostringstream got;
  got.precision(17);
  got << ci.low << " " << ci.high;
  EXPECT_EQ(got.str(), "0.52857142857142858 0.73333333333333328");
}

TEST(BootstrapRatioInterval, ResamplesWithoutAResultAreInfiniteOrLeftOut) {
  // Two of five runs fail on each side: many resamples have no result on one side or both.
  const std::vector<RunSample> a = {T(10), F, T(10), F, T(10)};
  const std::vector<RunSample> b = {T(5), F, T(5), F, T(5)};
  CompareOptions o;
  o.resamples = 2000;
  RatioInterval ci = BootstrapRatioInterval(a, 0, b, 0, o);
  ASSERT_TRUE(ci.ok);
  EXPECT_GT(ci.undefined, 0);
  EXPECT_EQ(ci.low, 0.0);            // A had no result, B had one
  EXPECT_TRUE(std::isinf(ci.high));  // B had no result, A had one
  EXPECT_TRUE(ci.Contains(1.0));
}

TEST(Compare, HalfTheTimeIsASignificantSpeedupOfTwo) {
  test_logs::ScopedDir tmp_a("cmp_a"), tmp_b("cmp_b");
  WriteRuns(tmp_a.path(), "base", "resnet", {10, 10, 10, 10, 10});
  WriteRuns(tmp_b.path(), "fast", "resnet", {5, 5, 5, 5, 5});
  CompareReport r = Compare(Summary(tmp_a.path()), Summary(tmp_b.path()));
  ASSERT_EQ(r.comparisons.size(), 1u);
  const Comparison& c = r.comparisons[0];
  EXPECT_EQ(c.benchmark, "image_classification");
  EXPECT_EQ(c.scale, "mini");
  EXPECT_EQ(c.division, "closed");
  EXPECT_EQ(c.a.system, "base");
  EXPECT_EQ(c.b.system, "fast");
  ASSERT_TRUE(c.ratio && c.speedup);
  EXPECT_EQ(*c.ratio, 0.5);
  EXPECT_EQ(*c.speedup, 2.0);
  EXPECT_EQ(c.ci.low, 0.5);
  EXPECT_EQ(c.ci.high, 0.5);
  EXPECT_EQ(c.mann_whitney.u, 0);
  EXPECT_TRUE(c.mann_whitney.exact);
  EXPECT_DOUBLE_EQ(c.mann_whitney.p_value, 2.0 / 252.0);
  EXPECT_TRUE(c.significant);
  EXPECT_EQ(c.verdict, "B faster");
  EXPECT_TRUE(r.only_a.empty());
  EXPECT_TRUE(r.only_b.empty());

  // The other way round: B slower, the same p.
  CompareReport back = Compare(Summary(tmp_b.path()), Summary(tmp_a.path()));
  ASSERT_EQ(back.comparisons.size(), 1u);
  EXPECT_EQ(*back.comparisons[0].ratio, 2.0);
  EXPECT_EQ(back.comparisons[0].verdict, "B slower");
}

TEST(Compare, IdenticalSidesAreNotSignificant) {
  test_logs::ScopedDir tmp_a("cmp_same_a"), tmp_b("cmp_same_b");
  WriteRuns(tmp_a.path(), "box", "resnet", {9, 10, 11, 10.5, 9.5});
  WriteRuns(tmp_b.path(), "box", "resnet", {9, 10, 11, 10.5, 9.5});
  CompareReport r = Compare(Summary(tmp_a.path()), Summary(tmp_b.path()));
  ASSERT_EQ(r.comparisons.size(), 1u);
  const Comparison& c = r.comparisons[0];
  EXPECT_EQ(*c.ratio, 1.0);
  EXPECT_EQ(c.mann_whitney.u, 12.5);
  EXPECT_DOUBLE_EQ(c.mann_whitney.p_value, 1.0);
  EXPECT_TRUE(c.ci.Contains(1.0));
  EXPECT_FALSE(c.significant);
  EXPECT_EQ(c.verdict, "not significant (p >= 0.05; CI contains 1.0)");
}

TEST(Compare, OverlappingSidesAreNotSignificant) {
  // B a little faster on average, but the times interleave: U = 10, p = 174/252.
  test_logs::ScopedDir tmp_a("cmp_ov_a"), tmp_b("cmp_ov_b");
  WriteRuns(tmp_a.path(), "a", "resnet", {2, 4, 6, 8, 10});
  WriteRuns(tmp_b.path(), "b", "resnet", {1, 3, 5, 7, 9});
  CompareReport r = Compare(Summary(tmp_a.path()), Summary(tmp_b.path()));
  ASSERT_EQ(r.comparisons.size(), 1u);
  const Comparison& c = r.comparisons[0];
  EXPECT_DOUBLE_EQ(*c.ratio, 5.0 / 6.0);  // olympic means 6 and 5
  EXPECT_DOUBLE_EQ(c.mann_whitney.p_value, 174.0 / 252.0);
  EXPECT_FALSE(c.significant);
  EXPECT_EQ(c.verdict.rfind("not significant (p >= 0.05", 0), 0u) << c.verdict;
}

TEST(Compare, NonConvergedRunIsTheSlowest) {
  test_logs::ScopedDir tmp_a("cmp_fail_a"), tmp_b("cmp_fail_b");
  WriteRuns(tmp_a.path(), "a", "resnet", {10, 10, -3, 10, 10});  // one aborted after 3 min
  WriteRuns(tmp_b.path(), "b", "resnet", {5, 5, 5, 5, 5});
  CompareReport r = Compare(Summary(tmp_a.path()), Summary(tmp_b.path()));
  ASSERT_EQ(r.comparisons.size(), 1u);
  const Comparison& c = r.comparisons[0];
  EXPECT_EQ(*c.ratio, 0.5);           // A's olympic mean drops the failure: 10
  EXPECT_EQ(c.mann_whitney.u_x, 25);  // the failure counts as slowest, not as 3 minutes
  EXPECT_DOUBLE_EQ(c.mann_whitney.p_value, 2.0 / 252.0);
  EXPECT_TRUE(c.significant);
}

TEST(Compare, SideWithoutAResultIsNoComparison) {
  test_logs::ScopedDir tmp_a("cmp_nores_a"), tmp_b("cmp_nores_b");
  WriteRuns(tmp_a.path(), "a", "resnet", {10, -10, -10, 10, 10});  // two failures
  WriteRuns(tmp_b.path(), "b", "resnet", {5, 5, 5, 5, 5});
  CompareReport r = Compare(Summary(tmp_a.path()), Summary(tmp_b.path()));
  ASSERT_EQ(r.comparisons.size(), 1u);
  const Comparison& c = r.comparisons[0];
  EXPECT_FALSE(c.ratio);
  EXPECT_FALSE(c.ci.ok);
  EXPECT_FALSE(c.significant);
  EXPECT_EQ(c.verdict.rfind("no comparison: A has no result (2 runs did not converge", 0), 0u)
      << c.verdict;
}

TEST(Compare, BenchmarksOnOneSideAreListed) {
  test_logs::ScopedDir tmp_a("cmp_one_a"), tmp_b("cmp_one_b");
  WriteRuns(tmp_a.path(), "a", "resnet", {10, 10, 10, 10, 10});
  WriteRuns(tmp_a.path(), "a", "ncf", {3, 3, 3, 3, 3});
  WriteRuns(tmp_b.path(), "b", "resnet", {5, 5, 5, 5, 5});
  CompareReport r = Compare(Summary(tmp_a.path()), Summary(tmp_b.path()));
  ASSERT_EQ(r.comparisons.size(), 1u);
  ASSERT_EQ(r.only_a.size(), 1u);
  EXPECT_EQ(r.only_a[0].benchmark, "recommendation");
  EXPECT_TRUE(r.only_b.empty());
  CompareReport back = Compare(Summary(tmp_b.path()), Summary(tmp_a.path()));
  ASSERT_EQ(back.only_b.size(), 1u);
  EXPECT_EQ(back.only_b[0].benchmark, "recommendation");
}

TEST(RunCompareCommand, TableSaysWhatIsSignificant) {
  test_logs::ScopedDir tmp_a("cmd_cmp_a"), tmp_b("cmd_cmp_b");
  WriteRuns(tmp_a.path(), "base", "resnet", {10, 10, 10, 10, 10});
  WriteRuns(tmp_a.path(), "base", "ncf", {3, 3.1, 2.9, 3.2, 2.8});
  WriteRuns(tmp_b.path(), "fast", "resnet", {5, 5, 5, 5, 5});
  WriteRuns(tmp_b.path(), "fast", "ncf", {3.1, 2.9, 3, 2.8, 3.2});
  std::ostringstream out, err;
  ASSERT_EQ(RunCompareCommand(tmp_a.path(), tmp_b.path(), "table", Defs(), "test", CompareOptions{},
                              out, err),
            0)
      << err.str();
  EXPECT_EQ(err.str(), "");
  const std::string s = out.str();
  EXPECT_NE(s.find("seed 20181212"), std::string::npos) << s;
  EXPECT_NE(
      s.find("  0.500  [0.500, 0.500]     2.00x  [2.00x, 2.00x]     0  0.0079 (exact)  B faster"),
      std::string::npos)
      << s;
  EXPECT_NE(s.find("image_classification mini (closed), A base vs B fast: B is 2.00x faster than "
                   "A; significant (p = 0.0079 < 0.05"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("recommendation mini (closed), A base vs B fast: the difference is NOT "
                   "significant (p = 1.0000"),
            std::string::npos)
      << s;
}

TEST(RunCompareCommand, JsonHasASchemaVersion) {
  test_logs::ScopedDir tmp_a("cmd_cmpj_a"), tmp_b("cmd_cmpj_b");
  WriteRuns(tmp_a.path(), "base", "resnet", {10, 10, 10, 10, 10});
  WriteRuns(tmp_a.path(), "base", "ncf", {3, 3, 3, 3, 3});
  WriteRuns(tmp_b.path(), "fast", "resnet", {5, 5, 5, 5, -5});
  std::ostringstream out, err;
  ASSERT_EQ(RunCompareCommand(tmp_a.path(), tmp_b.path(), "json", Defs(), "test", CompareOptions{},
                              out, err),
            0)
      << err.str();
  core::Json doc = core::Json::parse(out.str());
  EXPECT_EQ(doc["schema_version"], kCompareSchemaVersion);
  EXPECT_EQ(doc["context"]["results_a"], tmp_a.path());
  EXPECT_EQ(doc["method"]["bootstrap"]["seed"], kBootstrapSeed);
  EXPECT_EQ(doc["method"]["bootstrap"]["resamples"], 10000);
  ASSERT_EQ(doc["comparisons"].size(), 1u);
  const core::Json& c = doc["comparisons"][0];
  EXPECT_EQ(c["benchmark"], "image_classification");
  EXPECT_EQ(c["ratio_b_over_a"], 0.5);
  EXPECT_EQ(c["speedup_a_over_b"], 2.0);
  EXPECT_EQ(c["a"]["system"], "base");
  EXPECT_EQ(c["b"]["times_minutes"][4], nullptr);  // the run that did not converge
  // The failure is B's slowest run: it beats A's five, U = 5; 6 of the 252 splits have A's rank
  // sum as high: p = 12/252 < 0.05. But a quarter of B's resamples hold two failures (no
  // result, an infinite olympic mean), so the interval is open above and holds 1.0.
  EXPECT_EQ(c["mann_whitney"]["u"], 5);
  EXPECT_EQ(c["mann_whitney"]["method"], "exact");
  EXPECT_EQ(c["mann_whitney"]["z"], nullptr);
  EXPECT_DOUBLE_EQ(c["mann_whitney"]["p_value"].get<double>(), 12.0 / 252.0);
  EXPECT_EQ(c["ci_ratio"]["high"], nullptr);  // +infinity
  EXPECT_EQ(c["ci_speedup"]["low"], 0.0);
  EXPECT_EQ(c["significant"], false);
  EXPECT_EQ(c["verdict"], "not significant (CI contains 1.0)");
  ASSERT_EQ(doc["only_in_a"].size(), 1u);
  EXPECT_EQ(doc["only_in_a"][0]["benchmark"], "recommendation");
  EXPECT_EQ(doc["only_in_b"].size(), 0u);
  // The same folders give the same bytes.
  std::ostringstream again, err2;
  RunCompareCommand(tmp_a.path(), tmp_b.path(), "json", Defs(), "test", CompareOptions{}, again,
                    err2);
  EXPECT_EQ(again.str(), out.str());
}

TEST(RunCompareCommand, BadInputNamesThePath) {
  test_logs::ScopedDir tmp("cmd_cmp_bad");
  std::ostringstream out, err;
  EXPECT_EQ(RunCompareCommand(tmp.path(), tmp.path() + "/nope", "table", Defs(), "test",
                              CompareOptions{}, out, err),
            2);
  EXPECT_NE(err.str().find(tmp.path() + "/nope: results directory not found"), std::string::npos)
      << err.str();
  std::ostringstream out2, err2;
  EXPECT_EQ(RunCompareCommand(tmp.path(), tmp.path(), "xml", Defs(), "test", CompareOptions{}, out2,
                              err2),
            2);
  // Nothing in common is not an error, but it is said.
  std::ostringstream out3, err3;
  EXPECT_EQ(RunCompareCommand(tmp.path(), tmp.path(), "table", Defs(), "test", CompareOptions{},
                              out3, err3),
            0);
  EXPECT_NE(err3.str().find("no benchmark is in both folders"), std::string::npos);
}

}  // namespace
}  // namespace trainbench::summary

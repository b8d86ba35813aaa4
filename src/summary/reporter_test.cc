// Golden-output tests: a results folder and a published v0.5 folder are written, summarized and
// reported in each format; the output must match testdata/summary_golden.* line by line (the
// temporary paths replaced by $RESULTS and $PUBLISHED). To regenerate the golden files after an
// intended change, run the test with TRAINBENCH_UPDATE_GOLDEN=1 and review the diff.
#include "summary/reporter.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "core/error.h"
#include "summary/summarize_command.h"
#include "summary/test_logs.h"

namespace trainbench::summary {
namespace {

std::vector<core::BenchmarkDef> Defs() {
  return {test_logs::TestDef("image_classification", "resnet",
                             "configs/benchmarks/image_classification.yaml", {{"mini", 5, 30}}),
          test_logs::TestDef("translation", "transformer", "configs/benchmarks/translation.yaml",
                             {{"mini", 3, 8}})};
}

std::string ReplaceAll(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) {
    s.replace(at, from.size(), to);
  }
  return s;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

void ExpectMatchesGolden(const std::string& actual, const std::string& golden_name) {
  const std::string path =
      std::string(TRAINBENCH_TEST_SRCDIR) + "/src/summary/testdata/" + golden_name;
  const char* update = std::getenv("TRAINBENCH_UPDATE_GOLDEN");
  if (update && *update) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << actual;
  }
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in) << "missing golden file " << path;
  std::stringstream golden;
  golden << in.rdbuf();
  const auto want = Lines(golden.str());
  const auto got = Lines(actual);
  for (size_t i = 0; i < std::min(want.size(), got.size()); ++i) {
    EXPECT_EQ(got[i], want[i]) << golden_name << " line " << i + 1;
  }
  EXPECT_EQ(got.size(), want.size()) << golden_name << ": line count differs; got:\n" << actual;
}

// The folders every golden test summarizes.
class GoldenTest : public ::testing::Test {
 protected:
  void SetUp() override {
    using test_logs::WriteText;

    // host-a, image_classification mini: 6 runs (N = 5, two windows), one aborted.
    const double ic_minutes[] = {12.5, 11.0, 13.0, 12.0, 11.5, 14.0};
    for (int i = 0; i < 6; ++i) {
      test_logs::MllogRun r;
      r.trainbench_benchmark = "image_classification";
      r.scale = "mini";
      r.start_ms = 1700000000000 + int64_t{i} * 3600000;
      r.minutes = ic_minutes[i];
      r.success = i != 2;
      r.epochs = 3 + i % 2;
      r.seed = 100 + i;
      WriteText(results_ + "/host-a/image_classification/result_" + std::to_string(i) + ".txt",
                test_logs::MllogText(r));
    }
    // host-b: 2 runs of 5, and a file that is not a run.
    for (int i = 0; i < 2; ++i) {
      test_logs::MllogRun r;
      r.trainbench_benchmark = "image_classification";
      r.scale = "mini";
      r.start_ms = 1700100000000 + int64_t{i} * 3600000;
      r.minutes = 20.0 + i;
      // The second run has a line that does not parse: used, with a warning.
      WriteText(results_ + "/host-b/image_classification/result_" + std::to_string(i) + ".txt",
                test_logs::MllogText(r) + (i == 1 ? ":::MLLOG [1]\n" : ""));
    }
    WriteText(results_ + "/host-b/image_classification/result_2.txt", "");
    // host-a, translation mini: 3 runs, two aborted: no result.
    for (int i = 0; i < 3; ++i) {
      test_logs::MllogRun r;
      r.benchmark = "transformer";
      r.trainbench_benchmark = "translation";
      r.scale = "mini";
      r.division = "open";
      r.start_ms = 1700200000000 + int64_t{i} * 3600000;
      r.minutes = 5.0;
      r.success = i == 0;
      WriteText(results_ + "/host-a/translation/result_" + std::to_string(i) + ".txt",
                test_logs::MllogText(r));
    }
    // A published v0.5 submission: orgx, system sys1, resnet, 5 runs, one without run_stop.
    const double v05_minutes[] = {120.0, 118.5, 121.0, 119.0, 0};
    for (int i = 0; i < 5; ++i) {
      test_logs::LegacyRun r;
      r.start_s = 1541638787.25 + i * 86400.0;
      r.minutes = v05_minutes[i];
      std::string text = test_logs::LegacyText(r);
      if (i == 4) text = text.substr(0, text.find("\n", text.find("run_start")) + 1);
      WriteText(published_ + "/orgx/results/sys1/resnet/result_" + std::to_string(i) + ".txt",
                text);
    }
    WriteText(published_ + "/orgx/systems/sys1.json", R"({"division": "closed"})");
  }

  std::string Render(const std::string& format, std::string* err_text = nullptr) {
    SummaryReport report = BuildReport({results_, published_}, Defs());
    ReportContext context;
    context.results_dirs = {results_, published_};
    context.benchmark_definitions = "test definitions";
    context.git_revision = "abc1234";
    std::ostringstream out, err;
    MakeReporter(format, out, err)->Report(context, report);
    if (err_text) *err_text = Normalize(err.str());
    return Normalize(out.str());
  }

  std::string Normalize(const std::string& s) const {
    return ReplaceAll(ReplaceAll(s, results_, "$RESULTS"), published_, "$PUBLISHED");
  }

  test_logs::ScopedDir results_dir_{"golden_results"};
  test_logs::ScopedDir published_dir_{"golden_published"};
  const std::string results_ = results_dir_.path();
  const std::string published_ = published_dir_.path();
};

TEST_F(GoldenTest, Table) { ExpectMatchesGolden(Render("table"), "summary_golden.txt"); }

TEST_F(GoldenTest, Json) {
  const std::string text = Render("json");
  ExpectMatchesGolden(text, "summary_golden.json");
  // And it is one valid document with the schema version first.
  core::Json doc = core::Json::parse(text);
  EXPECT_EQ(doc.begin().key(), "schema_version");
  EXPECT_EQ(doc["schema_version"], kSummarySchemaVersion);
  EXPECT_EQ(doc["results"].size(), 4u);
}

TEST_F(GoldenTest, Csv) {
  std::string err;
  ExpectMatchesGolden(Render("csv", &err), "summary_golden.csv");
  EXPECT_EQ(err,
            "skipped: $RESULTS/host-b/image_classification/result_2.txt: no :::MLLOG or "
            ":::MLPv0.5.0 lines\n"
            "skipped: $PUBLISHED/orgx/results/sys1/resnet/result_4.txt: no run_stop event\n"
            "warning: $RESULTS/host-b/image_classification/result_1.txt:16: malformed line "
            "ignored: MLLOG payload is not a JSON object\n");
}

TEST(CsvReporter, QuotesFieldsWithCommasAndQuotes) {
  SummaryReport report;
  BenchmarkSummary s;
  s.benchmark = "a,b";
  s.system = "say \"hi\"";
  s.has_result = false;
  s.no_result_reason = "no runs";
  report.results.push_back(s);
  std::ostringstream out, err;
  CsvReporter(out, err).Report({}, report);
  const auto lines = Lines(out.str());
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[1],
            "\"a,b\",,\"say \"\"hi\"\"\",,0,n/a,0,n/a,n/a,n/a,n/a,n/a,n/a,n/a,"
            "no result: no runs");
}

TEST(MakeReporter, RejectsUnknownFormats) {
  std::ostringstream out, err;
  EXPECT_NE(dynamic_cast<ConsoleReporter*>(MakeReporter("table", out, err).get()), nullptr);
  EXPECT_NE(dynamic_cast<JsonReporter*>(MakeReporter("json", out, err).get()), nullptr);
  EXPECT_NE(dynamic_cast<CsvReporter*>(MakeReporter("csv", out, err).get()), nullptr);
  try {
    MakeReporter("xml", out, err);
    FAIL() << "expected core::Error";
  } catch (const core::Error& e) {
    EXPECT_EQ(std::string(e.what()), "unknown output format \"xml\" (known: table, json, csv)");
  }
}

}  // namespace
}  // namespace trainbench::summary

// `check --rcp` on the committed calibration runs and on sets derived from them, against the
// outcomes the official rcp_checker gave on the same sets (testdata/rcp/official_*.txt, made by
// scripts/rcp_official_compare.sh, whose rewriting of the logs MakeSet repeats).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "compliance/check_command.h"
#include "core/atomic_file.h"

namespace trainbench::compliance {
namespace {

namespace fs = std::filesystem;

const std::string kSrc = TRAINBENCH_TEST_SRCDIR;
const std::string kCalib = kSrc + "/docs/calibration/results/image_classification_epyc2_reference";

// A copy of the five reference resnet runs in `dir`, with every epoch_num multiplied by
// `epoch_scale` (as the script's sed does for 1/2) and the batch size set to `bs`.
std::string MakeSet(const std::string& dir, double epoch_scale, int bs) {
  fs::create_directories(dir);
  for (int i = 1; i <= 5; ++i) {
    std::string text = core::ReadFile(kCalib + "/result_" + std::to_string(i) + ".txt");
    std::string out;
    std::istringstream in(text);
    std::string line;
    const std::regex epoch("\"epoch_num\": ([0-9]+)");
    const std::regex gbs("\"key\": \"global_batch_size\", \"value\": [0-9]+");
    while (std::getline(in, line)) {
      if (epoch_scale != 1 && line.find("\"eval_accuracy\"") != std::string::npos) {
        std::smatch m;
        if (std::regex_search(line, m, epoch)) {
          const double e = std::stod(m[1]) * epoch_scale;
          std::ostringstream v;
          v << e;
          line = m.prefix().str() + "\"epoch_num\": " + v.str() + m.suffix().str();
        }
      }
      line = std::regex_replace(line, gbs,
                                "\"key\": \"global_batch_size\", \"value\": " + std::to_string(bs));
      out += line + "\n";
    }
    core::WriteFileAtomically(dir + "/result_" + std::to_string(i) + ".txt", out);
  }
  return dir;
}

// "PASSED" or "FAILED" from an official output file ("... RCP test PASSED" / "FAILED").
std::string OfficialOutcome(const std::string& name) {
  const std::string text = core::ReadFile(kSrc + "/src/compliance/testdata/rcp/" + name);
  if (text.find("RCP test PASSED") != std::string::npos) return "PASSED";
  if (text.find("RCP test FAILED") != std::string::npos) return "FAILED";
  return "?";
}

class CheckRcpTest : public ::testing::Test {
 protected:
  void SetUp() override {
    tmp_ = fs::temp_directory_path() /
           ("rcp_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(tmp_);
  }
  void TearDown() override { fs::remove_all(tmp_); }
  // Runs check --rcp; returns the official-style outcome of the one set and the output.
  std::string Check(const std::string& dir, const std::string& rcp_file, std::string* text) {
    RcpCheckOptions o;
    o.rcp_file = rcp_file;
    std::ostringstream out;
    const int rc = RunCheckRcpCommand({dir}, o, out);
    *text = out.str();
    return rc == kExitPass ? "PASSED" : "FAILED";
  }
  fs::path tmp_;
};

const std::string kRcpFile = kSrc + "/configs/rcp/image_classification_mini.json";
const std::string kTwoPoints = kSrc + "/src/compliance/testdata/rcp/rcps_resnet_64_256.json";

TEST_F(CheckRcpTest, CommittedReferenceRunsPass) {
  std::string text;
  EXPECT_EQ(Check(kCalib, "", &text), OfficialOutcome("official_reference_resnet.txt")) << text;
  EXPECT_NE(text.find("RCP PASSED: RCP found"), std::string::npos) << text;
  EXPECT_NE(text.find("image_classification_mini.json"), std::string::npos) << text;
}

TEST_F(CheckRcpTest, TooFastFails) {
  std::string text;
  const std::string dir = MakeSet((tmp_ / "fast").string(), 0.5, 128);
  EXPECT_EQ(Check(dir, kRcpFile, &text), OfficialOutcome("official_too_fast.txt")) << text;
  EXPECT_NE(text.find("RCP FAILED: RCP found"), std::string::npos) << text;
}

TEST_F(CheckRcpTest, InterpolatedBatchSize) {
  std::string text;
  const std::string dir = MakeSet((tmp_ / "interp").string(), 1, 128);
  EXPECT_EQ(Check(dir, kTwoPoints, &text), OfficialOutcome("official_interpolated.txt")) << text;
  EXPECT_NE(text.find("RCP Interpolation"), std::string::npos) << text;
}

TEST_F(CheckRcpTest, BelowTheSmallestBatchSizeJudgedAgainstIt) {
  std::string text;
  const std::string dir = MakeSet((tmp_ / "small").string(), 1, 32);
  EXPECT_EQ(Check(dir, kTwoPoints, &text), OfficialOutcome("official_below_range.txt")) << text;
  EXPECT_NE(text.find("RCP not found but slower convergence on smaller batch size"),
            std::string::npos)
      << text;
}

TEST_F(CheckRcpTest, AboveTheLargestBatchSizeIsMissing) {
  std::string text;
  const std::string dir = MakeSet((tmp_ / "big").string(), 1, 512);
  EXPECT_EQ(Check(dir, kTwoPoints, &text), OfficialOutcome("official_missing.txt")) << text;
  EXPECT_NE(text.find("RCP MISSING: Missing RCP, please submit RCP with BS = 512"),
            std::string::npos)
      << text;
}

TEST_F(CheckRcpTest, BadInput) {
  RcpCheckOptions o;
  std::ostringstream out;
  EXPECT_EQ(RunCheckRcpCommand({(tmp_ / "none").string()}, o, out), kExitBadInput);
  o.ruleset = "0.7.0";
  EXPECT_EQ(RunCheckRcpCommand({kCalib}, o, out), kExitBadInput);
  EXPECT_NE(out.str().find("unknown RCP ruleset 0.7.0"), std::string::npos) << out.str();
}

}  // namespace
}  // namespace trainbench::compliance

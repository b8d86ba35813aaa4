#include "core/mllog.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <vector>

#include "core/mllog_keys.h"

namespace trainbench::core {
namespace {

TEST(FormatMllogLine, MatchesTheOfficialLayoutExactly) {
  EXPECT_EQ(
      FormatMllogLine("", 1700000000001, EventType::kIntervalStart, "init_start", nullptr,
                      "train.cc", 11, Json::object()),
      R"(:::MLLOG {"namespace": "", "time_ms": 1700000000001, "event_type": "INTERVAL_START", )"
      R"("key": "init_start", "value": null, "metadata": {"file": "train.cc", "lineno": 11}})");
  Json md = {{"epoch_num", 1}};
  EXPECT_EQ(
      FormatMllogLine("", 1700000125001, EventType::kPointInTime, "eval_accuracy", 0.7612,
                      "train.cc", 39, md),
      R"(:::MLLOG {"namespace": "", "time_ms": 1700000125001, "event_type": "POINT_IN_TIME", )"
      R"("key": "eval_accuracy", "value": 0.7612, "metadata": {"file": "train.cc", "lineno": 39, "epoch_num": 1}})");
}

// Re-creates ../shared/example_closed_resnet.log's layout through the Logger and compares the
// result with the golden file, line by line.
TEST(Logger, WritesTheGoldenLog) {
  std::vector<std::string> lines;
  int64_t t = 1700000000000;
  Logger log([&](const std::string& l) { lines.push_back(l); }, [&] { return t++; });
  // Metadata file/lineno come from the caller; use LogAt-style explicit locations here so the
  // golden file does not depend on this test's line numbers.
  SourceLoc loc{"train.cc", 10};
  auto at = [&](int line) {
    loc.line = line;
    return loc;
  };
  log.Log(at(10), EventType::kPointInTime, keys::kCacheClear, true);
  log.Log(at(11), EventType::kIntervalStart, keys::kInitStart);
  log.Log(at(12), EventType::kPointInTime, keys::kSubmissionBenchmark, "resnet");
  log.Log(at(13), EventType::kPointInTime, keys::kGlobalBatchSize, 3264);
  log.Log(at(14), EventType::kPointInTime, "lars_opt_weight_decay", 5e-05);
  log.Log(at(15), EventType::kPointInTime, "lars_epsilon", 0.0);
  log.Log(at(16), EventType::kIntervalStart, keys::kBlockStart, nullptr,
          Json{{"first_epoch_num", 1}, {"epoch_count", 1}});
  log.Log(at(17), EventType::kIntervalEnd, keys::kRunStop, nullptr, Json{{"status", "success"}});
  std::ifstream golden(std::string(TRAINBENCH_TEST_SRCDIR) +
                       "/src/core/testdata/logger_golden.log");
  ASSERT_TRUE(golden) << "missing golden file";
  std::string g;
  size_t i = 0;
  while (std::getline(golden, g)) {
    ASSERT_LT(i, lines.size());
    EXPECT_EQ(lines[i], g) << "line " << i + 1;
    ++i;
  }
  EXPECT_EQ(i, lines.size());
}

TEST(Logger, MacrosCaptureFileAndLine) {
  std::vector<std::string> lines;
  Logger log([&](const std::string& l) { lines.push_back(l); }, [] { return int64_t{5}; });
  const int expected_line = __LINE__ + 1;  // the line of the call below
  TB_MLLOG_EVENT(log, keys::kSeed, 42);
  TB_MLLOG_START(log, keys::kRunStart);
  TB_MLLOG_END(log, keys::kEpochStop, nullptr, Json{{"epoch_num", 3}});
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_NE(lines[0].find(R"("value": 42, "metadata": {"file": "mllog_test.cc", "lineno": )" +
                          std::to_string(expected_line) + "}"),
            std::string::npos)
      << lines[0];
  EXPECT_NE(lines[1].find(R"("event_type": "INTERVAL_START", "key": "run_start", "value": null)"),
            std::string::npos);
  EXPECT_NE(lines[2].find(R"("epoch_num": 3}})"), std::string::npos);
}

TEST(Logger, DisabledLoggerWritesNothing) {
  int calls = 0;
  Logger log([&](const std::string&) { ++calls; }, WallClockMs, "", /*enabled=*/false);
  TB_MLLOG_EVENT(log, keys::kSeed, 1);
  EXPECT_EQ(calls, 0);
}

}  // namespace
}  // namespace trainbench::core

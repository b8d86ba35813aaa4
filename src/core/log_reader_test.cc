#include "core/log_reader.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdio>
#include <sstream>

#include "core/error.h"

namespace trainbench::core {
namespace {

ParsedLog Parse(const std::string& text) {
  std::istringstream in(text);
  return ParseLog(in, "mem.log");
}

TEST(LogReader, ReadsTheSharedExampleLog) {
  ParsedLog log = ReadLogFile(std::string(TRAINBENCH_TEST_SRCDIR) +
                              "/src/compliance/testdata/good_closed_resnet.log");
  EXPECT_EQ(log.format, LogFormat::kMllog);
  EXPECT_TRUE(log.errors.empty());
  ASSERT_EQ(log.records.size(), 31u);
  EXPECT_EQ(log.records[0].key, "cache_clear");
  EXPECT_EQ(log.records[0].line_no, 1);
  EXPECT_EQ(log.Find("global_batch_size")->value, 3264);
  EXPECT_EQ(log.Find("run_stop")->metadata["status"], "success");
  EXPECT_EQ(log.Find("run_stop")->type, EventType::kIntervalEnd);
  EXPECT_DOUBLE_EQ(log.Find("eval_accuracy")->time_ms, 1700000125001.0);
}

TEST(LogReader, AllowsAPrefixAndIgnoresOtherLines) {
  auto log = Parse(
      "some training output\n"
      "[1,0]<stdout>::::MLLOG {\"namespace\": \"\", \"time_ms\": 5, \"event_type\": "
      "\"POINT_IN_TIME\", "
      "\"key\": \"seed\", \"value\": 3, \"metadata\": {\"file\": \"a.py\", \"lineno\": 1}}\n");
  ASSERT_EQ(log.records.size(), 1u);
  EXPECT_EQ(log.records[0].line_no, 2);
  EXPECT_EQ(log.records[0].value, 3);
}

TEST(LogReader, HostileLinesAreErrorsOfTheirLineAndTheRestIsRead) {
  const std::string good =
      ":::MLLOG {\"namespace\": \"\", \"time_ms\": 5, \"event_type\": \"POINT_IN_TIME\", "
      "\"key\": \"seed\", \"value\": 3, \"metadata\": {}}\n";
  // 65,000 levels of '[' (a stack overflow in the recursive JSON copy before the bound), a
  // number outside a double (an uncaught nlohmann out_of_range before), a 400-digit integer.
  auto log = Parse(good + ":::MLLOG " + std::string(65000, '[') + "\n" +
                   ":::MLLOG {\"namespace\": \"\", \"time_ms\": 1e400}\n" +
                   ":::MLLOG {\"value\": " + std::string(400, '7') + "}\n" + good);
  ASSERT_EQ(log.records.size(), 2u);
  EXPECT_EQ(log.records[1].line_no, 5);
  ASSERT_EQ(log.errors.size(), 3u);
  EXPECT_EQ(log.errors[0].line_no, 2);
  EXPECT_NE(log.errors[0].message.find("nesting deeper than 512 levels"), std::string::npos)
      << log.errors[0].message;
  EXPECT_EQ(log.errors[1].line_no, 3);
  EXPECT_NE(log.errors[1].message.find("'1e400' is out of the range of a double"),
            std::string::npos)
      << log.errors[1].message;
  EXPECT_EQ(log.errors[2].line_no, 4);
}

TEST(LogReader, MalformedLinesBecomeErrorsWithTheirLineNumber) {
  auto log = Parse(
      ":::MLLOG {\"namespace\": \"\", \"time_ms\": 5, \"event_type\": \"POINT_IN_TIME\", \"key\": "
      "\"a\", "
      "\"value\": 1, \"metadata\": {}}\n"
      ":::MLLOG {\"namespace\": \"\", \"time_ms\": 5, \"event_ty\n"
      ":::MLLOG {\"namespace\": \"\", \"time_ms\": 5, \"event_type\": \"SOMETIME\", \"key\": "
      "\"a\", "
      "\"value\": 1, \"metadata\": {}}\n"
      ":::MLLOG {\"namespace\": \"\", \"time_ms\": \"5\", \"event_type\": \"POINT_IN_TIME\", "
      "\"key\": \"a\", "
      "\"value\": 1, \"metadata\": {}}\n"
      ":::MLLOG [1, 2]\n");
  EXPECT_EQ(log.records.size(), 1u);
  ASSERT_EQ(log.errors.size(), 4u);
  EXPECT_EQ(log.errors[0].line_no, 2);
  EXPECT_NE(log.errors[0].message.find("malformed MLLOG JSON"), std::string::npos);
  EXPECT_EQ(log.errors[1].line_no, 3);
  EXPECT_NE(log.errors[1].message.find("event_type"), std::string::npos);
  EXPECT_NE(log.errors[2].message.find("time_ms"), std::string::npos);
  EXPECT_NE(log.errors[3].message.find("not a JSON object"), std::string::npos);
}

TEST(LogReader, ParsesLegacyV05Lines) {
  auto log = Parse(
      ":::MLPv0.5.0 resnet 1541638787.2339485 (resnet/imagenet_main.py:123) run_start\n"
      ":::MLPv0.5.0 resnet 1541638790.5 (x.py:7) eval_accuracy: {\"epoch\": 3, \"value\": 0.73}\n"
      ":::MLPv0.5.0 resnet 1541638799.0 (x.py:8) run_stop: {\"success\": true}\n"
      ":::MLPv0.5.0 resnet 1541638799.5 (x.py:9) run_set_random_seed: 12\n"
      ":::MLPv0.5.0 resnet 1541638799.5 (x.py:9) opt_name: 'sgd'\n");
  EXPECT_EQ(log.format, LogFormat::kLegacyV05);
  ASSERT_EQ(log.records.size(), 5u);
  EXPECT_EQ(log.records[0].benchmark, "resnet");
  EXPECT_EQ(log.records[0].key, "run_start");
  EXPECT_TRUE(log.records[0].value.is_null());
  EXPECT_NEAR(log.records[0].time_ms, 1541638787233.9485, 1e-3);
  EXPECT_EQ(log.records[1].value["value"], 0.73);
  EXPECT_EQ(log.records[2].value["success"], true);
  EXPECT_EQ(log.records[3].value, 12);
  EXPECT_EQ(log.records[4].value, "'sgd'");  // Python literal kept as text
}

TEST(LogReader, LegacyLinesWithInvalidUtf8OrAnOverflowingTimeAreErrorsOfTheirLine) {
  // A stray byte kept as text made every later JSON dump of the value throw (#41); a time of
  // 1e306 s is inf ms.
  auto log = Parse(
      ":::MLPv0.5.0 resnet 1541638787.5 (x.py:1) run_start\n"
      ":::MLPv0.5.0 resnet 1541638788.5 (x.py:2) opt_name: 'sg\xff'\n"
      ":::MLPv0.5.0 res\xc0net 1541638788.5 (x.py:3) run_stop\n"
      ":::MLPv0.5.0 resnet 1e306 (x.py:4) run_stop\n"
      ":::MLPv0.5.0 resnet 1541638799.0 (x.py:5) run_stop: {\"success\": true}\n");
  ASSERT_EQ(log.records.size(), 2u);
  EXPECT_EQ(log.records[1].line_no, 5);
  ASSERT_EQ(log.errors.size(), 3u);
  EXPECT_EQ(log.errors[0].line_no, 2);
  EXPECT_NE(log.errors[0].message.find("value of opt_name is not valid UTF-8 (byte 55"),
            std::string::npos)
      << log.errors[0].message;
  EXPECT_NE(log.errors[1].message.find("benchmark name is not valid UTF-8"), std::string::npos)
      << log.errors[1].message;
  EXPECT_NE(log.errors[2].message.find("\"1e306\" is out of range"), std::string::npos)
      << log.errors[2].message;
}

TEST(LogReader, LinesOfTheOtherFormatAreKeptApartFromTheRecords) {
  auto log = Parse(
      ":::MLLOG {\"namespace\": \"\", \"time_ms\": 5, \"event_type\": \"POINT_IN_TIME\", "
      "\"key\": \"seed\", \"value\": 3, \"metadata\": {}}\n"
      ":::MLPv0.5.0 resnet 1541638799.0 (x.py:5) run_stop: {\"success\": true}\n");
  EXPECT_EQ(log.format, LogFormat::kMllog);
  ASSERT_EQ(log.records.size(), 1u);
  ASSERT_EQ(log.other_format_lines.size(), 1u);
  EXPECT_EQ(log.other_format_lines[0].line_no, 2);
  EXPECT_EQ(log.other_format_lines[0].message,
            "a :::MLPv0.5.0 line (key run_stop) in a log whose first marked line (1) is "
            ":::MLLOG");
}

TEST(LogReader, AFifoIsRefusedWithoutBeingOpened) {
  const std::string fifo = ::testing::TempDir() + "log_reader_fifo_result_1.txt";
  std::remove(fifo.c_str());
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  try {
    ReadLogFile(fifo);  // would block in open() without a writer
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(fifo + ": is a FIFO, not a regular file"),
              std::string::npos)
        << e.what();
  }
  std::remove(fifo.c_str());
}

TEST(LogReader, MissingFileIsAnErrorNamingIt) {
  try {
    ReadLogFile("/nonexistent/result_1.txt");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/result_1.txt"), std::string::npos);
  }
}

}  // namespace
}  // namespace trainbench::core

// Reading epochs to converge from logs as the official rcp_checker reads them.
#include "rcp/rcp_log.h"

#include <gtest/gtest.h>

#include "core/error.h"
#include "rcp/rcp.h"

namespace trainbench::rcp {
namespace {

std::string Line(const std::string& key, const std::string& value, const std::string& md = "") {
  return ":::MLLOG {\"namespace\": \"\", \"time_ms\": 1, \"event_type\": \"POINT_IN_TIME\", "
         "\"key\": \"" +
         key + "\", \"value\": " + value + ", \"metadata\": {\"file\": \"t.cc\", \"lineno\": 1" +
         (md.empty() ? "" : ", " + md) + "}}\n";
}

std::string Log(const std::string& status = "success") {
  return Line("submission_benchmark", "\"resnet\"") + Line("trainbench_benchmark", "\"ic\"") +
         Line("trainbench_scale", "\"mini\"") + Line("global_batch_size", "128") +
         Line("opt_name", "\"sgd\"") + Line("sgd_opt_base_learning_rate", "0.1") +
         Line("epoch_stop", "null", "\"epoch_num\": 1, \"samples_count\": 100") +
         Line("eval_accuracy", "0.5", "\"epoch_num\": 1") +
         Line("epoch_stop", "null", "\"epoch_num\": 2, \"samples_count\": 100") +
         "[1,0]<stdout>: " + Line("eval_accuracy", "0.9", "\"epoch_num\": 2.00049") +
         Line("run_stop", "null", "\"status\": \"" + status + "\"") +
         Line("eval_accuracy", "0.95", "\"epoch_num\": 3");
}

TEST(RcpLogTest, EpochsOfTheLastEvalBeforeASuccessfulRunStop) {
  LogConvergence c = ReadConvergence(Log(), "r.txt");
  EXPECT_TRUE(c.converged);
  EXPECT_EQ(c.epochs, 2.0);  // round(2.00049, 3); the eval after run_stop does not count
  EXPECT_EQ(c.bs, 128);
  EXPECT_EQ(*c.benchmark, "resnet");
  EXPECT_EQ(c.trainbench_benchmark, "ic");
  EXPECT_EQ(c.trainbench_scale, "mini");
  EXPECT_EQ(c.samples, 200);
  EXPECT_EQ(c.hyperparams.dump(), R"({"optimizer":"sgd","sgd_opt_base_learning_rate":0.1})");
}

TEST(RcpLogTest, NotConverged) {
  LogConvergence c = ReadConvergence(Log("aborted"), "r.txt");
  EXPECT_FALSE(c.converged);
  EXPECT_EQ(c.epochs, kNotConverged);
  c = ReadConvergence(Line("global_batch_size", "128"), "r.txt");  // no run_stop
  EXPECT_FALSE(c.converged);
  EXPECT_EQ(c.bs, 128);
}

TEST(RcpLogTest, ReadsBySubstringAsTheOfficialReader) {
  // Any line containing "global_batch_size" sets the batch size, whatever its key.
  LogConvergence c = ReadConvergence(Line("my_global_batch_size", "64"), "r.txt");
  EXPECT_EQ(c.bs, 64);
  // No batch size: -1.
  EXPECT_EQ(ReadConvergence("no marker\n", "r.txt").bs, -1);
}

TEST(RcpLogTest, BertTrainSamplesAndSamplesCount) {
  ReadOptions o;
  o.bert_train_samples = true;
  std::string bert = Line("submission_benchmark", "\"bert\"") + Line("train_samples", "3000") +
                     Line("eval_accuracy", "0.72", "\"epoch_num\": 9") +
                     Line("run_stop", "null", "\"status\": \"success\"");
  EXPECT_EQ(ReadConvergence(bert, "r.txt", o).epochs, 3000);
  EXPECT_EQ(ReadConvergence(bert, "r.txt").epochs, 9);
  std::string lora = Line("submission_benchmark", "\"llama2_70b_lora\"") +
                     Line("eval_accuracy", "0.92", "\"samples_count\": 3072") +
                     Line("run_stop", "null", "\"status\": \"success\"");
  EXPECT_EQ(ReadConvergence(lora, "r.txt").epochs, 3072);
}

TEST(RcpLogTest, ErrorsNameFileAndLine) {
  std::string log = Line("submission_benchmark", "\"resnet\"") +
                    Line("run_stop", "null", "\"status\": \"success\"");
  try {
    ReadConvergence(log, "r.txt");
    FAIL();
  } catch (const core::Error& e) {
    EXPECT_NE(std::string(e.what()).find("r.txt:2:"), std::string::npos) << e.what();
  }
  EXPECT_THROW(ReadConvergence(":::MLLOG {bad global_batch_size\n", "r.txt"), core::Error);
}

TEST(RcpLogTest, Round3) {
  EXPECT_EQ(Round3(2.00049), 2.0);
  EXPECT_EQ(Round3(1.2345), 1.234);  // 1.2345 is 1.23449999... in binary, as Python rounds
  EXPECT_EQ(Round3(0.0005), 0.001);  // 0.0005 is 0.000500000000000000010408...
}

}  // namespace
}  // namespace trainbench::rcp

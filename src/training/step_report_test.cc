// ReportStep: the loss is read every `every` steps only, a non-finite read loss stops the run
// with "training diverged", and the control's answer is passed back.
#include "training/step_report.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "core/error.h"

namespace trainbench::training {
namespace {

class Recorder : public train::TrainControl {
 public:
  bool OnStep(int64_t samples, double loss) override {
    samples_.push_back(samples);
    losses_.push_back(loss);
    return answer_;
  }
  std::vector<int64_t> samples_;
  std::vector<double> losses_;
  bool answer_ = true;
};

TEST(ReportStep, ReadsTheLossEveryNStepsOnly) {
  Recorder r;
  const torch::Tensor loss = torch::tensor(2.5);
  for (int64_t step = 1; step <= 4; ++step) EXPECT_TRUE(ReportStep(r, loss, step, 2, 8));
  ASSERT_EQ(r.losses_.size(), 4u);
  EXPECT_TRUE(std::isnan(r.losses_[0]));
  EXPECT_DOUBLE_EQ(r.losses_[1], 2.5);
  EXPECT_TRUE(std::isnan(r.losses_[2]));
  EXPECT_DOUBLE_EQ(r.losses_[3], 2.5);
  EXPECT_EQ(r.samples_, (std::vector<int64_t>{8, 8, 8, 8}));
}

TEST(ReportStep, PassesTheControlsAnswerBack) {
  Recorder r;
  r.answer_ = false;
  EXPECT_FALSE(ReportStep(r, torch::tensor(1.0), 3, 10, 1));
}

TEST(ReportStep, NonFiniteReadLossIsDivergence) {
  for (double bad :
       {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
    Recorder r;
    try {
      ReportStep(r, torch::tensor(bad), 20, 20, 1);
      FAIL() << "no error for loss " << bad;
    } catch (const core::Error& e) {
      EXPECT_NE(std::string(e.what()).find("training diverged"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("at step 20"), std::string::npos) << e.what();
    }
    EXPECT_TRUE(r.losses_.empty());
    // An unread step does not look at the value.
    EXPECT_TRUE(ReportStep(r, torch::tensor(bad), 21, 20, 1));
  }
}

}  // namespace
}  // namespace trainbench::training

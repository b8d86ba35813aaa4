#include "runner/job.h"

#include <gtest/gtest.h>

namespace trainbench::runner {
namespace {

JobSpec Spec() {
  JobSpec j;
  j.benchmark = "recommendation";
  j.scale = "mini";
  j.division = "closed";
  j.runs = 2;
  j.config = core::Json{{"batch_size", 2048}, {"lr", 0.0045}};
  j.max_steps = 10;
  j.world_size = 2;
  return j;
}

TEST(JobFingerprint, KeepsItsKeysAndTheirOrder) {
  // Launchers of other builds compare this text: it must not change.
  EXPECT_EQ(JobFingerprint(Spec()),
            R"({"benchmark":"recommendation","scale":"mini","division":"closed","runs":2,)"
            R"("config":{"batch_size":2048,"lr":0.0045},"max_steps":10,"max_epochs":-1,)"
            R"("world_size":2})");
}

TEST(FirstDifference, NamesTheConfigurationKeyWithBothValues) {
  JobSpec here = Spec();
  here.config["batch_size"] = 1024;
  EXPECT_EQ(FirstDifference(JobFingerprint(here), JobFingerprint(Spec())),
            "config.batch_size (rank 0: 2048, here: 1024)");
}

TEST(FirstDifference, NamesATopLevelKey) {
  JobSpec here = Spec();
  here.runs = 1;
  here.max_steps = 5;  // after runs: the first difference is named
  EXPECT_EQ(FirstDifference(JobFingerprint(here), JobFingerprint(Spec())),
            "runs (rank 0: 2, here: 1)");
}

TEST(FirstDifference, AKeyOnlyHere) {
  JobSpec here = Spec();
  here.config["momentum"] = 0.9;
  EXPECT_EQ(FirstDifference(JobFingerprint(here), JobFingerprint(Spec())),
            "config.momentum (rank 0: null, here: 0.9)");
}

TEST(FirstDifference, NoSingleKeyWhenEqual) {
  EXPECT_EQ(FirstDifference(JobFingerprint(Spec()), JobFingerprint(Spec())), "(no single key)");
}

}  // namespace
}  // namespace trainbench::runner

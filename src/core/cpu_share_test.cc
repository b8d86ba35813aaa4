#include "core/cpu_share.h"

#include <gtest/gtest.h>

namespace trainbench::core {
namespace {

TEST(CpuShare, ParsesTheAggregateLineOfProcStat) {
  const std::string text =
      "cpu  100 5 50 800 20 3 2 10 0 0\n"
      "cpu0 50 2 25 400 10 1 1 5 0 0\n"
      "intr 12345\n";
  auto t = ParseProcStat(text);
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->machine_busy, 100u + 5 + 50 + 3 + 2 + 10);   // user nice system irq softirq steal
  EXPECT_EQ(t->machine_total, t->machine_busy + 800 + 20);  // + idle iowait
  EXPECT_FALSE(ParseProcStat("intr 1\n").has_value());
  EXPECT_FALSE(ParseProcStat("cpu  1 2\n").has_value());
  // A kernel with only the first four columns.
  auto old = ParseProcStat("cpu  1 2 3 4\n");
  ASSERT_TRUE(old.has_value());
  EXPECT_EQ(old->machine_busy, 6u);
  EXPECT_EQ(old->machine_total, 10u);
}

TEST(CpuShare, ParsesProcessTicksAfterACommandNameWithSpacesAndParentheses) {
  // pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime
  EXPECT_EQ(ParseProcessTicks("42 (trainbench) R 1 42 42 0 -1 4194304 100 0 0 0 250 50 0 0 20 0"),
            std::optional<uint64_t>(300));
  EXPECT_EQ(ParseProcessTicks("42 (a (b) c) S 1 42 42 0 -1 0 0 0 0 0 7 3 0 0"),
            std::optional<uint64_t>(10));
  EXPECT_FALSE(ParseProcessTicks("42 trainbench R 1").has_value());
  EXPECT_FALSE(ParseProcessTicks("42 (x) R 1 2").has_value());
}

TEST(CpuShare, SharesBetweenTwoReadings) {
  CpuTimes a{1000, 4000, 100};
  CpuTimes b{1000 + 700, 4000 + 1000, 100 + 500};  // 1000 ticks: 700 busy, 500 of them ours
  auto s = CpuShareBetween(a, b);
  ASSERT_TRUE(s.has_value());
  EXPECT_DOUBLE_EQ(s->own, 0.5);
  EXPECT_DOUBLE_EQ(s->other, 0.2);
  EXPECT_FALSE(CpuShareBetween(b, a).has_value());  // time went backwards
  EXPECT_FALSE(CpuShareBetween(a, a).has_value());  // no time passed
}

TEST(CpuShare, ReadsThisMachine) {
  auto a = ReadCpuTimes();
  ASSERT_TRUE(a.has_value());  // the tests run on Linux
  volatile double x = 0;
  for (int i = 0; i < 20000000; ++i) x = x + 1e-9 * i;  // burn a little CPU
  auto b = ReadCpuTimes();
  ASSERT_TRUE(b.has_value());
  EXPECT_GE(b->machine_total, a->machine_total);
  EXPECT_GE(b->process, a->process);
}

}  // namespace
}  // namespace trainbench::core

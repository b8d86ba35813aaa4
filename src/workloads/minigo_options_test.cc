#include "workloads/minigo_options.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "core/benchmark_def.h"
#include "core/error.h"
#include "workloads/options_test_util.h"

namespace trainbench::workloads {
namespace {

TEST(MiniGoOptions, MiniDefaults) {
  const MiniGoOptions o = MiniGoOptions::FromConfig(
      ReferenceConfig("reinforcement_learning", "mini"), Preset("reinforcement_learning", "mini"));
  EXPECT_EQ(o.board_size, 9);
  EXPECT_EQ(o.filters, 16);
  EXPECT_EQ(o.batch_size, 64);
  EXPECT_EQ(o.readouts, 256);
  EXPECT_DOUBLE_EQ(o.playout_weight, 0.5);
  EXPECT_EQ(o.search_precision, "fp32");
  EXPECT_EQ(o.gating_games, 0);
  EXPECT_EQ(o.gnugo_every, 25);
  EXPECT_EQ(o.gnugo_binary, "/usr/games/gnugo");
  EXPECT_EQ(o.eval_games_subdir, "test");
}

TEST(MiniGoOptions, FullDefaults) {
  const MiniGoOptions o = MiniGoOptions::FromConfig(
      ReferenceConfig("reinforcement_learning", "full"), Preset("reinforcement_learning", "full"));
  EXPECT_EQ(o.blocks, 9);
  EXPECT_EQ(o.games_per_generation, 1000);
  EXPECT_EQ(o.train_steps, 2000);
  EXPECT_EQ(o.gating_games, 100);
  EXPECT_DOUBLE_EQ(o.gating_win_rate, 0.55);
  EXPECT_EQ(o.gnugo_level, 10);
  EXPECT_EQ(o.eval_games_subdir, "");
}

TEST(MiniGoOptions, GnuGoEveryIsAtLeastOne) {
  core::Json c = ReferenceConfig("reinforcement_learning", "mini");
  c["gnugo_every"] = 0;
  EXPECT_EQ(MiniGoOptions::FromConfig(c, Preset("reinforcement_learning", "mini")).gnugo_every, 1);
}

TEST(MiniGoOptions, ErrorsNameTheKey) {
  core::Json c = ReferenceConfig("reinforcement_learning", "mini");
  c["komi"] = "seven";
  EXPECT_EQ(
      ErrorOf([&] { MiniGoOptions::FromConfig(c, Preset("reinforcement_learning", "mini")); }),
      "configuration key \"komi\": expected a number, got \"seven\"");
  c = ReferenceConfig("reinforcement_learning", "mini");
  c["search_precision"] = "int8";
  EXPECT_EQ(
      ErrorOf([&] { MiniGoOptions::FromConfig(c, Preset("reinforcement_learning", "mini")); }),
      "configuration key \"search_precision\": expected fp32, bf16 or fp16, got \"int8\"");
  c = ReferenceConfig("reinforcement_learning", "mini");
  c.erase("readouts");
  EXPECT_EQ(
      ErrorOf([&] { MiniGoOptions::FromConfig(c, Preset("reinforcement_learning", "mini")); }),
      "configuration key \"readouts\": missing from the configuration");
  EXPECT_EQ(ErrorOf([&] {
              MiniGoOptions::FromConfig(ReferenceConfig("reinforcement_learning", "mini"),
                                        core::Json::object());
            }),
            "configuration key \"eval_games_subdir\": missing from the configuration");
}

}  // namespace
}  // namespace trainbench::workloads

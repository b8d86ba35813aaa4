#include "dist/process_group.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

#include "core/error.h"
#include "dist/test_util.h"

namespace trainbench::dist {
namespace {

using testing::ChildEnd;
using testing::ExpectAllOk;
using testing::ForkRanks;

// Inside a child: a failed expectation exits non-zero with a message.
#define CHILD_EXPECT(cond)                                                                \
  do {                                                                                    \
    if (!(cond)) {                                                                        \
      std::fprintf(stderr, "%s:%d: expectation failed: %s\n", __FILE__, __LINE__, #cond); \
      return 1;                                                                           \
    }                                                                                     \
  } while (0)

TEST(LocalGroup, CollectivesAreTheIdentity) {
  auto g = MakeLocalGroup();
  EXPECT_EQ(g->size(), 1);
  EXPECT_EQ(g->rank(), 0);
  torch::Tensor t = torch::tensor({1.0f, 2.0f});
  g->AllReduceSum(t);
  EXPECT_TRUE(torch::equal(t, torch::tensor({1.0f, 2.0f})));
  EXPECT_EQ(AllReduceSum(*g, {3.0, 4.0}), (std::vector<double>{3.0, 4.0}));
  EXPECT_EQ(g->AllGather(t).size(), 1u);
}

TEST(GlooGroup, CollectivesOverThreeRanks) {
  auto ends = ForkRanks(3, [](std::shared_ptr<ProcessGroup> g) {
    const int r = g->rank();
    CHILD_EXPECT(g->size() == 3 && g->backend() == "gloo");
    torch::Tensor t = torch::full({5}, static_cast<float>(r + 1));
    g->AllReduceSum(t);
    CHILD_EXPECT(torch::equal(t, torch::full({5}, 6.0f)));
    torch::Tensor b = torch::full({2, 2}, static_cast<double>(r), torch::kFloat64);
    g->Broadcast(b, 2);
    CHILD_EXPECT(torch::equal(b, torch::full({2, 2}, 2.0, torch::kFloat64)));
    auto all = g->AllGather(torch::tensor({static_cast<int64_t>(10 * r)}));
    CHILD_EXPECT(all.size() == 3);
    for (int k = 0; k < 3; ++k) CHILD_EXPECT(all[k].item<int64_t>() == 10 * k);
    std::vector<double> s = AllReduceSum(*g, {0.5 * r, 1e15 + r});
    CHILD_EXPECT(s[0] == 1.5 && s[1] == 3e15 + 3);
    g->Barrier();
    return 0;
  });
  ExpectAllOk(ends);
}

TEST(GlooGroup, ReplicaCheckFindsADivergedRank) {
  auto ends = ForkRanks(2, [](std::shared_ptr<ProcessGroup> g) {
    std::vector<torch::Tensor> same = {torch::arange(10, torch::kFloat32), torch::ones({3, 3})};
    CheckReplicasIdentical(*g, same, "weight");
    std::vector<torch::Tensor> differ = {torch::arange(10, torch::kFloat32), torch::ones({3, 3})};
    if (g->rank() == 1) differ[1][2][1] = 1.0f + 1e-6f;
    try {
      CheckReplicasIdentical(*g, differ, "weight");
    } catch (const core::Error& e) {
      std::string m = e.what();
      CHILD_EXPECT(m.find("replicas diverged: weight tensor 1 differs between rank 0 and rank 1") !=
                   std::string::npos);
      return 0;
    }
    return 1;
  });
  ExpectAllOk(ends);
}

// A rank that dies: the survivor's next collective fails promptly with an error naming it.
TEST(GlooGroup, DeadRankMakesTheOthersFailPromptly) {
  auto ends = ForkRanks(
      2,
      [](std::shared_ptr<ProcessGroup> g) {
        torch::Tensor t = torch::ones({1024});
        for (int step = 0; step < 50; ++step) {
          if (g->rank() == 1 && step == 3) ::_exit(7);  // dies without a word
          try {
            g->AllReduceSum(t);
          } catch (const core::Error& e) {
            std::string m = e.what();
            CHILD_EXPECT(m.find("data-parallel allreduce failed on rank 0 of 2") !=
                         std::string::npos);
            // Step 3 is the first the dead rank misses (step 2 at the earliest, if the reset
            // overtakes data already sent).
            CHILD_EXPECT(step == 2 || step == 3);
            return 42;
          }
        }
        return 0;
      },
      /*timeout_s=*/30);
  ASSERT_EQ(ends.size(), 2u);
  EXPECT_EQ(ends[1].code, 7);
  EXPECT_EQ(ends[0].code, 42) << "rank 0 must see the failure as an error";
  // Well inside the 30 s collective timeout: a closed connection is noticed at once.
  EXPECT_LT(ends[0].seconds, 20.0);
}

// A rank that stops answering (SIGSTOP): the survivor's collective times out after the group's
// timeout, with an error, instead of hanging.
TEST(GlooGroup, HungRankMakesTheOthersTimeOut) {
  auto ends = ForkRanks(
      2,
      [](std::shared_ptr<ProcessGroup> g) {
        torch::Tensor t = torch::ones({16});
        g->AllReduceSum(t);
        if (g->rank() == 1) ::raise(SIGSTOP);
        auto t0 = std::chrono::steady_clock::now();
        try {
          g->AllReduceSum(t);
        } catch (const core::Error& e) {
          double waited =
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
          CHILD_EXPECT(std::string(e.what()).find("failed on rank 0 of 2") != std::string::npos);
          CHILD_EXPECT(waited >= 1.5 && waited < 15.0);
          return 42;
        }
        return 0;
      },
      /*timeout_s=*/2, /*deadline_s=*/8);
  EXPECT_EQ(ends[0].code, 42);
  EXPECT_FALSE(ends[1].exited);  // still stopped; killed at the deadline
}

}  // namespace
}  // namespace trainbench::dist

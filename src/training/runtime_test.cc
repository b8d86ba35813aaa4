// The thread-count scopes set their count for their life and restore the previous one.
#include "training/runtime.h"

#include <ATen/Parallel.h>
#include <dlfcn.h>
#include <gtest/gtest.h>

namespace trainbench::training {
namespace {

// The scope sets OpenBLAS's thread count for its life (0: leaves it) and restores the previous one.
TEST(BlasThreadsScope, SetsForItsLifeAndRestores) {
  using GetThreads = int (*)();
  auto get = reinterpret_cast<GetThreads>(::dlsym(RTLD_DEFAULT, "openblas_get_num_threads"));
  if (!get) GTEST_SKIP() << "no OpenBLAS loaded";
  ASSERT_TRUE(SetBlasThreads(2));
  const int last_set = BlasThreads();
  {
    BlasThreadsScope one(1);
    EXPECT_EQ(get(), 1);
    EXPECT_EQ(BlasThreads(), 1);
    {
      BlasThreadsScope nothing(0);  // 0: left as it is
      EXPECT_EQ(get(), 1);
    }
    EXPECT_EQ(get(), 1);
  }
  EXPECT_EQ(get(), 2);
  EXPECT_EQ(BlasThreads(), last_set);
}

// The intra-op scope restores the count it found, or the one it is given, once: at Restore() or
// at its end.
TEST(IntraOpThreadsScope, SetsForItsLifeAndRestores) {
  at::set_num_threads(2);
  if (at::get_num_threads() != 2) GTEST_SKIP() << "this LibTorch's intra-op thread count is fixed";
  {
    IntraOpThreadsScope one(1);
    EXPECT_EQ(at::get_num_threads(), 1);
  }
  EXPECT_EQ(at::get_num_threads(), 2);
  {
    IntraOpThreadsScope one(1, 3);
    EXPECT_EQ(at::get_num_threads(), 1);
    one.Restore();
    EXPECT_EQ(at::get_num_threads(), 3);
    at::set_num_threads(2);
  }
  EXPECT_EQ(at::get_num_threads(), 2);  // not restored again
}

}  // namespace
}  // namespace trainbench::training

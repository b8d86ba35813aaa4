// The BLAS thread-count scope sets its count for its life and restores the previous one.
#include "training/runtime.h"

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

}  // namespace
}  // namespace trainbench::training

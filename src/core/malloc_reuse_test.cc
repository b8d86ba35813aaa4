#include "core/malloc_reuse.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

// AddressSanitizer replaces malloc: glibc's mallopt and mallinfo2 then neither steer nor see
// the allocations this test measures.
#if defined(__SANITIZE_ADDRESS__)
#define TB_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TB_UNDER_ASAN 1
#endif
#endif

namespace trainbench::core {
namespace {

#if defined(__GLIBC__)
// Blocks of glibc's main arena served by mmap right now (mallinfo2's hblks).
size_t MappedBlocks() { return ::mallinfo2().hblks; }

// One test: the settings are process-wide, so their order is part of what is checked.
TEST(MallocReuse, LargeBlocksComeFromTheHeapAndStayThere) {
#ifdef TB_UNDER_ASAN
  GTEST_SKIP() << "built with AddressSanitizer, whose allocator is not glibc's";
#endif
  constexpr size_t kBig = size_t{48} << 20;  // over glibc's largest mmap threshold (32 MB)
  void* before = std::malloc(kBig);
  ASSERT_NE(before, nullptr);
  const size_t mapped_default = MappedBlocks();
  std::free(before);
  EXPECT_GE(mapped_default, 1u) << "glibc served a 48 MB block without mmap before the setting";

  // instance_segmentation's milder setting: a 28 MB block from the heap once it is raised. A
  // 20 MB block held meanwhile shows that the threshold was below that (glibc raises it by
  // itself only when a mapped block is freed).
  void* held = std::malloc(size_t{20} << 20);
  ASSERT_NE(held, nullptr);
  const size_t mapped_held = MappedBlocks();
  EXPECT_GE(mapped_held, 1u) << "a 20 MB block came from the heap before the setting";
  ASSERT_TRUE(RaiseMmapThreshold());
  void* mid = std::malloc(size_t{28} << 20);
  ASSERT_NE(mid, nullptr);
  EXPECT_EQ(MappedBlocks(), mapped_held) << "the 28 MB block was mmapped after RaiseMmapThreshold";
  std::free(mid);
  std::free(held);

  ASSERT_TRUE(EnableMallocReuse());
  EXPECT_TRUE(MallocReuseEnabled());
  const size_t mapped_base = MappedBlocks();
  char* a = static_cast<char*>(std::malloc(kBig));
  ASSERT_NE(a, nullptr);
  std::memset(a, 1, kBig);
  EXPECT_EQ(MappedBlocks(), mapped_base) << "the 48 MB block was mmapped";
  const size_t heap_with_block = ::mallinfo2().arena;
  std::free(a);
  // Not trimmed: the heap keeps the freed block for the next allocation.
  EXPECT_EQ(::mallinfo2().arena, heap_with_block);
  char* b = static_cast<char*>(std::malloc(kBig));
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(MappedBlocks(), mapped_base);
  EXPECT_EQ(::mallinfo2().arena, heap_with_block) << "the second block needed new heap memory";
  std::free(b);
}
#endif

}  // namespace
}  // namespace trainbench::core

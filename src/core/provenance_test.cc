#include "core/provenance.h"

#include <gtest/gtest.h>

namespace trainbench::core {
namespace {

TEST(Provenance, CpuFlagsAreTheFirstFlagsLineOfCpuinfo) {
  const std::string cpuinfo =
      "processor\t: 0\nmodel name\t: AMD EPYC\nflags\t\t: fpu avx avx2 avx512_bf16 amx_bf16\n"
      "\nprocessor\t: 1\nflags\t\t: fpu\n";
  EXPECT_EQ(ParseCpuFlags(cpuinfo),
            (std::set<std::string>{"fpu", "avx", "avx2", "avx512_bf16", "amx_bf16"}));
  EXPECT_TRUE(ParseCpuFlags("processor : 0\n").empty());
  EXPECT_TRUE(ParseCpuFlags("").empty());
#if defined(__x86_64__) && defined(__linux__)
  EXPECT_TRUE(CpuFlags().count("fpu"));  // the machine's own (ARM's cpuinfo says "Features")
#endif
}

TEST(Provenance, SocketsCoresAndMemoryFromProc) {
  const std::string two_sockets =
      "processor\t: 0\nphysical id\t: 0\ncpu cores\t: 8\n\nprocessor\t: 1\nphysical id\t: 1\n"
      "cpu cores\t: 8\n\nprocessor\t: 2\nphysical id\t: 0\ncpu cores\t: 8\n";
  EXPECT_EQ(CpuSockets(two_sockets), 2);
  EXPECT_EQ(CpuCoresPerSocket(two_sockets), 8);
  EXPECT_EQ(CpuSockets("processor : 0\n"), 0);
  EXPECT_EQ(CpuCoresPerSocket("processor : 0\n"), 0);
  EXPECT_EQ(MemTotalBytes("MemTotal:       24683772 kB\nMemFree:  1 kB\n"), 24683772ull * 1024);
  EXPECT_EQ(MemTotalBytes("MemFree:  1 kB\n"), 0u);
#if defined(__linux__)
  EXPECT_GT(MachineProvenance().value("memory_bytes", uint64_t{0}), uint64_t{0});
#endif
}

}  // namespace
}  // namespace trainbench::core

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

}  // namespace
}  // namespace trainbench::core

#include "dist/rendezvous.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "core/error.h"

namespace trainbench::dist {
namespace {

// A fake environment.
struct Env {
  std::map<std::string, std::string> vars;
  EnvLookup lookup() const {
    return [this](const char* name) -> const char* {
      auto it = vars.find(name);
      return it == vars.end() ? nullptr : it->second.c_str();
    };
  }
};

std::string ErrorOf(const RendezvousFlags& f, const Env& e) {
  try {
    ResolveRendezvous(f, e.lookup());
  } catch (const core::Error& err) {
    return err.what();
  }
  return "";
}

TEST(Rendezvous, NothingGivenIsOneProcess) {
  Env e;
  Rendezvous r = ResolveRendezvous({}, e.lookup());
  EXPECT_EQ(r.mode, LaunchMode::kSingle);
  EXPECT_EQ(r.world_size, 1);
  EXPECT_EQ(r.rank, 0);
  EXPECT_FALSE(r.distributed());
}

TEST(Rendezvous, NprocStartsLocalWorkers) {
  Env e;
  RendezvousFlags f;
  f.nproc = 4;
  f.timeout_s = 7;
  Rendezvous r = ResolveRendezvous(f, e.lookup());
  EXPECT_EQ(r.mode, LaunchMode::kLocal);
  EXPECT_EQ(r.world_size, 4);
  EXPECT_EQ(r.timeout_s, 7);
  EXPECT_EQ(Describe(r), "4 local processes");
  f.nproc = 1;
  EXPECT_EQ(ResolveRendezvous(f, e.lookup()).mode, LaunchMode::kSingle);
}

TEST(Rendezvous, NprocExcludesMemberFlags) {
  Env e;
  RendezvousFlags f;
  f.nproc = 2;
  f.rank = 0;
  EXPECT_NE(ErrorOf(f, e).find("cannot be combined"), std::string::npos);
}

TEST(Rendezvous, FlagsMakeAMember) {
  Env e;
  RendezvousFlags f;
  f.rank = 2;
  f.world_size = 4;
  f.master = "10.1.2.3:29501";
  Rendezvous r = ResolveRendezvous(f, e.lookup());
  EXPECT_EQ(r.mode, LaunchMode::kMember);
  EXPECT_EQ(r.rank, 2);
  EXPECT_EQ(r.world_size, 4);
  EXPECT_EQ(r.master_addr, "10.1.2.3");
  EXPECT_EQ(r.master_port, 29501);
  EXPECT_EQ(r.source, "flags");
  EXPECT_EQ(Describe(r), "rank 2 of 4 (flags), master 10.1.2.3:29501");
}

TEST(Rendezvous, TorchrunEnvironment) {
  Env e{{{"RANK", "1"},
         {"WORLD_SIZE", "2"},
         {"LOCAL_RANK", "1"},
         {"MASTER_ADDR", "node0"},
         {"MASTER_PORT", "29500"}}};
  Rendezvous r = ResolveRendezvous({}, e.lookup());
  EXPECT_EQ(r.mode, LaunchMode::kMember);
  EXPECT_EQ(r.rank, 1);
  EXPECT_EQ(r.world_size, 2);
  EXPECT_EQ(r.local_rank, 1);
  EXPECT_EQ(r.master_addr, "node0");
  EXPECT_EQ(r.master_port, 29500);
  EXPECT_EQ(r.source, "torchrun");
}

TEST(Rendezvous, OpenMpiEnvironmentWithMasterFlag) {
  Env e{{{"OMPI_COMM_WORLD_RANK", "3"},
         {"OMPI_COMM_WORLD_SIZE", "4"},
         {"OMPI_COMM_WORLD_LOCAL_RANK", "1"}}};
  RendezvousFlags f;
  f.master = "[fe80::1]:1234";
  Rendezvous r = ResolveRendezvous(f, e.lookup());
  EXPECT_EQ(r.rank, 3);
  EXPECT_EQ(r.world_size, 4);
  EXPECT_EQ(r.local_rank, 1);
  EXPECT_EQ(r.source, "OpenMPI");
  EXPECT_EQ(r.master_addr, "fe80::1");
  EXPECT_EQ(r.master_port, 1234);
}

TEST(Rendezvous, FlagWinsOverEnvironment) {
  Env e{{{"RANK", "1"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "a"}, {"MASTER_PORT", "1"}}};
  RendezvousFlags f;
  f.rank = 0;
  EXPECT_EQ(ResolveRendezvous(f, e.lookup()).rank, 0);
}

TEST(Rendezvous, BadValuesNameTheirSource) {
  Env none;
  RendezvousFlags f;
  f.world_size = 2;
  f.rank = 2;
  f.master = "h:1";
  EXPECT_NE(ErrorOf(f, none).find("rank 2 is outside [0, 2)"), std::string::npos);
  f.rank = 1;
  f.master = "";
  EXPECT_NE(ErrorOf(f, none).find("--master ADDR:PORT"), std::string::npos);
  f.master = "h:0";
  EXPECT_NE(ErrorOf(f, none).find("outside 1..65535"), std::string::npos);
  f.master = "nohost";
  EXPECT_NE(ErrorOf(f, none).find("is not ADDRESS:PORT"), std::string::npos);
  f = {};
  f.world_size = 2;
  EXPECT_NE(ErrorOf(f, none).find("needs --rank"), std::string::npos);
  f = {};
  f.rank = 1;
  EXPECT_NE(ErrorOf(f, none).find("need --world-size"), std::string::npos);
  Env bad{{{"RANK", "x"}, {"WORLD_SIZE", "2"}}};
  EXPECT_NE(ErrorOf({}, bad).find("environment variable RANK: \"x\""), std::string::npos);
  f = {};
  f.timeout_s = 0;
  EXPECT_NE(ErrorOf(f, none).find("--dist-timeout"), std::string::npos);
}

}  // namespace
}  // namespace trainbench::dist

// Where a data-parallel run's processes meet: this process's rank, the world size and the
// rendezvous store (a TCP key-value store that rank 0's launcher hosts, as torchrun's c10d
// rendezvous does). LibTorch-free: the CLI resolves it from flags and the environment; the
// process group (process_group.h) connects with it.
//
// Sources, in order of precedence:
//   --nproc N              N local worker processes on this machine (127.0.0.1, a free port);
//                          excludes the multi-machine flags.
//   --rank/--world-size/--master ADDR:PORT
//                          one member of a multi-machine job (each flag may instead come from
//                          the environment; a flag wins over the environment).
//   torchrun:  RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR, MASTER_PORT
//   OpenMPI:   OMPI_COMM_WORLD_RANK, OMPI_COMM_WORLD_SIZE, OMPI_COMM_WORLD_LOCAL_RANK
//   MPICH/PMI: PMI_RANK, PMI_SIZE;  Slurm: SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID
// (MPI and Slurm launch the processes only; they meet over TCP at MASTER_ADDR:MASTER_PORT or
// --master, so no MPI library is linked.) Without any of these: one process.
#pragma once

#include <functional>
#include <string>

namespace trainbench::dist {

struct RendezvousFlags {
  int nproc = 0;           // --nproc; 0: not given
  int rank = -1;           // --rank; -1: not given
  int world_size = -1;     // --world-size; -1: not given
  std::string master;      // --master ADDR:PORT; empty: not given
  double timeout_s = 120;  // --dist-timeout: bound on any one collective or on connecting
};

enum class LaunchMode {
  kSingle,  // one process, no process group
  kLocal,   // trainbench starts world_size worker processes on this machine
  kMember,  // this process is rank `rank` of a job started elsewhere (several machines)
};

struct Rendezvous {
  LaunchMode mode = LaunchMode::kSingle;
  int rank = 0;
  int world_size = 1;
  int local_rank = 0;
  std::string master_addr = "127.0.0.1";
  int master_port = 0;  // 0 with kLocal: the launcher picks a free port
  double timeout_s = 120;
  std::string source;  // where the settings came from, for the log: "flags", "torchrun", ...

  bool distributed() const { return world_size > 1 || mode != LaunchMode::kSingle; }
};

// getenv-like lookup (nullptr: unset); injectable for tests.
using EnvLookup = std::function<const char*(const char*)>;

// Resolves flags + environment. Throws core::Error naming the flag or variable for a bad or
// contradictory value (rank outside [0, world size), no master address for a member, ...).
Rendezvous ResolveRendezvous(const RendezvousFlags& flags, const EnvLookup& env);

// "host:port" -> (host, port); "[v6addr]:port" also. Throws core::Error naming `what`.
std::pair<std::string, int> ParseHostPort(const std::string& text, const std::string& what);

// "single process", "2 local processes", "rank 1 of 4 (torchrun), master 10.0.0.1:29500".
std::string Describe(const Rendezvous& r);

}  // namespace trainbench::dist

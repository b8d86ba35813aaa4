#include "dist/rendezvous.h"

#include <cerrno>
#include <cstdlib>

#include "core/error.h"

namespace trainbench::dist {

namespace {

// A non-negative integer from `text`, or an error naming `what`.
int ParseCount(const std::string& text, const std::string& what) {
  errno = 0;
  char* end = nullptr;
  long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno != 0 || v < 0 || v > 1 << 20) {
    throw core::Error(what + ": \"" + text + "\" is not a non-negative integer");
  }
  return static_cast<int>(v);
}

struct EnvSource {
  const char* name;
  const char* rank;
  const char* size;
  const char* local_rank;
};

// Launchers whose variables say who this process is, in the order they are tried.
constexpr EnvSource kSources[] = {
    {"torchrun", "RANK", "WORLD_SIZE", "LOCAL_RANK"},
    {"OpenMPI", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK"},
    {"PMI", "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID"},
    {"Slurm", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID"},
};

}  // namespace

std::pair<std::string, int> ParseHostPort(const std::string& text, const std::string& what) {
  std::string host, port;
  if (!text.empty() && text[0] == '[') {
    auto close = text.find(']');
    if (close == std::string::npos || close + 1 >= text.size() || text[close + 1] != ':') {
      throw core::Error(what + ": \"" + text + "\" is not [ADDRESS]:PORT");
    }
    host = text.substr(1, close - 1);
    port = text.substr(close + 2);
  } else {
    auto colon = text.rfind(':');
    if (colon == std::string::npos || colon == 0)
      throw core::Error(what + ": \"" + text + "\" is not ADDRESS:PORT");
    host = text.substr(0, colon);
    port = text.substr(colon + 1);
  }
  int p = ParseCount(port, what + " port");
  if (p < 1 || p > 65535) throw core::Error(what + ": port " + port + " is outside 1..65535");
  return {host, p};
}

Rendezvous ResolveRendezvous(const RendezvousFlags& f, const EnvLookup& env) {
  Rendezvous r;
  if (!(f.timeout_s > 0)) throw core::Error("--dist-timeout must be > 0 seconds");
  r.timeout_s = f.timeout_s;
  if (f.nproc < 0) throw core::Error("--nproc must be >= 1");
  if (f.nproc > 0) {
    if (f.rank >= 0 || f.world_size >= 0 || !f.master.empty()) {
      throw core::Error(
          "--nproc starts local worker processes; it cannot be combined with --rank, "
          "--world-size or --master (use those to join a job on several machines)");
    }
    r.world_size = f.nproc;
    r.mode = f.nproc > 1 ? LaunchMode::kLocal : LaunchMode::kSingle;
    r.source = "--nproc";
    return r;
  }

  // Member of a job: flags first, then the first launcher whose world-size variable is set.
  const EnvSource* src = nullptr;
  for (const auto& s : kSources) {
    if (env(s.size) != nullptr) {
      src = &s;
      break;
    }
  }
  if (f.world_size < 0 && src == nullptr) {
    if (f.rank >= 0 || !f.master.empty()) {
      throw core::Error("--rank and --master need --world-size (or a launcher's WORLD_SIZE)");
    }
    r.source = "single process";
    return r;
  }
  auto env_count = [&](const char* var) -> int {
    const char* v = env(var);
    if (v == nullptr) throw core::Error(std::string("environment variable ") + var + " is not set");
    return ParseCount(v, std::string("environment variable ") + var);
  };
  r.source = f.world_size >= 0 ? "flags" : src->name;
  r.world_size = f.world_size >= 0 ? f.world_size : env_count(src->size);
  if (f.rank >= 0) {
    r.rank = f.rank;
  } else if (src != nullptr) {
    r.rank = env_count(src->rank);
  } else {
    throw core::Error("--world-size " + std::to_string(r.world_size) +
                      " needs --rank (or a launcher's RANK)");
  }
  if (r.world_size < 1)
    throw core::Error("world size must be >= 1, got " + std::to_string(r.world_size));
  if (r.rank >= r.world_size) {
    throw core::Error("rank " + std::to_string(r.rank) + " is outside [0, " +
                      std::to_string(r.world_size) + ") (" + r.source + ")");
  }
  if (src != nullptr && env(src->local_rank) != nullptr) {
    r.local_rank = env_count(src->local_rank);
  } else {
    r.local_rank = r.rank;
  }
  if (!f.master.empty()) {
    std::tie(r.master_addr, r.master_port) = ParseHostPort(f.master, "--master");
  } else if (env("MASTER_ADDR") != nullptr && env("MASTER_PORT") != nullptr) {
    r.master_addr = env("MASTER_ADDR");
    int p = ParseCount(env("MASTER_PORT"), "environment variable MASTER_PORT");
    if (p < 1 || p > 65535)
      throw core::Error("environment variable MASTER_PORT: " + std::to_string(p) +
                        " is outside 1..65535");
    r.master_port = p;
  } else if (r.world_size > 1) {
    throw core::Error(
        "rank " + std::to_string(r.rank) + " of " + std::to_string(r.world_size) +
        " needs the rendezvous address: --master ADDR:PORT, or MASTER_ADDR and MASTER_PORT");
  }
  r.mode = LaunchMode::kMember;
  if (r.world_size == 1) r.mode = LaunchMode::kSingle;
  return r;
}

std::string Describe(const Rendezvous& r) {
  switch (r.mode) {
    case LaunchMode::kSingle:
      return "single process";
    case LaunchMode::kLocal:
      return std::to_string(r.world_size) + " local processes";
    case LaunchMode::kMember:
      return "rank " + std::to_string(r.rank) + " of " + std::to_string(r.world_size) + " (" +
             r.source + "), master " + r.master_addr + ":" + std::to_string(r.master_port);
  }
  return "";
}

}  // namespace trainbench::dist

// Connecting a process group, and the rendezvous store. LibTorch-free header, so the CLI's
// launcher can include it without torch/torch.h.
#pragma once

#include <memory>
#include <string>

#include "dist/rendezvous.h"

namespace trainbench::dist {

class ProcessGroup;  // process_group.h

// Connects rank r.rank of r.world_size: a TCPStore client at r.master_addr:r.master_port with
// keys under `prefix` (one prefix per run, so runs never see each other's keys), then a Gloo
// group whose transport binds to `bind_addr` (empty: the interface GLOO_SOCKET_IFNAME names if
// set, else the host name's address). World size 1 gives the local group without connecting.
// Throws core::Error when the others do not show up within r.timeout_s.
std::shared_ptr<ProcessGroup> ConnectGroup(const Rendezvous& r, const std::string& prefix,
                                           const std::string& bind_addr);

// The rendezvous store's server (a c10d TCPStore), hosted by rank 0's launcher for all its runs.
// Listening once constructed; port() is the bound port (an ephemeral one when asked for 0).
class StoreServer {
 public:
  StoreServer(const std::string& addr, int port, double timeout_s);
  ~StoreServer();
  StoreServer(const StoreServer&) = delete;
  StoreServer& operator=(const StoreServer&) = delete;
  int port() const;
  void Set(const std::string& key, const std::string& value);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Reads `key` from the store at addr:port, waiting up to timeout_s for it to be set.
// Throws core::Error naming the address and the key.
std::string StoreGet(const std::string& addr, int port, const std::string& key, double timeout_s);

}  // namespace trainbench::dist

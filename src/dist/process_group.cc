#include "dist/process_group.h"

#include <cstdlib>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include "core/error.h"

namespace trainbench::dist {

namespace {

std::chrono::milliseconds Millis(double seconds) {
  return std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000.0));
}

class DoneWork : public Work {
 public:
  void Wait() override {}
};

class LocalGroup : public ProcessGroup {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  std::string backend() const override { return "local"; }
  std::unique_ptr<Work> AllReduceSumAsync(torch::Tensor&) override {
    return std::make_unique<DoneWork>();
  }
  void Broadcast(torch::Tensor&, int root) override {
    TB_CHECK(root == 0, "broadcast root outside the group");
  }
  std::vector<torch::Tensor> AllGather(const torch::Tensor& t) override { return {t.clone()}; }
  void Barrier() override {}
};

// Rewrites a c10d/Gloo exception as an error that says which collective on which rank failed,
// and what usually causes it.
[[noreturn]] void Fail(const std::string& what, int rank, int size, const std::exception& e) {
  throw core::Error(
      "data-parallel " + what + " failed on rank " + std::to_string(rank) + " of " +
      std::to_string(size) + ": " + e.what() +
      " (another rank has probably died, stopped answering or hit an error; see its output)");
}

class GlooWork : public Work {
 public:
  GlooWork(c10::intrusive_ptr<c10d::Work> w, std::string what, int rank, int size)
      : w_(std::move(w)), what_(std::move(what)), rank_(rank), size_(size) {}
  void Wait() override {
    try {
      w_->wait();
    } catch (const std::exception& e) {
      Fail(what_, rank_, size_, e);
    }
  }

 private:
  c10::intrusive_ptr<c10d::Work> w_;
  std::string what_;
  int rank_, size_;
};

class GlooGroup : public ProcessGroup {
 public:
  GlooGroup(c10::intrusive_ptr<c10d::Store> store, c10::intrusive_ptr<c10d::ProcessGroupGloo> pg,
            int rank, int size)
      : store_(std::move(store)), pg_(std::move(pg)), rank_(rank), size_(size) {}

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string backend() const override { return "gloo"; }

  std::unique_ptr<Work> AllReduceSumAsync(torch::Tensor& t) override {
    std::vector<at::Tensor> v{t};
    try {
      return std::make_unique<GlooWork>(pg_->allreduce(v), "allreduce", rank_, size_);
    } catch (const std::exception& e) {
      Fail("allreduce", rank_, size_, e);
    }
  }
  void Broadcast(torch::Tensor& t, int root) override {
    std::vector<at::Tensor> v{t};
    c10d::BroadcastOptions o;
    o.rootRank = root;
    try {
      pg_->broadcast(v, o)->wait();
    } catch (const std::exception& e) {
      Fail("broadcast", rank_, size_, e);
    }
  }
  std::vector<torch::Tensor> AllGather(const torch::Tensor& t) override {
    std::vector<at::Tensor> in{t.contiguous()};
    std::vector<std::vector<at::Tensor>> out(1);
    for (int r = 0; r < size_; ++r) out[0].push_back(torch::empty_like(in[0]));
    try {
      pg_->allgather(out, in)->wait();
    } catch (const std::exception& e) {
      Fail("allgather", rank_, size_, e);
    }
    return out[0];
  }
  void Barrier() override {
    try {
      pg_->barrier()->wait();
    } catch (const std::exception& e) {
      Fail("barrier", rank_, size_, e);
    }
  }

 private:
  c10::intrusive_ptr<c10d::Store> store_;
  c10::intrusive_ptr<c10d::ProcessGroupGloo> pg_;
  int rank_, size_;
};

c10::intrusive_ptr<c10d::Store> ClientStore(const std::string& addr, int port, double timeout_s) {
  c10d::TCPStoreOptions o;
  o.port = static_cast<std::uint16_t>(port);
  o.isServer = false;
  o.waitWorkers = false;
  o.timeout = Millis(timeout_s);
  try {
    return c10::make_intrusive<c10d::TCPStore>(addr, o);
  } catch (const std::exception& e) {
    throw core::Error("cannot reach the rendezvous store at " + addr + ":" + std::to_string(port) +
                      " within " + std::to_string(static_cast<int>(timeout_s)) + " s: " + e.what());
  }
}

}  // namespace

std::shared_ptr<ProcessGroup> MakeLocalGroup() { return std::make_shared<LocalGroup>(); }

std::shared_ptr<ProcessGroup> ConnectGroup(const Rendezvous& r, const std::string& prefix,
                                           const std::string& bind_addr) {
  if (r.world_size <= 1) return MakeLocalGroup();
  auto base = ClientStore(r.master_addr, r.master_port, r.timeout_s);
  auto store = c10::make_intrusive<c10d::PrefixStore>(prefix, base);
  auto opts = c10d::ProcessGroupGloo::Options::create(Millis(r.timeout_s));
  try {
    if (!bind_addr.empty()) {
      opts->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname(bind_addr));
    } else if (const char* ifname = std::getenv("GLOO_SOCKET_IFNAME")) {
      opts->devices.push_back(c10d::ProcessGroupGloo::createDeviceForInterface(ifname));
    } else {
      opts->devices.push_back(c10d::ProcessGroupGloo::createDefaultDevice());
    }
  } catch (const std::exception& e) {
    throw core::Error(std::string("cannot create the Gloo transport: ") + e.what());
  }
  opts->threads = 2;
  try {
    auto pg = c10::make_intrusive<c10d::ProcessGroupGloo>(store, r.rank, r.world_size, opts);
    return std::make_shared<GlooGroup>(store, pg, r.rank, r.world_size);
  } catch (const std::exception& e) {
    throw core::Error("rank " + std::to_string(r.rank) + " of " + std::to_string(r.world_size) +
                      " could not connect to the other ranks (rendezvous " + r.master_addr + ":" +
                      std::to_string(r.master_port) + ", timeout " +
                      std::to_string(static_cast<int>(r.timeout_s)) + " s): " + e.what());
  }
}

struct StoreServer::Impl {
  c10::intrusive_ptr<c10d::TCPStore> store;
};

StoreServer::StoreServer(const std::string& addr, int port, double timeout_s)
    : impl_(std::make_unique<Impl>()) {
  c10d::TCPStoreOptions o;
  o.port = static_cast<std::uint16_t>(port);
  o.isServer = true;
  o.waitWorkers = false;
  o.timeout = Millis(timeout_s);
  try {
    impl_->store = c10::make_intrusive<c10d::TCPStore>(addr, o);
  } catch (const std::exception& e) {
    throw core::Error("cannot listen for the rendezvous at " + addr + ":" + std::to_string(port) +
                      ": " + e.what());
  }
}

StoreServer::~StoreServer() = default;

int StoreServer::port() const { return impl_->store->getPort(); }

void StoreServer::Set(const std::string& key, const std::string& value) {
  impl_->store->set(key, std::vector<uint8_t>(value.begin(), value.end()));
}

std::string StoreGet(const std::string& addr, int port, const std::string& key, double timeout_s) {
  auto store = ClientStore(addr, port, timeout_s);
  try {
    std::vector<uint8_t> v = store->get(key);
    return std::string(v.begin(), v.end());
  } catch (const std::exception& e) {
    throw core::Error("rendezvous store " + addr + ":" + std::to_string(port) + ": key \"" + key +
                      "\" not set within " + std::to_string(static_cast<int>(timeout_s)) +
                      " s: " + e.what());
  }
}

std::vector<double> AllReduceSum(ProcessGroup& g, const std::vector<double>& values) {
  torch::Tensor t = torch::tensor(values, torch::kFloat64);
  g.AllReduceSum(t);
  return std::vector<double>(t.data_ptr<double>(), t.data_ptr<double>() + t.numel());
}

void BroadcastTensors(ProcessGroup& g, const std::vector<torch::Tensor>& tensors, int root) {
  if (g.size() == 1) return;
  torch::NoGradGuard no_grad;
  for (torch::Tensor t : tensors) {
    if (!t.defined() || t.numel() == 0) continue;
    torch::Tensor c = t.is_contiguous() ? t : t.contiguous();
    g.Broadcast(c, root);
    if (!c.is_same(t)) t.copy_(c);
  }
}

void BroadcastModuleState(ProcessGroup& g, torch::nn::Module& m, int root) {
  BroadcastTensors(g, m.parameters(), root);
  BroadcastTensors(g, m.buffers(), root);
}

void CheckReplicasIdentical(ProcessGroup& g, const std::vector<torch::Tensor>& tensors,
                            const std::string& what) {
  if (g.size() == 1) return;
  torch::NoGradGuard no_grad;
  std::vector<double> digest;
  for (const auto& t : tensors) {
    torch::Tensor f = t.detach().to(torch::kCPU, torch::kFloat64).reshape(-1);
    torch::Tensor w = torch::arange(1, f.numel() + 1, torch::kFloat64).remainder(977.0);
    digest.push_back(f.sum().item<double>());
    digest.push_back((f * w).sum().item<double>());
  }
  torch::Tensor mine = torch::tensor(digest, torch::kFloat64);
  std::vector<torch::Tensor> all = g.AllGather(mine);
  for (int r = 0; r < g.size(); ++r) {
    if (!torch::equal(all[r], all[0])) {
      int64_t k = (all[r] != all[0]).nonzero()[0][0].item<int64_t>() / 2;
      throw core::Error("data-parallel replicas diverged: " + what + " tensor " +
                        std::to_string(k) + " differs between rank 0 and rank " +
                        std::to_string(r));
    }
  }
}

}  // namespace trainbench::dist

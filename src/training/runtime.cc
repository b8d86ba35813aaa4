#include "training/runtime.h"

#include <ATen/Parallel.h>
#include <dlfcn.h>
#include <torch/version.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>

#include "core/malloc_reuse.h"
#include "core/random.h"
#include "training/device.h"

namespace trainbench::training {

namespace {
std::atomic<int> g_blas_threads{0};
}

bool SetBlasThreads(int threads) {
  using SetThreads = void (*)(int);
  auto fn = reinterpret_cast<SetThreads>(::dlsym(RTLD_DEFAULT, "openblas_set_num_threads"));
  if (!fn) return false;
  fn(std::max(1, threads));
  g_blas_threads = std::max(1, threads);
  return true;
}

int BlasThreads() { return g_blas_threads; }

BlasThreadsScope::BlasThreadsScope(int threads) {
  if (threads <= 0) return;
  using GetThreads = int (*)();
  auto get = reinterpret_cast<GetThreads>(::dlsym(RTLD_DEFAULT, "openblas_get_num_threads"));
  if (!get) return;
  previous_ = get();
  previous_set_ = g_blas_threads;
  if (!SetBlasThreads(threads)) previous_ = 0;
}

BlasThreadsScope::~BlasThreadsScope() {
  if (previous_ <= 0) return;
  SetBlasThreads(previous_);
  g_blas_threads = previous_set_;
}

IntraOpThreadsScope::IntraOpThreadsScope(int threads, int restore)
    : restore_(restore > 0 ? restore : at::get_num_threads()) {
  at::set_num_threads(threads);
}

IntraOpThreadsScope::~IntraOpThreadsScope() { Restore(); }

void IntraOpThreadsScope::Restore() {
  if (restore_ <= 0) return;
  at::set_num_threads(restore_);
  restore_ = 0;
}

torch::Device SetUpTorch(const train::RunContext& ctx) {
  at::set_num_threads(std::max(1, ctx.threads));
  // Every benchmark's definition has `malloc_reuse`; process-wide, logged by TorchProvenance.
  if (ctx.config.at("malloc_reuse").get<bool>()) core::EnableMallocReuse();
  torch::manual_seed(core::SeedFor(ctx.seed, "model"));
  CheckDevice(ctx.device);  // the launcher's check, again for library callers
  return torch::Device(ctx.device);
}

core::Json TorchProvenance(const torch::Device& device) {
  core::Json j = core::Json::object();
  j["libtorch_version"] = TORCH_VERSION;
  j["intra_op_threads"] = at::get_num_threads();
  j["blas_threads"] = BlasThreads();  // 0: the BLAS library's default
  j["malloc_reuse"] = core::MallocReuseEnabled();
  j["device"] = device.str();
  j["parallel_info"] = at::get_parallel_info();
  // How OpenMP threads wait (the launcher chooses on a busy machine:
  // cli/run_command_without_torch.cc).
  const char* policy = std::getenv("OMP_WAIT_POLICY");
  j["omp_wait_policy"] = policy ? policy : "default";
  if (const char* why = std::getenv("TRAINBENCH_OMP_WAIT")) j["omp_wait_policy_why"] = why;
  j["mkldnn"] = at::hasMKLDNN();
  j["cuda_available"] = torch::cuda::is_available();
  return j;
}

}  // namespace trainbench::training

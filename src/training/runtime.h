// The LibTorch runtime of a run: set-up (intra-op threads, malloc policy, seed, device), the
// intra-op and BLAS thread counts of a phase, and the runtime's provenance. Process-wide settings:
// call from the training thread.
#pragma once

#include <torch/torch.h>

#include "core/json.h"
#include "train/workload.h"

namespace trainbench::training {

// Sets intra-op threads, turns on core::EnableMallocReuse when the configuration's
// `malloc_reuse` is true (every definition has the key; process-wide), and seeds LibTorch from
// the run seed (stream "model"); returns the device named by ctx.device. Throws core::Error for
// an unavailable device.
torch::Device SetUpTorch(const train::RunContext& ctx);

// Sets the BLAS library's own thread count (OpenBLAS's openblas_set_num_threads, found at run
// time in the loaded libraries; no link dependency). Returns false when no such BLAS is loaded.
// OpenBLAS's pthreads and LibTorch's OpenMP threads spin against each other on a small machine:
// with both at 2 threads on 2 cores, small GEMMs run ~2x slower (docs/performance.md).
bool SetBlasThreads(int threads);
// The BLAS thread count last set by SetBlasThreads (0: never set).
int BlasThreads();

// For a phase in which several threads each run their own small GEMMs (concurrent self-play):
// the BLAS library's thread count set to `threads` for the scope's life and the previous count
// restored after (0, or no OpenBLAS loaded: nothing changes). With OpenBLAS's default of one
// thread per core, two such callers share OpenBLAS's worker threads and wait for them in
// sched_yield.
class BlasThreadsScope {
 public:
  explicit BlasThreadsScope(int threads);
  ~BlasThreadsScope();
  BlasThreadsScope(const BlasThreadsScope&) = delete;
  BlasThreadsScope& operator=(const BlasThreadsScope&) = delete;

 private:
  int previous_ = 0, previous_set_ = 0;
};

// For a phase that runs with another intra-op thread count than the run's (MiniGo's searches:
// one intra-op thread each, several searches at once): at::set_num_threads(threads) now
// (`threads` >= 1), and at::set_num_threads(restore) on destruction or at Restore(), whichever
// comes first. `restore` 0: the count at::get_num_threads() gave when the scope began. A caller
// that knows the run's count passes it: with an OpenMP build of OpenBLAS,
// openblas_set_num_threads (SetBlasThreads, BlasThreadsScope) sets the calling thread's OpenMP
// count too, so the count read at the start need not be the run's.
class IntraOpThreadsScope {
 public:
  explicit IntraOpThreadsScope(int threads, int restore = 0);
  ~IntraOpThreadsScope();
  IntraOpThreadsScope(const IntraOpThreadsScope&) = delete;
  IntraOpThreadsScope& operator=(const IntraOpThreadsScope&) = delete;
  // Sets the count back now, for a phase that ends before the block does (the destructor then
  // does nothing): e.g. before an enclosing BlasThreadsScope restores its count.
  void Restore();

 private:
  int restore_;  // 0: restored
};

// {libtorch_version, intra_op_threads, device, mkldnn, openmp, ...}
core::Json TorchProvenance(const torch::Device& device);

}  // namespace trainbench::training

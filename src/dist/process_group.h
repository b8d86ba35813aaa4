// The collective-communication seam of data-parallel training: a small interface with two
// backends, both always built:
//   - LocalGroup: world size 1; every collective is the identity (no communication at all).
//   - Gloo: LibTorch's c10d ProcessGroupGloo over TCP, meeting at a c10d TCPStore.
// Every collective is bounded by the group's timeout; a failure (a peer died, stopped
// answering, or answered garbage) throws core::Error naming the collective, this rank and the
// cause, so a run ends aborted instead of hanging.
//
// Collectives must be issued in the same order on every rank (as with any MPI-style library).
// Threading: one thread issues collectives; Work::Wait may be called from that thread only.
#pragma once

#include <torch/torch.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "dist/connect.h"

namespace trainbench::dist {

// An outstanding asynchronous collective.
class Work {
 public:
  virtual ~Work() = default;
  // Blocks until done; throws core::Error on failure or timeout.
  virtual void Wait() = 0;
};

class ProcessGroup {
 public:
  virtual ~ProcessGroup() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual std::string backend() const = 0;  // "local" | "gloo"

  // In-place elementwise sum over ranks of a dense contiguous tensor (same shape everywhere).
  virtual std::unique_ptr<Work> AllReduceSumAsync(torch::Tensor& t) = 0;
  void AllReduceSum(torch::Tensor& t) { AllReduceSumAsync(t)->Wait(); }
  // In place: every rank receives rank `root`'s values.
  virtual void Broadcast(torch::Tensor& t, int root) = 0;
  // Every rank's `t` (same shape and dtype everywhere), in rank order.
  virtual std::vector<torch::Tensor> AllGather(const torch::Tensor& t) = 0;
  virtual void Barrier() = 0;
};

std::shared_ptr<ProcessGroup> MakeLocalGroup();

// Convenience over a group.
// Sums doubles over ranks (metric counts, losses) in float64.
std::vector<double> AllReduceSum(ProcessGroup& g, const std::vector<double>& values);
// Rank `root`'s values of `tensors` to every rank (in place, in order; empty ones skipped).
void BroadcastTensors(ProcessGroup& g, const std::vector<torch::Tensor>& tensors, int root = 0);
// Rank `root`'s parameters and buffers to every rank (in place), in module order.
void BroadcastModuleState(ProcessGroup& g, torch::nn::Module& m, int root = 0);
// Throws core::Error when the ranks' replicas differ: a float64 digest of every parameter
// (sum and position-weighted sum) is gathered and compared exactly. `what` names the model.
void CheckReplicasIdentical(ProcessGroup& g, const std::vector<torch::Tensor>& tensors,
                            const std::string& what);

}  // namespace trainbench::dist

// Data-parallel gradient averaging, overlapped with the backward pass (as PyTorch's DDP
// reducer does):
//   - Dense parameters are packed into buckets of about `bucket_bytes`, in reverse parameter
//     order (roughly the order backward produces their gradients). A hook on each parameter
//     copies its gradient into its bucket as soon as autograd computes it; when a bucket is
//     complete it is all-reduced asynchronously while backward goes on. Buckets are launched
//     strictly in index order, so every rank issues the same collectives in the same order.
//   - Sparse gradients (nn::Embedding with sparse(true), for LazyAdam) are all-gathered as
//     (indices, values) after backward and summed, so a step moves O(rows touched) bytes.
//   - Finish() waits for every bucket, divides by the world size and writes the averages into
//     the parameters' .grad. A parameter that got no gradient on a rank contributes zeros.
// After Finish every rank holds the same gradients, so the same optimizer step keeps the
// parameters and optimizer state identical everywhere.
//
// Per step: Prepare(), loss.backward(), Finish(), optimizer step. .grad receives this backward's
// averaged gradient (it replaces, never accumulates: no gradient accumulation).
// Threading: the hooks run on autograd's thread(s) and are serialised by a mutex; Prepare and
// Finish on the training thread.
#pragma once

#include <torch/torch.h>

#include <memory>
#include <mutex>
#include <vector>

#include "dist/process_group.h"

namespace trainbench::dist {

struct GradientReducerOptions {
  int64_t bucket_bytes = 4 << 20;  // target bucket size
  bool overlap = true;             // false: all-reduce every bucket in Finish (for comparison)
};

struct GradientReducerStats {
  int64_t buckets = 0;
  int64_t dense_bytes = 0;  // per step
  int64_t steps = 0;
  double wait_seconds = 0;  // time Finish spent blocked on communication, over all steps
};

class GradientReducer {
 public:
  // `params`: every trained parameter, in module order. `sparse`: those (a subset) whose
  // gradients are sparse (weights of embeddings built with sparse(true)); the others must get
  // dense gradients.
  GradientReducer(std::shared_ptr<ProcessGroup> group, std::vector<torch::Tensor> params,
                  std::vector<torch::Tensor> sparse = {}, GradientReducerOptions options = {});
  ~GradientReducer();
  GradientReducer(const GradientReducer&) = delete;
  GradientReducer& operator=(const GradientReducer&) = delete;

  void Prepare();
  void Finish();

  const GradientReducerStats& stats() const { return stats_; }
  const std::vector<std::vector<size_t>>& bucket_params() const { return bucket_params_; }

 private:
  struct Slot {
    size_t bucket = 0;
    int64_t offset = 0;  // elements into the bucket
    int64_t numel = 0;
    bool sparse = false;
    bool ready = false;
    torch::Tensor sparse_grad;  // the hook's sparse gradient, this step
  };
  struct Bucket {
    torch::Tensor flat;
    size_t pending = 0;
    std::unique_ptr<Work> work;
  };

  void OnGrad(size_t k, const torch::Tensor& grad);
  void LaunchReadyLocked();
  torch::Tensor ReduceSparse(const torch::Tensor& grad, const torch::Tensor& param);

  std::shared_ptr<ProcessGroup> group_;
  std::vector<torch::Tensor> params_;
  GradientReducerOptions options_;
  std::vector<Slot> slots_;
  std::vector<Bucket> buckets_;
  std::vector<std::vector<size_t>> bucket_params_;
  std::vector<size_t> sparse_params_;
  size_t next_launch_ = 0;
  bool in_step_ = false;
  std::mutex mu_;
  std::vector<std::pair<size_t, unsigned>> hooks_;  // (param, hook id)
  GradientReducerStats stats_;
};

}  // namespace trainbench::dist

#include "dist/gradient_reducer.h"

#include <chrono>

#include "core/error.h"

namespace trainbench::dist {

GradientReducer::GradientReducer(std::shared_ptr<ProcessGroup> group,
                                 std::vector<torch::Tensor> params,
                                 std::vector<torch::Tensor> sparse, GradientReducerOptions options)
    : group_(std::move(group)), params_(std::move(params)), options_(options) {
  TB_CHECK(group_ != nullptr, "GradientReducer without a group");
  slots_.resize(params_.size());
  for (const auto& sp : sparse) {
    bool found = false;
    for (size_t n = 0; n < params_.size(); ++n) {
      if (params_[n].is_same(sp)) {
        slots_[n].sparse = true;
        sparse_params_.push_back(n);
        found = true;
      }
    }
    TB_CHECK(found, "a sparse parameter is not among the reducer's parameters");
  }
  // Dense buckets in reverse parameter order; a new bucket starts when the current one would
  // pass bucket_bytes or the dtype/device changes.
  int64_t fill = 0;
  for (size_t n = params_.size(); n-- > 0;) {
    const torch::Tensor& p = params_[n];
    Slot& s = slots_[n];
    if (!p.requires_grad() || s.sparse) continue;
    s.numel = p.numel();
    const int64_t bytes = p.numel() * static_cast<int64_t>(p.element_size());
    bool new_bucket = buckets_.empty() || fill + bytes > options_.bucket_bytes ||
                      buckets_.back().flat.scalar_type() != p.scalar_type() ||
                      buckets_.back().flat.device() != p.device();
    if (new_bucket) {
      buckets_.push_back(Bucket{});
      buckets_.back().flat = torch::empty({0}, p.options().requires_grad(false));
      bucket_params_.emplace_back();
      fill = 0;
    }
    s.bucket = buckets_.size() - 1;
    s.offset = fill / static_cast<int64_t>(p.element_size());
    fill += bytes;
    bucket_params_.back().push_back(n);
    buckets_.back().flat.resize_({fill / static_cast<int64_t>(p.element_size())});
  }
  for (auto& b : buckets_) {
    b.flat.zero_();
    stats_.dense_bytes += b.flat.numel() * static_cast<int64_t>(b.flat.element_size());
  }
  stats_.buckets = static_cast<int64_t>(buckets_.size());
  for (size_t n = 0; n < params_.size(); ++n) {
    if (!params_[n].requires_grad()) continue;
    unsigned id = params_[n].register_hook([this, n](torch::Tensor grad) { OnGrad(n, grad); });
    hooks_.emplace_back(n, id);
  }
}

GradientReducer::~GradientReducer() {
  for (auto [n, id] : hooks_) params_[n].remove_hook(id);
}

void GradientReducer::Prepare() {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& s : slots_) {
    s.ready = false;
    s.sparse_grad = torch::Tensor();
  }
  for (size_t b = 0; b < buckets_.size(); ++b) {
    buckets_[b].pending = bucket_params_[b].size();
    buckets_[b].work.reset();
  }
  next_launch_ = 0;
  in_step_ = true;
}

void GradientReducer::OnGrad(size_t n, const torch::Tensor& grad) {
  std::lock_guard<std::mutex> lock(mu_);
  TB_CHECK(in_step_,
           "a gradient arrived outside Prepare()/Finish() (call Prepare before backward)");
  Slot& s = slots_[n];
  if (s.ready) {
    // A second gradient for the same parameter in one backward (it is used by two graphs).
    if (s.sparse) {
      s.sparse_grad = s.sparse_grad + grad;
    } else {
      buckets_[s.bucket].flat.narrow(0, s.offset, s.numel).add_(grad.reshape(-1));
    }
    return;
  }
  s.ready = true;
  if (s.sparse) {
    TB_CHECK(grad.is_sparse(), "a parameter declared sparse got a dense gradient");
    s.sparse_grad = grad;
    return;
  }
  TB_CHECK(!grad.is_sparse(), "a dense parameter got a sparse gradient (declare it sparse)");
  buckets_[s.bucket].flat.narrow(0, s.offset, s.numel).copy_(grad.reshape(-1));
  buckets_[s.bucket].pending -= 1;
  if (options_.overlap) LaunchReadyLocked();
}

void GradientReducer::LaunchReadyLocked() {
  while (next_launch_ < buckets_.size() && buckets_[next_launch_].pending == 0) {
    Bucket& b = buckets_[next_launch_];
    b.work = group_->AllReduceSumAsync(b.flat);
    ++next_launch_;
  }
}

torch::Tensor GradientReducer::ReduceSparse(const torch::Tensor& grad, const torch::Tensor& param) {
  const int w = group_->size();
  torch::Tensor g;
  if (grad.defined()) {
    g = grad.coalesce();
  } else {
    g = torch::sparse_coo_tensor(
            torch::empty({1, 0}, torch::kInt64).to(param.device()),
            torch::empty({0, param.size(1)}, param.options().requires_grad(false)), param.sizes())
            .coalesce();
  }
  torch::Tensor idx = g.indices().reshape(-1);  // [nnz] row ids (embedding weights are 2-D)
  torch::Tensor val = g.values();               // [nnz, dim]
  const int64_t nnz = idx.numel();
  torch::Tensor count = torch::tensor({nnz}, torch::kInt64);
  std::vector<torch::Tensor> counts = group_->AllGather(count);
  int64_t max_nnz = 0;
  for (const auto& c : counts) max_nnz = std::max(max_nnz, c.item<int64_t>());
  torch::Tensor pidx = torch::zeros({max_nnz}, idx.options());
  torch::Tensor pval = torch::zeros({max_nnz, val.size(1)}, val.options());
  pidx.narrow(0, 0, nnz).copy_(idx);
  pval.narrow(0, 0, nnz).copy_(val);
  std::vector<torch::Tensor> all_idx = group_->AllGather(pidx);
  std::vector<torch::Tensor> all_val = group_->AllGather(pval);
  std::vector<torch::Tensor> idx_parts, val_parts;
  for (int r = 0; r < w; ++r) {
    int64_t n = counts[r].item<int64_t>();
    idx_parts.push_back(all_idx[r].narrow(0, 0, n));
    val_parts.push_back(all_val[r].narrow(0, 0, n));
  }
  torch::Tensor ind = torch::cat(idx_parts).unsqueeze(0);
  torch::Tensor vals = torch::cat(val_parts).div_(static_cast<double>(w));
  return torch::sparse_coo_tensor(ind, vals, param.sizes()).coalesce();
}

void GradientReducer::Finish() {
  TB_CHECK(in_step_, "Finish() without Prepare()");
  auto t0 = std::chrono::steady_clock::now();
  {
    std::lock_guard<std::mutex> lock(mu_);
    // Parameters that got no gradient on this rank contribute zeros; launch what is left, in
    // order (the other ranks launch the same buckets in the same order).
    for (size_t b = next_launch_; b < buckets_.size(); ++b) {
      for (size_t n : bucket_params_[b]) {
        Slot& s = slots_[n];
        if (!s.ready && !s.sparse) {
          buckets_[b].flat.narrow(0, s.offset, s.numel).zero_();
          s.ready = true;
          buckets_[b].pending -= 1;
        }
      }
    }
    LaunchReadyLocked();
    TB_CHECK(next_launch_ == buckets_.size(), "a bucket was not launched");
    in_step_ = false;
  }
  const double inv = 1.0 / group_->size();
  torch::NoGradGuard no_grad;
  for (size_t b = 0; b < buckets_.size(); ++b) {
    buckets_[b].work->Wait();
    buckets_[b].flat.mul_(inv);
    for (size_t n : bucket_params_[b]) {
      const Slot& s = slots_[n];
      if (s.sparse) continue;
      torch::Tensor avg = buckets_[b].flat.narrow(0, s.offset, s.numel).view(params_[n].sizes());
      torch::Tensor& g = params_[n].mutable_grad();
      if (g.defined() && !g.is_sparse()) {
        g.copy_(avg);
      } else {
        g = avg.clone();
      }
    }
  }
  for (size_t n : sparse_params_) {
    params_[n].mutable_grad() = ReduceSparse(slots_[n].sparse_grad, params_[n]);
  }
  stats_.wait_seconds +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ++stats_.steps;
}

}  // namespace trainbench::dist

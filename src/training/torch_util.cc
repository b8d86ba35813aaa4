#include "training/torch_util.h"

#include <ATen/Parallel.h>
#include <ATen/autocast_mode.h>
#include <dlfcn.h>
#include <torch/version.h>

#include <atomic>
#include <cmath>
#include <string>

#include "core/error.h"
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

torch::Dtype ParsePrecision(const std::string& value, const torch::Device& device, const std::string& key) {
  if (value == "fp32") return torch::kFloat32;
  if (value == "bf16") return torch::kBFloat16;
  if (value == "fp16") {
    if (!device.is_cuda()) {
      throw core::Error("configuration key \"" + key + "\": fp16 needs a CUDA device (CPU autocast is bf16 only)");
    }
    return torch::kFloat16;
  }
  throw core::Error("configuration key \"" + key + "\": expected fp32, bf16 or fp16, got \"" + value + "\"");
}

const char* PrecisionName(torch::Dtype dtype) {
  return dtype == torch::kBFloat16 ? "bf16" : dtype == torch::kFloat16 ? "fp16" : "fp32";
}

AutocastScope::AutocastScope(const torch::Device& device, torch::Dtype dtype) {
  if (dtype == torch::kFloat32) return;
  active_ = true;
  cuda_ = device.is_cuda();
  if (cuda_) {
    prev_enabled_ = at::autocast::is_enabled();
    prev_dtype_ = at::autocast::get_autocast_gpu_dtype();
    at::autocast::set_autocast_gpu_dtype(dtype);
    at::autocast::set_enabled(true);
  } else {
    prev_enabled_ = at::autocast::is_cpu_enabled();
    prev_dtype_ = at::autocast::get_autocast_cpu_dtype();
    at::autocast::set_autocast_cpu_dtype(dtype);
    at::autocast::set_cpu_enabled(true);
  }
  at::autocast::increment_nesting();
}

AutocastScope::~AutocastScope() {
  if (!active_) return;
  // The cast weights are cached for the scope; the outermost scope frees them.
  if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
  if (cuda_) {
    at::autocast::set_enabled(prev_enabled_);
    at::autocast::set_autocast_gpu_dtype(prev_dtype_);
  } else {
    at::autocast::set_cpu_enabled(prev_enabled_);
    at::autocast::set_autocast_cpu_dtype(prev_dtype_);
  }
}

LossScaler::LossScaler(double init_scale, int64_t growth_interval)
    : scale_(init_scale), growth_interval_(growth_interval) {}

bool LossScaler::UnscaleAndUpdate(const std::vector<torch::Tensor>& params) {
  torch::NoGradGuard g;
  bool finite = true;
  for (const auto& p : params) {
    if (!p.grad().defined()) continue;
    torch::Tensor grad = p.grad();
    grad.mul_(1.0 / scale_);
    if (finite && !torch::isfinite(grad).all().item<bool>()) finite = false;
  }
  if (!finite) {
    scale_ *= 0.5;
    good_steps_ = 0;
    ++skipped_;
    return false;
  }
  if (++good_steps_ >= growth_interval_) {
    scale_ *= 2.0;
    good_steps_ = 0;
  }
  return true;
}

void ToChannelsLast(torch::nn::Module& model) {
  torch::NoGradGuard g;
  for (auto& p : model.parameters()) {
    if (p.dim() == 4) p.set_data(p.data().contiguous(torch::MemoryFormat::ChannelsLast));
  }
  for (auto& b : model.buffers()) {
    if (b.dim() == 4) b.set_data(b.data().contiguous(torch::MemoryFormat::ChannelsLast));
  }
}

torch::Device SetUpTorch(const train::RunContext& ctx) {
  at::set_num_threads(std::max(1, ctx.threads));
  // Every benchmark's definition has `malloc_reuse`; process-wide, logged by TorchProvenance.
  if (ctx.config.at("malloc_reuse").get<bool>()) core::EnableMallocReuse();
  torch::manual_seed(core::SeedFor(ctx.seed, "model"));
  CheckDevice(ctx.device);  // the launcher's check, again for library callers
  return torch::Device(ctx.device);
}

torch::Tensor BatchImages(const data::Batch& batch, const torch::Device& device) {
  auto t = torch::from_blob(const_cast<float*>(batch.data.data()),
                            {batch.size, batch.shape.channels, batch.shape.height, batch.shape.width},
                            torch::kFloat32);
  return device.is_cpu() ? t.clone() : t.to(device);
}

torch::Tensor BatchLabels(const data::Batch& batch, const torch::Device& device) {
  auto t = torch::from_blob(const_cast<int64_t*>(batch.labels.data()), {batch.size}, torch::kInt64);
  return device.is_cpu() ? t.clone() : t.to(device);
}

std::shared_ptr<dist::ProcessGroup> RunGroup(const train::RunContext& ctx) {
  if (ctx.group) return ctx.group;
  TB_CHECK(ctx.world_size == 1, "a run with world size > 1 has no process group");
  return dist::MakeLocalGroup();
}

std::unique_ptr<dist::GradientReducer> MakeDataParallel(const std::shared_ptr<dist::ProcessGroup>& group,
                                                        torch::nn::Module& model,
                                                        std::vector<torch::Tensor> sparse) {
  if (group->size() == 1) return nullptr;
  dist::BroadcastModuleState(*group, model, 0);
  return std::make_unique<dist::GradientReducer>(group, model.parameters(), std::move(sparse));
}

void SyncForEvaluation(dist::ProcessGroup& group, torch::nn::Module& model) {
  if (group.size() == 1) return;
  dist::CheckReplicasIdentical(group, model.parameters(), "model parameter");
  dist::BroadcastTensors(group, model.buffers(), 0);
}

bool ReportStep(train::TrainControl& control, const torch::Tensor& loss, int64_t step, int64_t every, int64_t samples) {
  const bool read = every > 0 && step % every == 0;
  const double value = read ? loss.item<double>() : NAN;
  if (read && !std::isfinite(value)) {
    throw core::Error("training diverged: loss is " + std::to_string(value) + " at step " + std::to_string(step));
  }
  return control.OnStep(samples, value);
}

core::Json TorchProvenance(const torch::Device& device) {
  core::Json j = core::Json::object();
  j["libtorch_version"] = TORCH_VERSION;
  j["intra_op_threads"] = at::get_num_threads();
  j["blas_threads"] = BlasThreads();  // 0: the BLAS library's default
  j["malloc_reuse"] = core::MallocReuseEnabled();
  j["device"] = device.str();
  j["parallel_info"] = at::get_parallel_info();
  j["mkldnn"] = at::hasMKLDNN();
  j["cuda_available"] = torch::cuda::is_available();
  return j;
}

}  // namespace trainbench::training

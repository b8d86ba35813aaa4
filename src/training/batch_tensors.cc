#include "training/batch_tensors.h"

namespace trainbench::training {

torch::Tensor BatchImages(const data::Batch& batch, const torch::Device& device) {
  auto t = torch::from_blob(
      const_cast<float*>(batch.data.data()),
      {batch.size, batch.shape.channels, batch.shape.height, batch.shape.width}, torch::kFloat32);
  return device.is_cpu() ? t.clone() : t.to(device);
}

torch::Tensor BatchLabels(const data::Batch& batch, const torch::Device& device) {
  auto t = torch::from_blob(const_cast<int64_t*>(batch.labels.data()), {batch.size}, torch::kInt64);
  return device.is_cpu() ? t.clone() : t.to(device);
}

}  // namespace trainbench::training

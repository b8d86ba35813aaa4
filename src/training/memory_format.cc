#include "training/memory_format.h"

namespace trainbench::training {

void ToChannelsLast(torch::nn::Module& model) {
  torch::NoGradGuard g;
  for (auto& p : model.parameters()) {
    if (p.dim() == 4) p.set_data(p.data().contiguous(torch::MemoryFormat::ChannelsLast));
  }
  for (auto& b : model.buffers()) {
    if (b.dim() == 4) b.set_data(b.data().contiguous(torch::MemoryFormat::ChannelsLast));
  }
}

}  // namespace trainbench::training

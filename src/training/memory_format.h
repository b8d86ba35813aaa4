// A model's memory format: channels-last (NHWC) convolution weights.
#pragma once

#include <torch/torch.h>

namespace trainbench::training {

// Converts a model's 4-D parameters and buffers (convolution weights) to channels-last memory
// order in place; inputs given as channels-last then keep convolutions in NHWC end to end.
void ToChannelsLast(torch::nn::Module& model);

}  // namespace trainbench::training

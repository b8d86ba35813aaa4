// Weights in PyTorch's state-dict layout, as files that Python's torch.save / torch.load read and
// write (the zip format of PyTorch >= 1.6): a dict from a parameter or buffer name
// ("layer1.0.conv1.weight", "bn1.running_mean", ...) to its tensor. trainbench's ResNets keep
// torchvision's names, so an ImageNet-pretrained torchvision ResNet loads into a detection trunk
// (the SSD reference starts from torchvision's ResNet-34).
//
// LibTorch 1.13 reads only a plain dict: Python's `model.state_dict()` is an OrderedDict, which
// its unpickler cannot build. Save one as `torch.save(dict(model.state_dict()), "file.pt")`.
#pragma once

#include <torch/torch.h>

#include <string>
#include <vector>

namespace trainbench::models {

struct StateDictLoadReport {
  std::string path;
  std::string sha256;  // of the file's bytes (torchvision's file names carry its first 8 digits)
  int64_t loaded = 0;  // tensors copied into the module
  std::vector<std::string> unused;  // the file's entries the module has no tensor for (fc.*, ...)
  std::vector<std::string>
      missing;  // the module's num_batches_tracked buffers the file lacks (left as they were)
};

// Copies the tensors of the state-dict file at `path` into `module`'s parameters and buffers of the
// same names (named_parameters / named_buffers, recursively), converting the floating-point type
// and moving them to the module's device. Every parameter and buffer of the module must be in the
// file with the same shape, except BatchNorm's `num_batches_tracked` (checkpoints older than
// PyTorch 0.4, torchvision's ResNets among them, lack it). Entries the module lacks are ignored and
// listed in the report. Throws core::Error naming the file and the key: unreadable file, legacy
// (non-zip) format, not a dict of tensors, a missing key, a shape or type mismatch. On an error
// the module may be partly loaded.
StateDictLoadReport LoadStateDict(torch::nn::Module& module, const std::string& path);

// Writes `module`'s parameters and buffers (on the CPU) to `path` as a plain dict that Python's
// torch.load reads and LoadStateDict reads back; atomically (core::WriteFileAtomically).
void SaveStateDict(const torch::nn::Module& module, const std::string& path);

}  // namespace trainbench::models

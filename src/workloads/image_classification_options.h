// The settings of image_classification (MLPerf `resnet`) as data: every configuration key the
// workload uses, typed, and the per-scale presets (model shape, dataset, evaluation batch). No
// LibTorch, so that the settings can be read and tested without it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/json.h"

namespace trainbench::workloads {

// Defaults are the mini scale's values (configs/benchmarks/image_classification.yaml and the
// mini presets); FromConfig sets every field.
struct ImageClassificationOptions {
  enum class Optimizer { kSgd, kLars };
  enum class Dataset { kFashionMnist, kImageNet };

  // "sgd" or "lars", as MLLOG's opt_name logs it.
  static const char* OptimizerName(Optimizer o);

  // `config`: a resolved configuration (core::ResolveConfig's `effective`); `preset`: its
  // scale's preset (core::ScaleDef::preset: model shape and dataset facts). Each key is read
  // once; a missing key, a value of the wrong type or an unknown optimizer is a core::Error
  // naming the key.
  static ImageClassificationOptions FromConfig(const core::Json& config, const core::Json& preset);

  int64_t batch_size = 128;               // global batch (batch_size)
  Optimizer optimizer = Optimizer::kSgd;  // opt_name
  double base_lr = 0.1;
  double end_lr = 0.0001;
  double momentum = 0.9;
  double weight_decay = 0.0005;
  double warmup_epochs = 0.5;
  double decay_epochs = 8.0;  // from the start to the end of the polynomial decay
  double poly_power = 2.0;
  double lars_eta = 0.001;  // LARS trust coefficient (optimizer kLars)
  double label_smoothing = 0.0;
  std::string precision = "fp32";  // fp32, bf16 or fp16: training::ParsePrecision needs LibTorch
  bool channels_last = false;
  int64_t blas_threads = 0;  // 0: the BLAS library's default

  // The network, from the preset and the configuration: mini a small basic-block ResNet for 28x28
  // grey images (width and blocks_per_stage configured), full ResNet-50 v1.5 (the preset holds
  // models::ResNet50Options' values; num_classes and zero_init_residual configured).
  int64_t in_channels = 1;
  int64_t num_classes = 10;
  bool bottleneck = false;
  bool imagenet_stem = false;
  std::vector<int64_t> blocks = {1, 1, 1};
  std::vector<int64_t> widths = {16, 32, 64};
  bool zero_init_residual = false;

  // The data: mini Fashion-MNIST's idx files, full ImageNet's folders.
  Dataset dataset = Dataset::kFashionMnist;
  int crop_padding = 0;  // pad-and-random-crop of the Fashion-MNIST training images (0: flip only)
  // Training images per epoch before the data is loaded: the logged decay steps need them.
  int64_t train_samples_hint = 60000;
  int64_t eval_batch_size = 1000;  // global evaluation batch
};

}  // namespace trainbench::workloads

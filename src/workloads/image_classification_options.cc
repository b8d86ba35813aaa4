#include "workloads/image_classification_options.h"

#include "core/config_reader.h"

namespace trainbench::workloads {

const char* ImageClassificationOptions::OptimizerName(Optimizer o) {
  return o == Optimizer::kLars ? "lars" : "sgd";
}

ImageClassificationOptions ImageClassificationOptions::FromConfig(const core::Json& config,
                                                                  const std::string& scale) {
  const core::ConfigReader r(config);
  ImageClassificationOptions o;
  o.batch_size = r.Int("batch_size");
  const std::string opt_name = r.String("opt_name");
  o.base_lr = r.Float("base_lr");
  o.end_lr = r.Float("end_lr");
  o.momentum = r.Float("momentum");
  o.weight_decay = r.Float("weight_decay");
  o.warmup_epochs = r.Float("warmup_epochs");
  o.decay_epochs = r.Float("decay_epochs");
  o.poly_power = r.Float("poly_power");
  o.lars_eta = r.Float("lars_eta");
  o.label_smoothing = r.Float("label_smoothing");
  o.precision = r.String("precision");
  o.channels_last = r.Bool("channels_last");
  o.blas_threads = r.Int("blas_threads");
  if (scale == "mini") {
    const int64_t w = r.Int("width");
    const int64_t b = r.Int("blocks_per_stage");
    o.in_channels = 1;
    o.num_classes = 10;
    o.bottleneck = false;
    o.imagenet_stem = false;
    o.blocks = {b, b, b};
    o.widths = {w, 2 * w, 4 * w};
    o.zero_init_residual = false;
    o.dataset = Dataset::kFashionMnist;
    o.crop_padding = static_cast<int>(r.Int("crop_padding"));
    o.train_samples_hint = 60000;
    o.eval_batch_size = 1000;
  } else {
    o.in_channels = 3;
    o.num_classes = r.Int("num_classes");
    o.bottleneck = true;
    o.imagenet_stem = true;
    o.blocks = {3, 4, 6, 3};
    o.widths = {64, 128, 256, 512};
    o.zero_init_residual = r.Bool("zero_init_residual");
    o.dataset = Dataset::kImageNet;
    o.train_samples_hint = 1281167;
    o.eval_batch_size = 100;
  }
  if (opt_name == "sgd") {
    o.optimizer = Optimizer::kSgd;
  } else if (opt_name == "lars") {
    o.optimizer = Optimizer::kLars;
  } else {
    throw core::ConfigReader::KeyError("opt_name", "unknown optimizer \"" + opt_name + "\"");
  }
  return o;
}

}  // namespace trainbench::workloads

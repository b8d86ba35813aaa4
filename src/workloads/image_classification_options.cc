#include "workloads/image_classification_options.h"

#include "core/benchmark_def.h"
#include "core/config_reader.h"

namespace trainbench::workloads {

const char* ImageClassificationOptions::OptimizerName(Optimizer o) {
  return o == Optimizer::kLars ? "lars" : "sgd";
}

ImageClassificationOptions ImageClassificationOptions::FromConfig(const core::Json& config,
                                                                  const core::Json& preset) {
  const core::Json all = core::WithPreset(config, preset);
  const core::ConfigReader r(all);
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
  o.in_channels = r.Int("in_channels");
  o.num_classes = r.Int("num_classes");
  o.bottleneck = r.Bool("bottleneck");
  o.imagenet_stem = r.Bool("imagenet_stem");
  o.zero_init_residual = r.Bool("zero_init_residual");
  // The stages: their block counts listed (stage_blocks), or `stages` stages of blocks_per_stage
  // blocks each; the first stage `width` channels wide, each next one twice as wide.
  o.blocks.clear();
  if (r.Has("stage_blocks")) {
    for (const core::Json& b : r.Raw("stage_blocks")) {
      if (!b.is_number_integer() || b.get<int64_t>() < 1)
        throw core::ConfigReader::KeyError("stage_blocks", "expected positive integers");
      o.blocks.push_back(b.get<int64_t>());
    }
  } else {
    o.blocks.assign(static_cast<size_t>(r.Int32("stages")), r.Int("blocks_per_stage"));
  }
  o.widths.clear();
  for (size_t i = 0; i < o.blocks.size(); ++i) o.widths.push_back(r.Int("width") << i);
  const std::string data_format = r.OneOf("data_format", {"fashion_mnist", "imagenet"});
  o.dataset = data_format == "imagenet" ? Dataset::kImageNet : Dataset::kFashionMnist;
  if (o.dataset == Dataset::kFashionMnist) o.crop_padding = r.Int32("crop_padding");
  o.train_samples_hint = r.Int("train_samples_hint");
  o.eval_batch_size = r.Int("eval_batch_size");
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

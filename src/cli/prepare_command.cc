// `trainbench prepare`: makes a benchmark's dataset ready, or verifies a dataset the user
// provides. image_classification: mini uses Debian's dataset-fashion-mnist as shipped (nothing
// to generate: the idx files are checked completely); full verifies an ImageNet folder layout.
#include <cstdio>

#include "cli/commands.h"
#include "core/benchmark_def.h"
#include "core/error.h"
#include "core/paths.h"
#include "data/idx_reader.h"
#include "data/image_folder.h"

namespace trainbench::cli {

int RunPrepare(const PrepareOptions& o) {
  core::BenchmarkDef def = core::FindBenchmark(core::BenchmarksDir(), o.benchmark);
  const core::ScaleDef& scale = def.Scale(o.scale);
  const std::string dir = o.data_dir.empty() ? scale.data_dir : o.data_dir;
  if (def.name == "image_classification" && o.scale == "mini") {
    for (const char* split : {"train", "t10k"}) {
      data::MnistSplit s = data::LoadMnistSplit(dir, split);
      std::printf("%s/%s: %lld images of %dx%d, labels ok\n", dir.c_str(), split,
                  static_cast<long long>(s.num_examples), s.rows, s.cols);
    }
    std::printf("image_classification mini: dataset ready in %s\n", dir.c_str());
    return kExitOk;
  }
  if (def.name == "image_classification" && o.scale == "full") {
    for (const char* split : {"train", "val"}) {
      data::ImageFolder f(dir + "/" + split);
      std::printf("%s/%s: %zu classes, %lld images\n", dir.c_str(), split, f.classes().size(),
                  static_cast<long long>(f.size()));
    }
    std::printf("image_classification full: dataset layout ok in %s\n", dir.c_str());
    return kExitOk;
  }
  throw core::Error("prepare: no preparation for " + def.name + " at scale " + o.scale + " in this build");
}

}  // namespace trainbench::cli

// data_pipeline_bench: throughput of the data pipelines in images/s, as seen by a consumer that
// takes batches from a BatchLoader as fast as they come (no training step).
//
//   fashion_mnist_train: Fashion-MNIST train split in memory, pad-4 random crop + flip,
//                        normalise, batch 128 (synthetic data if the dataset is not installed).
//   imagenet_train_jpeg: a generated folder of 500x375 JPEGs (4 classes), read + decode +
//                        RandomResizedCrop 224 + flip + normalise, batch 32.
//   imagenet_eval_jpeg:  the same files, decode + resize 256 + center crop 224 + normalise.
//   jpeg_decode:         decode only, one thread (the floor of the JPEG pipelines).
// Each pipeline runs with 1 and 2 worker threads. Output: one line per measurement,
//   <pipeline> threads=<n> batch=<b> images=<count> seconds=<s> images_per_s=<rate>
//
// Usage: data_pipeline_bench [--fashion-dir DIR] [--imagenet-dir DIR] [--jpegs N]
//                            [--threads 1,2] [--epochs E]
//   --imagenet-dir uses an existing ImageFolder tree instead of generating JPEGs.
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "core/atomic_file.h"
#include "core/error.h"
#include "data/batch_loader.h"
#include "data/fashion_mnist_dataset.h"
#include "data/idx_reader.h"
#include "data/image_folder.h"
#include "data/imagenet_dataset.h"
#include "data/jpeg_codec.h"
#include "data/random.h"

namespace tb = trainbench;
namespace td = trainbench::data;
namespace fs = std::filesystem;

namespace {

struct Flags {
  std::string fashion_dir = td::kFashionMnistSystemDir;
  std::string imagenet_dir;  // empty: generate
  int jpegs = 200;
  std::vector<int> threads = {1, 2};
  int epochs = 0;  // 0: per-pipeline default
};

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Runs `epochs` epochs and prints one result line.
void RunLoader(const std::string& name, std::shared_ptr<const td::Dataset> dataset,
               int64_t batch_size, int threads, int epochs) {
  td::BatchLoaderOptions o;
  o.batch_size = batch_size;
  o.seed = 2018;
  o.num_workers = threads;
  o.last_batch = td::LastBatchPolicy::kKeepPartial;
  td::BatchLoader loader(std::move(dataset), o);
  int64_t images = 0;
  double checksum = 0;
  const double start = Now();
  for (int e = 0; e < epochs; ++e) {
    loader.StartEpoch(e);
    while (std::optional<td::Batch> b = loader.Next()) {
      images += b->size;
      checksum += b->data[0];
    }
  }
  const double seconds = Now() - start;
  std::printf("%s threads=%d batch=%lld images=%lld seconds=%.3f images_per_s=%.1f\n", name.c_str(),
              threads, static_cast<long long>(batch_size), static_cast<long long>(images), seconds,
              images / seconds);
  std::fflush(stdout);
  if (std::isnan(checksum)) std::printf("(nan checksum)\n");
}

std::shared_ptr<td::MnistSplit> FashionTrain(const std::string& dir) {
  auto split = std::make_shared<td::MnistSplit>();
  if (fs::exists(fs::path(dir) / "train-images-idx3-ubyte.gz") ||
      fs::exists(fs::path(dir) / "train-images-idx3-ubyte")) {
    *split = td::LoadMnistSplit(dir, "train");
    std::printf("# fashion_mnist: %s (%lld images)\n", dir.c_str(),
                static_cast<long long>(split->num_examples));
    return split;
  }
  split->num_examples = 60000;
  split->rows = split->cols = 28;
  td::Rng rng(1);
  split->images.resize(60000 * 784);
  for (uint8_t& b : split->images) b = static_cast<uint8_t>(rng.NextU32());
  split->labels.resize(60000);
  for (uint8_t& l : split->labels) l = static_cast<uint8_t>(rng.UniformInt(0, 9));
  std::printf("# fashion_mnist: not found in %s, synthetic 60000 images\n", dir.c_str());
  return split;
}

// A photo-like 500x375 image: smooth shapes plus sensor-like noise, so the JPEG has a realistic
// size (ImageNet averages ~110 KB) and decode cost.
td::Image PhotoLike(int height, int width, uint64_t seed) {
  td::Image img(height, width, 3);
  td::Rng rng(seed);
  const double fx = rng.Uniform(20, 80), fy = rng.Uniform(20, 80), ph = rng.Uniform(0, 6.28);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      for (int c = 0; c < 3; ++c) {
        const double v = 128 + 70 * std::sin(x / (fx + 7 * c) + ph) * std::cos(y / (fy + 5 * c)) +
                         rng.Uniform(-24, 24);
        img.at(y, x, c) = static_cast<uint8_t>(std::fmin(255, std::fmax(0, v)));
      }
    }
  }
  return img;
}

std::string MakeJpegTree(int count) {
  const fs::path root =
      fs::temp_directory_path() / ("trainbench_data_bench_" + std::to_string(::getpid()));
  fs::remove_all(root);
  int64_t bytes = 0;
  for (int i = 0; i < count; ++i) {
    const fs::path cls = root / ("n0000000" + std::to_string(i % 4));
    fs::create_directories(cls);
    const std::vector<uint8_t> jpeg = td::EncodeJpeg(PhotoLike(375, 500, i), 90);
    bytes += static_cast<int64_t>(jpeg.size());
    const std::string path = (cls / ("img_" + std::to_string(i) + ".JPEG")).string();
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (f == nullptr || std::fwrite(jpeg.data(), 1, jpeg.size(), f) != jpeg.size()) {
      throw tb::core::FileError(path, 0, "cannot write");
    }
    std::fclose(f);
  }
  std::printf("# imagenet: generated %d JPEGs of 500x375 in %s, mean %.1f KB\n", count,
              root.string().c_str(), bytes / 1024.0 / count);
  return root.string();
}

void DecodeOnly(const td::ImageFolder& folder) {
  std::vector<std::string> files;
  for (const auto& s : folder.samples()) files.push_back(tb::core::ReadFile(s.path));
  const double start = Now();
  int64_t pixels = 0;
  for (const std::string& f : files) {
    pixels +=
        td::DecodeJpeg(reinterpret_cast<const uint8_t*>(f.data()), f.size(), "jpeg").num_bytes();
  }
  const double seconds = Now() - start;
  std::printf("jpeg_decode threads=1 batch=1 images=%zu seconds=%.3f images_per_s=%.1f\n",
              files.size(), seconds, files.size() / seconds);
}

Flags ParseFlags(int argc, char** argv) {
  Flags f;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw tb::core::Error("missing value for " + a);
      return argv[++i];
    };
    if (a == "--fashion-dir") {
      f.fashion_dir = value();
    } else if (a == "--imagenet-dir") {
      f.imagenet_dir = value();
    } else if (a == "--jpegs") {
      f.jpegs = std::stoi(value());
    } else if (a == "--epochs") {
      f.epochs = std::stoi(value());
    } else if (a == "--threads") {
      f.threads.clear();
      std::stringstream ss(value());
      for (std::string t; std::getline(ss, t, ',');) f.threads.push_back(std::stoi(t));
    } else {
      throw tb::core::Error("unknown flag " + a +
                            " (flags: --fashion-dir --imagenet-dir --jpegs --threads --epochs)");
    }
  }
  return f;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Flags flags = ParseFlags(argc, argv);
    std::printf("# hardware threads: %u\n", std::thread::hardware_concurrency());

    auto split = FashionTrain(flags.fashion_dir);
    auto fashion = std::make_shared<td::FashionMnistDataset>(split, td::FashionMnistTrainOptions());
    for (int t : flags.threads) {
      RunLoader("fashion_mnist_train", fashion, 128, t, flags.epochs > 0 ? flags.epochs : 3);
    }

    const bool generated = flags.imagenet_dir.empty();
    const std::string root = generated ? MakeJpegTree(flags.jpegs) : flags.imagenet_dir;
    auto folder = std::make_shared<td::ImageFolder>(root);
    DecodeOnly(*folder);
    td::ImageNetOptions train;
    auto train_ds = std::make_shared<td::ImageNetDataset>(folder, train);
    td::ImageNetOptions eval;
    eval.train = false;
    auto eval_ds = std::make_shared<td::ImageNetDataset>(folder, eval);
    const int epochs = flags.epochs > 0 ? flags.epochs : 2;
    for (int t : flags.threads) RunLoader("imagenet_train_jpeg", train_ds, 32, t, epochs);
    for (int t : flags.threads) RunLoader("imagenet_eval_jpeg", eval_ds, 32, t, epochs);
    if (generated) fs::remove_all(root);
    return 0;
  } catch (const tb::core::Error& e) {
    std::fprintf(stderr, "data_pipeline_bench: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "data_pipeline_bench: %s\n", e.what());
    return 1;
  }
}

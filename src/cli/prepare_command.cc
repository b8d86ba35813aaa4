// `trainbench prepare`: makes a benchmark's dataset ready, or verifies a dataset the user
// provides. It takes a benchmark's name or its dataset's (workloads/benchmark_table.h says which
// dataset each benchmark trains on; kDatasets below which function prepares it), and the folder
// the benchmark's definition gives unless --data names one.
// image_classification: mini uses Debian's dataset-fashion-mnist as shipped (nothing to
// generate: the idx files are checked completely); full verifies an ImageNet folder layout.
// recommendation: mini generates ratings.csv (and dataset.json, the generator's options) from
// the latent-factor generator, or, when the file exists, checks that it is exactly what the
// generator makes; full reads a MovieLens-20M ratings.csv and runs the leave-one-out split.
// translation (the benchmarks translation and rnn_translation): mini builds the
// English->Spanish corpus from the fortunes and Apertium and trains SentencePiece
// (text/translation_dataset.h), or verifies a folder already built; full checks a WMT En-De
// folder line by line.
// go (the benchmark reinforcement_learning): mini records GNU Go self-play games as SGF
// (go/go_dataset.h), or verifies a folder recorded before; full reads and replays an expert SGF
// collection.
// detection (object_detection and instance_segmentation): mini renders the shapes dataset in
// the COCO 2017 layout (shapes/detection_dataset.h), or keeps a folder whose dataset.json
// matches and rebuilds one that does not; full checks a COCO 2017 folder's layout.
#include <cstdint>
#include <cstdio>
#include <filesystem>

#include "cli/commands.h"
#include "cli/set_options.h"
#include "core/atomic_file.h"
#include "core/benchmark_def.h"
#include "core/error.h"
#include "core/json.h"
#include "core/paths.h"
#include "data/idx_reader.h"
#include "data/image_folder.h"
#include "data/leave_one_out.h"
#include "data/ratings_csv.h"
#include "data/synthetic_ratings.h"
#include "go/go_dataset.h"
#include "shapes/detection_dataset.h"
#include "workloads/benchmark_table.h"
#ifdef TRAINBENCH_TEXT_VIA_TOOL
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>
#else
#include "text/translation_dataset.h"
#endif

namespace trainbench::cli {

namespace {

// The mini recommendation dataset's generator options (docs/datasets/recommendation_mini.md).
data::SyntheticRatingsOptions GeneratorOptions(const std::vector<std::string>& set) {
  data::SyntheticRatingsOptions g;
  SetOptions("unknown generator option (see docs/datasets/recommendation_mini.md)")
      .Int("seed", &g.seed)
      .Int("num_users", &g.num_users)
      .Int("num_items", &g.num_items)
      .Int("latent_dim", &g.latent_dim)
      .Float("affinity", &g.affinity)
      .Float("popularity", &g.popularity)
      .Float("zipf_exponent", &g.zipf_exponent)
      .Int("min_ratings_per_user", &g.min_ratings_per_user)
      .Float("median_extra_ratings", &g.median_extra_ratings)
      .Float("activity_sigma", &g.activity_sigma)
      .Int("max_ratings_per_user", &g.max_ratings_per_user)
      .Apply(set);
  return g;
}

void PrintSplit(const data::LeaveOneOutDataset& d) {
  std::printf(
      "  %lld ratings read, %lld users kept (%lld dropped with < 20 ratings), %lld items, %lld "
      "training positives, %lld duplicates merged\n",
      static_cast<long long>(d.ratings_read), static_cast<long long>(d.num_users),
      static_cast<long long>(d.users_dropped), static_cast<long long>(d.num_items),
      static_cast<long long>(d.num_train()), static_cast<long long>(d.duplicates_merged));
}

int PrepareRecommendation(const PrepareOptions& o, const std::string& dir) {
  const std::string path = data::RatingsCsvPath(dir);
  data::LeaveOneOutOptions lo;
  lo.threads = 2;
  if (o.scale == "mini") {
    lo.sparse_users = data::SparseUserPolicy::kError;
    const data::SyntheticRatingsOptions g = GeneratorOptions(o.set);
    const std::string text = data::FormatRatingsCsv(data::GenerateSyntheticRatings(g));
    if (std::filesystem::exists(path)) {
      if (core::ReadFile(path) != text) {
        throw core::FileError(path, 0,
                              "exists but is not what the generator makes with these options; "
                              "remove the folder to regenerate it");
      }
      std::printf("%s: matches the generator's output\n", path.c_str());
    } else {
      core::MakeDirs(dir);
      core::WriteFileAtomically(dir + "/dataset.json",
                                core::PythonJsonDumps(data::SyntheticRatingsOptionsJson(g)) + "\n");
      core::WriteFileAtomically(path, text);
      std::printf("%s: generated\n", path.c_str());
    }
  } else {
    lo.sparse_users = data::SparseUserPolicy::kDrop;
    if (!o.set.empty())
      throw core::Error(
          "prepare recommendation --scale full takes no --set (MovieLens-20M is as released)");
  }
  data::LeaveOneOutDataset d = data::BuildLeaveOneOut(data::ReadRatingsCsv(path), lo);
  PrintSplit(d);
  std::printf("recommendation %s: dataset ready in %s\n", o.scale.c_str(), dir.c_str());
  return kExitOk;
}

#ifdef TRAINBENCH_TEXT_VIA_TOOL
// LibTorch's libprotobuf and the protobuf that Debian's libsentencepiece embeds crash when
// loaded into one process (duplicate descriptor registration at start-up), so a trainbench
// linked with LibTorch does the SentencePiece work in trainbench-text, a LibTorch-free
// executable installed next to it, with the same arguments.
int PrepareTranslation(const PrepareOptions& o, const std::string& dir) {
  char self[PATH_MAX] = {0};
  ssize_t n = ::readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (n <= 0)
    throw core::Error("prepare translation: cannot find this executable (/proc/self/exe)");
  const std::string tool =
      std::filesystem::path(std::string(self, static_cast<size_t>(n))).parent_path() /
      "trainbench-text";
  std::vector<std::string> args = {tool, "prepare", o.benchmark, "--scale", o.scale, "--data", dir};
  for (const auto& kv : o.set) {
    args.push_back("--set");
    args.push_back(kv);
  }
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::fflush(stdout);
  std::fflush(stderr);
  pid_t pid = ::fork();
  if (pid < 0)
    throw core::Error(std::string("prepare translation: fork failed: ") + std::strerror(errno));
  if (pid == 0) {
    ::execv(tool.c_str(), argv.data());
    std::fprintf(stderr, "trainbench: %s: cannot run: %s\n", tool.c_str(), std::strerror(errno));
    ::_exit(kExitBadInput);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  throw core::Error(tool + " was killed by signal " + std::to_string(WTERMSIG(status)));
}
#else
// The mini translation corpus's and SentencePiece's options (docs/datasets/translation_mini.md).
text::MiniTranslationOptions TranslationOptions(const std::vector<std::string>& set) {
  text::MiniTranslationOptions t;
  text::MiniCorpusOptions& c = t.corpus;
  SetOptions("unknown option of the translation corpus (see docs/datasets/translation_mini.md)")
      .Int("seed", &c.seed)
      .Int("test_size", &c.test_size)
      .Int("max_sentences", &c.max_sentences)
      .Int("min_words", &c.min_words)
      .Int("max_words", &c.max_words)
      .Text("fortunes_dir", &c.fortunes_dir)
      .Text("apertium", &c.apertium.command)
      .Text("apertium_pair", &c.apertium.pair)
      .Int("apertium_chunk_lines", &c.apertium.chunk_lines)
      .Float("apertium_timeout_s", &c.apertium.timeout_s)
      .Int("vocab_size", &t.subword.vocab_size)
      .Text("spm_model_type", &t.subword.model_type)
      .Int("spm_seed", &t.subword.seed)
      .Apply(set);
  if (c.apertium.chunk_lines < 1)
    throw core::Error("--set apertium_chunk_lines: must be at least 1");
  if (c.min_words < 1 || c.max_words < c.min_words)
    throw core::Error("--set min_words/max_words: need 1 <= min_words <= max_words");
  if (c.test_size < 1) throw core::Error("--set test_size: must be at least 1");
  if (c.max_sentences < 0) throw core::Error("--set max_sentences: must be >= 0 (0: all)");
  if (t.subword.vocab_size < 8) throw core::Error("--set vocab_size: must be at least 8");
  if (c.apertium.timeout_s <= 0) throw core::Error("--set apertium_timeout_s: must be > 0");
  return t;
}

int PrepareTranslation(const PrepareOptions& o, const std::string& dir) {
  if (o.scale == "mini") {
    const text::MiniTranslationOptions t = TranslationOptions(o.set);
    std::printf("translation mini: %s\n", dir.c_str());
    std::fflush(stdout);
    const text::PrepareResult r = text::PrepareMiniTranslation(dir, t, stdout);
    const core::Json& c = r.dataset["counts"];
    std::printf("%s: %s; %lld train and %lld test sentence pairs, %lld subword pieces\n",
                dir.c_str(), r.generated ? "generated" : "matches dataset.json",
                c.value("train_pairs", 0LL), c.value("test_pairs", 0LL),
                c.value("spm_pieces", 0LL));
    std::printf("translation mini: dataset ready in %s\n", dir.c_str());
    return kExitOk;
  }
  if (o.scale == "full") {
    text::FullTranslationOptions f;
    f.subword.vocab_size = 32768;
    for (const std::string& kv : o.set) {
      const size_t eq = kv.find('=');
      const std::string key = kv.substr(0, eq),
                        value = eq == std::string::npos ? "" : kv.substr(eq + 1);
      long long v = 0;
      try {
        size_t used = 0;
        v = std::stoll(value, &used);
        if (used != value.size()) throw std::invalid_argument(value);
      } catch (const std::exception&) {
        throw core::Error("--set " + kv + ": expected an integer");
      }
      if (key == "vocab_size" && v >= 8)
        f.subword.vocab_size = static_cast<int>(v);
      else if (key == "spm_max_sentences" && v >= 2)
        f.spm_max_sentences = v;
      else
        throw core::Error("--set " + kv +
                          ": the full scale takes vocab_size (>= 8) and spm_max_sentences (>= 2)");
    }
    const text::PrepareResult r = text::PrepareFullTranslation(dir, f, stdout);
    std::printf("%s: %s; %lld pieces\n", dir.c_str(),
                r.generated ? "spm model and ids written" : "matches dataset.json",
                r.dataset["counts"].value("spm_pieces", 0LL));
    std::printf("translation full: dataset ready in %s\n", dir.c_str());
    return kExitOk;
  }
  throw core::Error("prepare translation: unknown scale \"" + o.scale + "\" (mini or full)");
}
#endif

// The mini detection dataset's options (docs/datasets/detection_mini.md).
shapes::DetectionMiniOptions DetectionOptions(const std::vector<std::string>& set) {
  shapes::DetectionMiniOptions d;
  shapes::ShapesOptions& s = d.shapes;
  SetOptions("unknown option of the detection dataset (see docs/datasets/detection_mini.md)")
      .Int("seed", &d.seed)
      .Int("train_images", &d.train_images)
      .Int("val_images", &d.val_images)
      .Int("jpeg_quality", &d.jpeg_quality)
      .Int("width", &s.width)
      .Int("height", &s.height)
      .Int("min_objects", &s.min_objects)
      .Int("max_objects", &s.max_objects)
      .Float("min_size", &s.min_size)
      .Float("max_size", &s.max_size)
      .Float("max_aspect", &s.max_aspect)
      .Float("max_occlusion", &s.max_occlusion)
      .Int("min_visible_area", &s.min_visible_area)
      .Int("min_contrast", &s.min_contrast)
      .Int("noise", &s.noise)
      .Flag("antialias", &s.antialias)
      .Apply(set);
  shapes::ValidateDetectionMiniOptions(d);
  return d;
}

int PrepareDetection(const PrepareOptions& o, const std::string& dir) {
  if (o.scale == "mini") {
    const shapes::DetectionMiniOptions d = DetectionOptions(o.set);
    std::printf("detection mini: %s\n", dir.c_str());
    std::fflush(stdout);
    const shapes::DetectionPrepareResult r = shapes::PrepareDetectionMini(dir, d, stdout);
    const core::Json& c = r.dataset["counts"];
    if (r.generated) {
      const double n = static_cast<double>(d.train_images + d.val_images);
      std::printf(
          "%s: %s; %.1f s for %.0f images: %.0f images/s (rendering %.0f images/s, JPEG encoding "
          "%.0f images/s, rest: writing)\n",
          dir.c_str(), r.rebuilt_because.empty() ? "generated" : "rebuilt", r.seconds, n,
          n / r.seconds, n / r.render_s, n / r.encode_s);
    } else {
      std::printf("%s: matches dataset.json\n", dir.c_str());
    }
    std::printf("%s: %lld train images with %lld objects, %lld val images with %lld objects\n",
                dir.c_str(), c.value("train2017_images", 0LL), c.value("train2017_objects", 0LL),
                c.value("val2017_images", 0LL), c.value("val2017_objects", 0LL));
    std::printf("detection mini: dataset ready in %s\n", dir.c_str());
    return kExitOk;
  }
  if (o.scale == "full") {
    if (!o.set.empty())
      throw core::Error("prepare detection --scale full takes no --set (COCO 2017 is as released)");
    const shapes::CocoFolderCheck c = shapes::CheckCoco2017Folder(dir);
    if (!c.missing.empty()) {
      std::string what;
      for (const std::string& m : c.missing) what += "\n  " + m;
      throw core::Error("prepare detection --scale full: " + dir +
                        " is not a COCO 2017 folder; missing:" + what +
                        "\n(expected annotations/instances_train2017.json, "
                        "annotations/instances_val2017.json, train2017/*.jpg, "
                        "val2017/*.jpg; point --data at the folder)");
    }
    std::printf(
        "%s: annotations/instances_{train,val}2017.json present, %lld train2017 and %lld val2017 "
        "images\n",
        dir.c_str(), c.train_images, c.val_images);
    std::printf("detection full: dataset layout ok in %s\n", dir.c_str());
    return kExitOk;
  }
  throw core::Error("prepare detection: unknown scale \"" + o.scale + "\" (mini or full)");
}

int PrepareGo(const PrepareOptions& o, const std::string& dir) {
  if (o.scale == "mini") {
    go::GoMiniOptions g;
    SetOptions(
        "unknown option of the Go dataset (seed, games, level, board_size, komi, threads, gnugo)")
        .Int("seed", &g.seed)
        .Int("games", &g.games)
        .Int("level", &g.level)
        .Int("board_size", &g.size)
        .Float("komi", &g.komi)
        .Int("threads", &g.threads)
        .Text("gnugo", &g.gnugo)
        .Apply(o.set);
    std::printf("go mini: %s (GNU Go level %d self-play, %dx%d, komi %.1f, %d games)\n",
                dir.c_str(), g.level, g.size, g.size, g.komi, g.games);
    std::fflush(stdout);
    const go::GoDatasetSummary r = go::PrepareGoMini(dir, g, stdout);
    std::printf("%s: %s; %lld games, %lld positions (%.1f s)\n", dir.c_str(),
                r.generated ? "recorded" : "matches dataset.json", static_cast<long long>(r.games),
                static_cast<long long>(r.positions), r.seconds);
    std::printf("go mini: dataset ready in %s\n", dir.c_str());
    return kExitOk;
  }
  if (o.scale == "full") {
    if (!o.set.empty())
      throw core::Error(
          "prepare go --scale full takes no --set (the expert collection is the user's)");
    const go::GoDatasetSummary r = go::CheckExpertCollection(dir, 9);
    std::printf("%s: %lld 9x9 games, %lld positions, every move legal\n", dir.c_str(),
                static_cast<long long>(r.games), static_cast<long long>(r.positions));
    std::printf("go full: expert collection ok in %s\n", dir.c_str());
    return kExitOk;
  }
  throw core::Error("prepare go: unknown scale \"" + o.scale + "\" (mini or full)");
}

// image_classification: mini is Debian's Fashion-MNIST as shipped (checked completely); full
// an ImageNet folder layout.
int PrepareImageClassification(const PrepareOptions& o, const std::string& dir) {
  if (!o.set.empty())
    throw core::Error("prepare image_classification takes no --set (the datasets are as released)");
  if (o.scale == "mini") {
    for (const char* split : {"train", "t10k"}) {
      data::MnistSplit s = data::LoadMnistSplit(dir, split);
      std::printf("%s/%s: %lld images of %dx%d, labels ok\n", dir.c_str(), split,
                  static_cast<long long>(s.num_examples), s.rows, s.cols);
    }
    std::printf("image_classification mini: dataset ready in %s\n", dir.c_str());
    return kExitOk;
  }
  for (const char* split : {"train", "val"}) {
    data::ImageFolder f(dir + "/" + split);
    std::printf("%s/%s: %zu classes, %lld images\n", dir.c_str(), split, f.classes().size(),
                static_cast<long long>(f.size()));
  }
  std::printf("image_classification full: dataset layout ok in %s\n", dir.c_str());
  return kExitOk;
}

// The datasets `prepare` makes or checks, by the name workloads/benchmark_table.h gives them.
struct DatasetRow {
  std::string_view name;
  int (*prepare)(const PrepareOptions& o, const std::string& dir);
};
constexpr DatasetRow kDatasets[] = {
    {"image_classification", PrepareImageClassification},
    {"detection", PrepareDetection},
    {"recommendation", PrepareRecommendation},
    {"translation", PrepareTranslation},
    {"go", PrepareGo},
};

}  // namespace

int RunPrepare(const PrepareOptions& o) {
  // A benchmark's name or its dataset's; the folder, unless --data names one, is the one the
  // benchmark's definition gives for the scale (for a dataset name: its first benchmark's).
  const workloads::BenchmarkRow* row = workloads::FindBenchmarkRow(o.benchmark);
  if (!row) row = workloads::FirstBenchmarkOn(o.benchmark);
  if (!row) {
    std::string known;
    for (const DatasetRow& d : kDatasets)
      known += (known.empty() ? "" : ", ") + std::string(d.name);
    for (const workloads::BenchmarkRow& b : workloads::kBenchmarks) {
      if (b.name != b.dataset) known += ", " + std::string(b.name);
    }
    throw core::Error("prepare: unknown benchmark or dataset \"" + o.benchmark +
                      "\" (known: " + known + ")");
  }
  const DatasetRow* dataset = nullptr;
  for (const DatasetRow& d : kDatasets) {
    if (d.name == row->dataset) dataset = &d;
  }
  TB_CHECK(dataset, "benchmark_table.h names dataset " << row->dataset
                                                       << ", which prepare_command.cc lacks");
  const core::BenchmarkDef def = core::FindBenchmark(core::BenchmarksDir(), std::string(row->name));
  const std::string dir = o.data_dir.empty() ? def.Scale(o.scale).data_dir : o.data_dir;
  return dataset->prepare(o, dir);
}

}  // namespace trainbench::cli

// `trainbench prepare`: makes a benchmark's dataset ready, or verifies a dataset the user
// provides. image_classification: mini uses Debian's dataset-fashion-mnist as shipped (nothing
// to generate: the idx files are checked completely); full verifies an ImageNet folder layout.
// recommendation: mini generates ratings.csv (and dataset.json, the generator's options) from
// the latent-factor generator, or, when the file exists, checks that it is exactly what the
// generator makes; full reads a MovieLens-20M ratings.csv and runs the leave-one-out split.
// translation (no benchmark definition of its own yet, so handled before FindBenchmark): mini
// builds the English->Spanish corpus from the fortunes and Apertium and trains SentencePiece
// (text/translation_dataset.h), or verifies a folder already built; full checks a WMT En-De
// folder line by line.
// go (the benchmark reinforcement_learning): mini records GNU Go self-play games as SGF
// (go/go_dataset.h), or verifies a folder recorded before; full reads and replays an expert SGF
// collection.
// detection (no benchmark definition yet either, handled before FindBenchmark too): mini renders
// the shapes dataset in the COCO 2017 layout (shapes/detection_dataset.h), or keeps a folder
// whose dataset.json matches and rebuilds one that does not; full checks a COCO 2017 folder's
// layout.
#include <cstdint>
#include <cstdio>
#include <filesystem>

#include "cli/commands.h"
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

// Applies `--set key=value` overrides to the generator's options; throws naming the key.
data::SyntheticRatingsOptions GeneratorOptions(const std::vector<std::string>& set) {
  data::SyntheticRatingsOptions g;
  for (const auto& kv : core::ParseOverrides(set)) {
    // Not a structured binding: C++17 lambdas cannot capture one (clang refuses).
    const std::string& key = kv.first;
    const std::string& v = kv.second;
    try {
      size_t used = 0;
      auto as_int = [&] { long long x = std::stoll(v, &used); if (used != v.size()) throw std::invalid_argument(v); return x; };
      auto as_double = [&] { double x = std::stod(v, &used); if (used != v.size()) throw std::invalid_argument(v); return x; };
      if (key == "seed") g.seed = static_cast<uint64_t>(as_int());
      else if (key == "num_users") g.num_users = as_int();
      else if (key == "num_items") g.num_items = as_int();
      else if (key == "latent_dim") g.latent_dim = static_cast<int>(as_int());
      else if (key == "affinity") g.affinity = as_double();
      else if (key == "popularity") g.popularity = as_double();
      else if (key == "zipf_exponent") g.zipf_exponent = as_double();
      else if (key == "min_ratings_per_user") g.min_ratings_per_user = static_cast<int>(as_int());
      else if (key == "median_extra_ratings") g.median_extra_ratings = as_double();
      else if (key == "activity_sigma") g.activity_sigma = as_double();
      else if (key == "max_ratings_per_user") g.max_ratings_per_user = static_cast<int>(as_int());
      else throw core::Error("--set " + key + ": unknown generator option (see docs/datasets/recommendation_mini.md)");
    } catch (const std::invalid_argument&) {
      throw core::Error("--set " + key + ": \"" + v + "\" is not a number");
    } catch (const std::out_of_range&) {
      throw core::Error("--set " + key + ": \"" + v + "\" is out of range");
    }
  }
  return g;
}

void PrintSplit(const data::LeaveOneOutDataset& d) {
  std::printf("  %lld ratings read, %lld users kept (%lld dropped with < 20 ratings), %lld items, %lld training positives, %lld duplicates merged\n",
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
        throw core::FileError(path, 0, "exists but is not what the generator makes with these options; "
                                       "remove the folder to regenerate it");
      }
      std::printf("%s: matches the generator's output\n", path.c_str());
    } else {
      core::MakeDirs(dir);
      core::WriteFileAtomically(dir + "/dataset.json", core::PythonJsonDumps(data::SyntheticRatingsOptionsJson(g)) + "\n");
      core::WriteFileAtomically(path, text);
      std::printf("%s: generated\n", path.c_str());
    }
  } else {
    lo.sparse_users = data::SparseUserPolicy::kDrop;
    if (!o.set.empty()) throw core::Error("prepare recommendation --scale full takes no --set (MovieLens-20M is as released)");
  }
  data::LeaveOneOutDataset d = data::BuildLeaveOneOut(data::ReadRatingsCsv(path), lo);
  PrintSplit(d);
  std::printf("recommendation %s: dataset ready in %s\n", o.scale.c_str(), dir.c_str());
  return kExitOk;
}

// Default folders of the translation datasets (no benchmark definition names them yet).
constexpr const char* kTranslationMiniDir = "{user_data}/datasets/translation_mini";
constexpr const char* kTranslationFullDir = "/data/wmt16_en_de";

#ifdef TRAINBENCH_TEXT_VIA_TOOL
// LibTorch's libprotobuf and the protobuf that Debian's libsentencepiece embeds crash when
// loaded into one process (duplicate descriptor registration at start-up), so a trainbench
// linked with LibTorch does the SentencePiece work in trainbench-text, a LibTorch-free
// executable installed next to it, with the same arguments.
int PrepareTranslation(const PrepareOptions& o) {
  char self[PATH_MAX] = {0};
  ssize_t n = ::readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (n <= 0) throw core::Error("prepare translation: cannot find this executable (/proc/self/exe)");
  const std::string tool = std::filesystem::path(std::string(self, static_cast<size_t>(n))).parent_path() / "trainbench-text";
  std::vector<std::string> args = {tool, "prepare", "translation", "--scale", o.scale};
  if (!o.data_dir.empty()) {
    args.push_back("--data");
    args.push_back(o.data_dir);
  }
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
  if (pid < 0) throw core::Error(std::string("prepare translation: fork failed: ") + std::strerror(errno));
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
// Applies `--set key=value` to the mini translation corpus and SentencePiece options.
text::MiniTranslationOptions TranslationOptions(const std::vector<std::string>& set) {
  text::MiniTranslationOptions t;
  text::MiniCorpusOptions& c = t.corpus;
  for (const auto& kv : core::ParseOverrides(set)) {
    const std::string& key = kv.first;
    const std::string& v = kv.second;
    try {
      size_t used = 0;
      auto as_int = [&] { long long x = std::stoll(v, &used); if (used != v.size()) throw std::invalid_argument(v); return x; };
      auto as_double = [&] { double x = std::stod(v, &used); if (used != v.size()) throw std::invalid_argument(v); return x; };
      if (key == "seed") c.seed = static_cast<uint64_t>(as_int());
      else if (key == "test_size") c.test_size = as_int();
      else if (key == "max_sentences") c.max_sentences = as_int();
      else if (key == "min_words") c.min_words = static_cast<int>(as_int());
      else if (key == "max_words") c.max_words = static_cast<int>(as_int());
      else if (key == "fortunes_dir") c.fortunes_dir = v;
      else if (key == "apertium") c.apertium.command = v;
      else if (key == "apertium_pair") c.apertium.pair = v;
      else if (key == "apertium_chunk_lines") {
        const long long n = as_int();
        if (n < 1) throw core::Error("--set apertium_chunk_lines: must be at least 1");
        c.apertium.chunk_lines = static_cast<size_t>(n);
      }
      else if (key == "apertium_timeout_s") c.apertium.timeout_s = as_double();
      else if (key == "vocab_size") t.subword.vocab_size = static_cast<int>(as_int());
      else if (key == "spm_model_type") t.subword.model_type = v;
      else if (key == "spm_seed") t.subword.seed = static_cast<uint32_t>(as_int());
      else throw core::Error("--set " + key + ": unknown option of the translation corpus (see docs/datasets/translation_mini.md)");
    } catch (const std::invalid_argument&) {
      throw core::Error("--set " + key + ": \"" + v + "\" is not a number");
    } catch (const std::out_of_range&) {
      throw core::Error("--set " + key + ": \"" + v + "\" is out of range");
    }
  }
  if (c.min_words < 1 || c.max_words < c.min_words) throw core::Error("--set min_words/max_words: need 1 <= min_words <= max_words");
  if (c.test_size < 1) throw core::Error("--set test_size: must be at least 1");
  if (c.max_sentences < 0) throw core::Error("--set max_sentences: must be >= 0 (0: all)");
  if (t.subword.vocab_size < 8) throw core::Error("--set vocab_size: must be at least 8");
  if (c.apertium.timeout_s <= 0) throw core::Error("--set apertium_timeout_s: must be > 0");
  return t;
}

int PrepareTranslation(const PrepareOptions& o) {
  if (o.scale == "mini") {
    const std::string dir = o.data_dir.empty() ? core::ExpandDataPath(kTranslationMiniDir) : o.data_dir;
    const text::MiniTranslationOptions t = TranslationOptions(o.set);
    std::printf("translation mini: %s\n", dir.c_str());
    std::fflush(stdout);
    const text::PrepareResult r = text::PrepareMiniTranslation(dir, t, stdout);
    const core::Json& c = r.dataset["counts"];
    std::printf("%s: %s; %lld train and %lld test sentence pairs, %lld subword pieces\n", dir.c_str(),
                r.generated ? "generated" : "matches dataset.json", c.value("train_pairs", 0LL),
                c.value("test_pairs", 0LL), c.value("spm_pieces", 0LL));
    std::printf("translation mini: dataset ready in %s\n", dir.c_str());
    return kExitOk;
  }
  if (o.scale == "full") {
    const std::string dir = o.data_dir.empty() ? std::string(kTranslationFullDir) : o.data_dir;
    text::FullTranslationOptions f;
    f.subword.vocab_size = 32768;
    for (const std::string& kv : o.set) {
      const size_t eq = kv.find('=');
      const std::string key = kv.substr(0, eq), value = eq == std::string::npos ? "" : kv.substr(eq + 1);
      long long v = 0;
      try {
        size_t used = 0;
        v = std::stoll(value, &used);
        if (used != value.size()) throw std::invalid_argument(value);
      } catch (const std::exception&) {
        throw core::Error("--set " + kv + ": expected an integer");
      }
      if (key == "vocab_size" && v >= 8) f.subword.vocab_size = static_cast<int>(v);
      else if (key == "spm_max_sentences" && v >= 2) f.spm_max_sentences = v;
      else throw core::Error("--set " + kv + ": the full scale takes vocab_size (>= 8) and spm_max_sentences (>= 2)");
    }
    const text::PrepareResult r = text::PrepareFullTranslation(dir, f, stdout);
    std::printf("%s: %s; %lld pieces\n", dir.c_str(), r.generated ? "spm model and ids written" : "matches dataset.json",
                r.dataset["counts"].value("spm_pieces", 0LL));
    std::printf("translation full: dataset ready in %s\n", dir.c_str());
    return kExitOk;
  }
  throw core::Error("prepare translation: unknown scale \"" + o.scale + "\" (mini or full)");
}
#endif

// Default folders of the detection datasets (no benchmark definition names them yet).
constexpr const char* kDetectionMiniDir = "{user_data}/datasets/detection_mini";
constexpr const char* kDetectionFullDir = "/data/coco2017";

// Applies `--set key=value` to the mini detection dataset's options; throws naming the key.
shapes::DetectionMiniOptions DetectionOptions(const std::vector<std::string>& set) {
  shapes::DetectionMiniOptions d;
  shapes::ShapesOptions& s = d.shapes;
  for (const auto& kv : core::ParseOverrides(set)) {
    const std::string& key = kv.first;
    const std::string& v = kv.second;
    try {
      size_t used = 0;
      auto as_int = [&] { long long x = std::stoll(v, &used); if (used != v.size()) throw std::invalid_argument(v); return x; };
      auto as_double = [&] { double x = std::stod(v, &used); if (used != v.size()) throw std::invalid_argument(v); return x; };
      auto as_small = [&] {
        const long long x = as_int();
        if (x < INT32_MIN || x > INT32_MAX) throw std::out_of_range(v);
        return static_cast<int>(x);
      };
      if (key == "seed") d.seed = static_cast<uint64_t>(as_int());
      else if (key == "train_images") d.train_images = as_int();
      else if (key == "val_images") d.val_images = as_int();
      else if (key == "jpeg_quality") d.jpeg_quality = as_small();
      else if (key == "width") s.width = as_small();
      else if (key == "height") s.height = as_small();
      else if (key == "min_objects") s.min_objects = as_small();
      else if (key == "max_objects") s.max_objects = as_small();
      else if (key == "min_size") s.min_size = as_double();
      else if (key == "max_size") s.max_size = as_double();
      else if (key == "max_aspect") s.max_aspect = as_double();
      else if (key == "max_occlusion") s.max_occlusion = as_double();
      else if (key == "min_visible_area") s.min_visible_area = as_small();
      else if (key == "min_contrast") s.min_contrast = as_small();
      else if (key == "noise") s.noise = as_small();
      else if (key == "antialias") {
        if (v == "1" || v == "true") s.antialias = true;
        else if (v == "0" || v == "false") s.antialias = false;
        else throw core::Error("--set antialias: \"" + v + "\" is not 0, 1, true or false");
      }
      else throw core::Error("--set " + key + ": unknown option of the detection dataset (see docs/datasets/detection_mini.md)");
    } catch (const std::invalid_argument&) {
      throw core::Error("--set " + key + ": \"" + v + "\" is not a number");
    } catch (const std::out_of_range&) {
      throw core::Error("--set " + key + ": \"" + v + "\" is out of range");
    }
  }
  shapes::ValidateDetectionMiniOptions(d);
  return d;
}

int PrepareDetection(const PrepareOptions& o) {
  if (o.scale == "mini") {
    const std::string dir = o.data_dir.empty() ? core::ExpandDataPath(kDetectionMiniDir) : o.data_dir;
    const shapes::DetectionMiniOptions d = DetectionOptions(o.set);
    std::printf("detection mini: %s\n", dir.c_str());
    std::fflush(stdout);
    const shapes::DetectionPrepareResult r = shapes::PrepareDetectionMini(dir, d, stdout);
    const core::Json& c = r.dataset["counts"];
    if (r.generated) {
      const double n = static_cast<double>(d.train_images + d.val_images);
      std::printf("%s: %s; %.1f s for %.0f images: %.0f images/s (rendering %.0f images/s, JPEG encoding %.0f images/s, rest: writing)\n",
                  dir.c_str(), r.rebuilt_because.empty() ? "generated" : "rebuilt", r.seconds, n, n / r.seconds,
                  n / r.render_s, n / r.encode_s);
    } else {
      std::printf("%s: matches dataset.json\n", dir.c_str());
    }
    std::printf("%s: %lld train images with %lld objects, %lld val images with %lld objects\n", dir.c_str(),
                c.value("train2017_images", 0LL), c.value("train2017_objects", 0LL), c.value("val2017_images", 0LL),
                c.value("val2017_objects", 0LL));
    std::printf("detection mini: dataset ready in %s\n", dir.c_str());
    return kExitOk;
  }
  if (o.scale == "full") {
    if (!o.set.empty()) throw core::Error("prepare detection --scale full takes no --set (COCO 2017 is as released)");
    const std::string dir = o.data_dir.empty() ? std::string(kDetectionFullDir) : o.data_dir;
    const shapes::CocoFolderCheck c = shapes::CheckCoco2017Folder(dir);
    if (!c.missing.empty()) {
      std::string what;
      for (const std::string& m : c.missing) what += "\n  " + m;
      throw core::Error("prepare detection --scale full: " + dir + " is not a COCO 2017 folder; missing:" + what +
                        "\n(expected annotations/instances_train2017.json, annotations/instances_val2017.json, train2017/*.jpg, "
                        "val2017/*.jpg; point --data at the folder)");
    }
    std::printf("%s: annotations/instances_{train,val}2017.json present, %lld train2017 and %lld val2017 images\n", dir.c_str(),
                c.train_images, c.val_images);
    std::printf("detection full: dataset layout ok in %s\n", dir.c_str());
    return kExitOk;
  }
  throw core::Error("prepare detection: unknown scale \"" + o.scale + "\" (mini or full)");
}

// Default folders of the Go datasets (`prepare go`; the benchmark reinforcement_learning).
constexpr const char* kGoMiniDir = "{user_data}/datasets/go_mini";
constexpr const char* kGoFullDir = "/data/go_expert_9x9";

int PrepareGo(const PrepareOptions& o) {
  if (o.scale == "mini") {
    go::GoMiniOptions g;
    for (const auto& kv : core::ParseOverrides(o.set)) {
      const std::string& key = kv.first;
      const std::string& v = kv.second;
      try {
        size_t used = 0;
        auto as_int = [&] { long long x = std::stoll(v, &used); if (used != v.size()) throw std::invalid_argument(v); return x; };
        auto as_double = [&] { double x = std::stod(v, &used); if (used != v.size()) throw std::invalid_argument(v); return x; };
        if (key == "seed") g.seed = static_cast<uint64_t>(as_int());
        else if (key == "games") g.games = static_cast<int>(as_int());
        else if (key == "level") g.level = static_cast<int>(as_int());
        else if (key == "board_size") g.size = static_cast<int>(as_int());
        else if (key == "komi") g.komi = as_double();
        else if (key == "threads") g.threads = static_cast<int>(as_int());
        else if (key == "gnugo") g.gnugo = v;
        else throw core::Error("--set " + key + ": unknown option of the Go dataset (seed, games, level, board_size, komi, threads, gnugo)");
      } catch (const std::invalid_argument&) {
        throw core::Error("--set " + key + ": \"" + v + "\" is not a number");
      } catch (const std::out_of_range&) {
        throw core::Error("--set " + key + ": \"" + v + "\" is out of range");
      }
    }
    const std::string dir = o.data_dir.empty() ? core::ExpandDataPath(kGoMiniDir) : o.data_dir;
    std::printf("go mini: %s (GNU Go level %d self-play, %dx%d, komi %.1f, %d games)\n", dir.c_str(), g.level, g.size,
                g.size, g.komi, g.games);
    std::fflush(stdout);
    const go::GoDatasetSummary r = go::PrepareGoMini(dir, g, stdout);
    std::printf("%s: %s; %lld games, %lld positions (%.1f s)\n", dir.c_str(),
                r.generated ? "recorded" : "matches dataset.json", static_cast<long long>(r.games),
                static_cast<long long>(r.positions), r.seconds);
    std::printf("go mini: dataset ready in %s\n", dir.c_str());
    return kExitOk;
  }
  if (o.scale == "full") {
    if (!o.set.empty()) throw core::Error("prepare go --scale full takes no --set (the expert collection is the user's)");
    const std::string dir = o.data_dir.empty() ? std::string(kGoFullDir) : o.data_dir;
    const go::GoDatasetSummary r = go::CheckExpertCollection(dir, 9);
    std::printf("%s: %lld 9x9 games, %lld positions, every move legal\n", dir.c_str(), static_cast<long long>(r.games),
                static_cast<long long>(r.positions));
    std::printf("go full: expert collection ok in %s\n", dir.c_str());
    return kExitOk;
  }
  throw core::Error("prepare go: unknown scale \"" + o.scale + "\" (mini or full)");
}

}  // namespace

int RunPrepare(const PrepareOptions& o) {
  if (o.benchmark == "go" || o.benchmark == "reinforcement_learning") return PrepareGo(o);
  if (o.benchmark == "translation") return PrepareTranslation(o);
  if (o.benchmark == "detection") return PrepareDetection(o);
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
  if (def.name == "recommendation") return PrepareRecommendation(o, dir);
  if (!o.set.empty()) throw core::Error("prepare " + def.name + " takes no --set");
  throw core::Error("prepare: no preparation for " + def.name + " at scale " + o.scale + " in this build");
}

}  // namespace trainbench::cli

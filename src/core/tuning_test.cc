#include "core/tuning.h"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "core/benchmark_def.h"
#include "core/error.h"
#include "core/paths.h"

namespace trainbench::core {
namespace {

std::string Write(const std::string& name, const std::string& text) {
  const std::string path = testing::TempDir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

std::string ErrorOf(const std::string& path, const std::string& bench, const std::string& scale) {
  try {
    LoadTuning(path, bench, scale);
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Tuning, ReadsTheSettingsOfOneBenchmarkAndScale) {
  const std::string p =
      Write("t1.yaml",
            "name: fast\n"
            "description: two settings\n"
            "benchmarks:\n"
            "  recommendation:\n"
            "    mini: {blas_threads: 1, eval_fused_gather: true, eval_mlp_dtype: bf16}\n"
            "    full: {blas_threads: 2}\n"
            "  translation:\n"
            "    mini:\n"
            "      batch_tokens: 2048\n");
  const Tuning t = LoadTuning(p, "recommendation", "mini");
  EXPECT_EQ(t.name, "fast");
  EXPECT_EQ(t.path, p);
  EXPECT_EQ(t.description, "two settings");
  EXPECT_EQ(t.overrides,
            (std::map<std::string, std::string>{
                {"blas_threads", "1"}, {"eval_fused_gather", "true"}, {"eval_mlp_dtype", "bf16"}}));
  EXPECT_EQ(LoadTuning(p, "translation", "mini").overrides,
            (std::map<std::string, std::string>{{"batch_tokens", "2048"}}));
}

TEST(Tuning, ReadsTheLaunchLayoutApartFromTheOverrides) {
  const std::string p = Write("t6.yaml",
                              "name: layout\n"
                              "benchmarks:\n"
                              "  instance_segmentation:\n"
                              "    mini:\n"
                              "      precision: bf16\n"
                              "      launch: {nproc: 2, threads: 1}\n"
                              "    full:\n"
                              "      launch:\n"
                              "        nproc: 8\n");
  const Tuning mini = LoadTuning(p, "instance_segmentation", "mini");
  EXPECT_EQ(mini.overrides, (std::map<std::string, std::string>{{"precision", "bf16"}}));
  EXPECT_EQ(mini.nproc, 2);
  EXPECT_EQ(mini.threads, 1);
  const Tuning full = LoadTuning(p, "instance_segmentation", "full");
  EXPECT_TRUE(full.overrides.empty());
  EXPECT_EQ(full.nproc, 8);
  EXPECT_FALSE(full.threads.has_value());
  EXPECT_FALSE(
      LoadTuning(Write("t7.yaml", "name: n\nbenchmarks: {a: {mini: {x: 1}}}\n"), "a", "mini")
          .nproc.has_value());

  const auto bad = [](const std::string& name, const std::string& launch) {
    return ErrorOf(
        Write(name, "name: n\nbenchmarks:\n  a:\n    mini:\n      launch: " + launch + "\n"), "a",
        "mini");
  };
  const std::string dir = testing::TempDir() + "/";
  EXPECT_EQ(bad("t8.yaml", "{nproc: 0}"),
            dir + "t8.yaml:5: benchmarks.a.mini.launch.nproc: expected an integer >= 1");
  EXPECT_EQ(bad("t9.yaml", "{threads: two}"),
            dir + "t9.yaml:5: benchmarks.a.mini.launch.threads: expected an integer >= 1");
  EXPECT_EQ(
      bad("t10.yaml", "{ranks: 2}"),
      dir + "t10.yaml:5: benchmarks.a.mini.launch.ranks: unknown key (expected nproc or threads)");
  EXPECT_EQ(bad("t11.yaml", "2"),
            dir + "t11.yaml:5: benchmarks.a.mini.launch: expected a map (nproc, threads)");
}

TEST(Tuning, ErrorsNameTheFileThePlaceAndWhatIsThere) {
  const std::string p = Write("t2.yaml",
                              "name: fast\n"
                              "benchmarks:\n"
                              "  recommendation:\n"
                              "    mini: {blas_threads: 1}\n");
  EXPECT_EQ(ErrorOf(p, "recommendation", "full"),
            p + ": tuning \"fast\" has no settings for recommendation full (it has: recommendation "
                "mini)");
  EXPECT_EQ(
      ErrorOf(p, "translation", "mini"),
      p + ": tuning \"fast\" has no settings for translation mini (it has: recommendation mini)");
  const std::string nested = Write("t3.yaml",
                                   "name: x\n"
                                   "benchmarks:\n"
                                   "  recommendation:\n"
                                   "    mini:\n"
                                   "      blas_threads: [1, 2]\n");
  EXPECT_EQ(ErrorOf(nested, "recommendation", "mini"),
            nested + ":5: benchmarks.recommendation.mini.blas_threads: expected a single value");
  const std::string broken = Write("t4.yaml", "name: x\nbenchmarks: {a: [\n");
  EXPECT_NE(ErrorOf(broken, "a", "mini").find(broken + ":3:1: invalid YAML"), std::string::npos)
      << ErrorOf(broken, "a", "mini");
  EXPECT_EQ(ErrorOf(testing::TempDir() + "/absent.yaml", "a", "mini"),
            testing::TempDir() + "/absent.yaml: cannot open tuning file");
  EXPECT_NE(ErrorOf("no-such-tuning", "a", "mini").find("no tuning named \"no-such-tuning\""),
            std::string::npos);
  EXPECT_NE(ErrorOf(Write("t5.yaml", "benchmarks: {}\n"), "a", "mini")
                .find("key \"name\": expected a string"),
            std::string::npos);
}

// Hostile tuning files (#41): each is a core::Error naming the path (and line:column), none an
// uncaught library exception.
TEST(Tuning, RefusesWhatIsNotATuningFile) {
  // A directory: yaml-cpp's LoadFile threw std::ios_base::failure (uncaught, an abort).
  const std::string dir = testing::TempDir() + "/tuning_dir/";
  std::filesystem::create_directories(dir);
  EXPECT_EQ(ErrorOf(dir, "a", "mini"), dir + ": is a directory, not a file");
  // An alias of a map as a key: as<std::string>() threw YAML::TypedBadConversion (an abort).
  const std::string key =
      Write("t10.yaml", "name: n\nx: &m {k: v}\nbenchmarks:\n  *m : {mini: {a: 1}}\n");
  EXPECT_EQ(ErrorOf(key, "a", "mini"),
            key + ":4:3: invalid YAML: a map key must be a string, not a map");
  // Aliases are fine within the bound: one block of settings shared by two scales.
  const std::string shared =
      Write("t11.yaml", "name: n\nbenchmarks:\n  a:\n    mini: &s {x: 1}\n    full: *s\n");
  EXPECT_EQ(LoadTuning(shared, "a", "full").overrides,
            (std::map<std::string, std::string>{{"x", "1"}}));
}

TEST(Tuning, PicksTheFirstEntryThisCpuCanRunAndSaysWhy) {
  const std::string p = Write("t12.yaml",
                              "name: aware\n"
                              "benchmarks:\n"
                              "  a:\n"
                              "    mini:\n"
                              "      - requires: [avx512_bf16]\n"
                              "        precision: bf16\n"
                              "        malloc_reuse: true\n"
                              "      - requires: amx_tile\n"
                              "        launch: {nproc: 2}\n"
                              "      - malloc_reuse: true\n"
                              "    full: {x: 1}\n");
  const Tuning bf16 = LoadTuning(p, "a", "mini", {"avx2", "avx512f", "avx512_bf16"});
  EXPECT_EQ(bf16.overrides,
            (std::map<std::string, std::string>{{"malloc_reuse", "true"}, {"precision", "bf16"}}));
  EXPECT_EQ(bf16.entry, 1);
  EXPECT_EQ(bf16.entries, 3);
  EXPECT_EQ(bf16.requires, std::vector<std::string>{"avx512_bf16"});
  EXPECT_EQ(bf16.choice, "entry 1 of 3 (this CPU has avx512_bf16)");
  const Tuning avx2 = LoadTuning(p, "a", "mini", {"avx", "avx2"});
  EXPECT_EQ(avx2.overrides, (std::map<std::string, std::string>{{"malloc_reuse", "true"}}));
  EXPECT_FALSE(avx2.nproc.has_value());
  EXPECT_EQ(avx2.entry, 3);
  EXPECT_EQ(
      avx2.choice,
      "entry 3 of 3; entry 1 needs avx512_bf16, which this CPU lacks; entry 2 needs amx_tile, "
      "which this CPU lacks");
  EXPECT_EQ(LoadTuning(p, "a", "mini", {"amx_tile"}).nproc, 2);
  const Tuning plain = LoadTuning(p, "a", "full", {});
  EXPECT_EQ(plain.choice, "");
  EXPECT_EQ(plain.entries, 1);

  // No entry fits: refused, naming the file, the line and what each needs.
  const std::string none = Write("t13.yaml",
                                 "name: n\nbenchmarks:\n  a:\n    mini:\n"
                                 "      - {requires: [avx512_bf16], precision: bf16}\n");
  EXPECT_EQ(ErrorOf(none, "a", "mini").substr(0, none.size()), none);
  try {
    LoadTuning(none, "a", "mini", {"avx2"});
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              none +
                  ":5: benchmarks.a.mini: no entry this CPU can run (entry 1 needs "
                  "avx512_bf16, which this CPU lacks); end the list with an entry that "
                  "requires nothing");
  }
  // A bad entry is an error whatever the CPU, with its place in the list.
  const std::string bad = Write("t14.yaml",
                                "name: n\nbenchmarks:\n  a:\n    mini:\n"
                                "      - {x: 1}\n      - {requires: {cpu: avx2}}\n");
  EXPECT_NE(ErrorOf(bad, "a", "mini").find("benchmarks.a.mini[2].requires: expected a CPU feature"),
            std::string::npos)
      << ErrorOf(bad, "a", "mini");
}

// Every tuning shipped in configs/tunings names real benchmarks and scales, and each of its
// settings is accepted in the closed division exactly as `trainbench run --tuning` would check it.
TEST(Tuning, TheShippedTuningsAreClosedDivisionLegal) {
  int files = 0, entries = 0;
  for (const auto& f : std::filesystem::directory_iterator(TuningsDir())) {
    if (f.path().extension() != ".yaml") continue;
    ++files;
    const std::string path = f.path().string();
    const YAML::Node root = YAML::LoadFile(path);
    for (const auto& b : root["benchmarks"]) {
      const std::string bench = b.first.as<std::string>();
      for (const auto& s : b.second) {
        const std::string scale = s.first.as<std::string>();
        try {
          const BenchmarkDef def = FindBenchmark(BenchmarksDir(), bench);
          // Each entry, on a CPU with exactly the features it needs (the last one: none).
          const size_t n = s.second.IsSequence() ? s.second.size() : 1;
          for (size_t i = 0; i < n; ++i) {
            std::set<std::string> flags;
            if (s.second.IsSequence() && s.second[i]["requires"]) {
              const YAML::Node r = s.second[i]["requires"];
              if (r.IsScalar()) flags.insert(r.as<std::string>());
              for (size_t k = 0; r.IsSequence() && k < r.size(); ++k) {
                flags.insert(r[k].as<std::string>());
              }
            }
            const Tuning t = LoadTuning(path, bench, scale, flags);
            EXPECT_EQ(t.entry, static_cast<int>(i + 1)) << path << ": " << bench << " " << scale;
            EXPECT_TRUE(!t.overrides.empty() || t.nproc || t.threads)
                << path << ": " << bench << " " << scale;
            const ResolvedConfig c =
                ResolveConfig(def.Scale(scale), t.overrides, Division::kClosed);
            for (const auto& [key, value] : t.overrides) {
              EXPECT_TRUE(c.effective.contains(key))
                  << path << ": " << bench << " " << scale << " " << key;
            }
          }
          // A list ends with an entry any CPU runs.
          EXPECT_TRUE(LoadTuning(path, bench, scale, {}).requires.empty())
              << path << ": " << bench << " " << scale;
        } catch (const std::exception& e) {
          ADD_FAILURE() << path << ": " << bench << " " << scale << ": " << e.what();
        }
        ++entries;
      }
    }
  }
  EXPECT_GE(files, 1) << TuningsDir();
  EXPECT_GE(entries, 5)
      << "the optimized tuning has an entry per tuned benchmark (docs/performance.md)";
}

}  // namespace
}  // namespace trainbench::core

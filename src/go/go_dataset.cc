#include "go/go_dataset.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <filesystem>
#include <thread>

#include "core/atomic_file.h"
#include "core/error.h"
#include "go/expert_games.h"
#include "go/gtp.h"

namespace trainbench::go {

namespace fs = std::filesystem;

namespace {

core::Json DatasetJson(const GoMiniOptions& o, const std::string& version) {
  return core::Json{{"generator", "gnugo self-play (trainbench prepare go)"},
                    {"gnugo_version", version},
                    {"board_size", o.size},
                    {"komi", o.komi},
                    {"level", o.level},
                    {"seed", o.seed},
                    {"games", o.games}};
}

std::string GameFile(const std::string& dir, int k) {
  char name[32];
  std::snprintf(name, sizeof name, "game_%04d.sgf", k);
  return dir + "/test/" + name;
}

}  // namespace

std::string GnuGoVersion(const std::string& binary) {
  GtpClient g({binary, "--mode", "gtp"}, 30);
  return g.Send("version");
}

std::vector<std::string> SgfFilesUnder(const std::string& dir) {
  if (!fs::is_directory(dir)) throw core::FileError(dir, 0, "folder of .sgf games not found");
  std::vector<std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file() && e.path().extension() == ".sgf") files.push_back(e.path().string());
  }
  if (files.empty()) throw core::FileError(dir, 0, "no .sgf files in this folder");
  std::sort(files.begin(), files.end());
  return files;
}

GoDatasetSummary CheckExpertCollection(const std::string& dir, int size) {
  GoDatasetSummary s;
  const std::vector<std::string> files = SgfFilesUnder(dir);
  for (const auto& f : files) {
    for (const auto& rec : ReadSgfFile(f)) {
      if (rec.size != size) {
        throw core::FileError(f, 0,
                              "a " + std::to_string(rec.size) + "x" + std::to_string(rec.size) +
                                  " game; the benchmark plays " + std::to_string(size) + "x" +
                                  std::to_string(size));
      }
      ++s.games;
      Replay(rec, f, [&](const Game&, const SgfMove&) { ++s.positions; });
    }
  }
  return s;
}

GoDatasetSummary PrepareGoMini(const std::string& dir, const GoMiniOptions& o, std::FILE* log) {
  if (o.size < 2 || o.size > kMaxSize)
    throw core::Error("prepare go: board size " + std::to_string(o.size) + " is outside 2.." +
                      std::to_string(kMaxSize));
  if (o.games < 1) throw core::Error("prepare go: games must be at least 1");
  if (o.level < 0 || o.level > 10) throw core::Error("prepare go: GNU Go's level must be 0..10");
  const auto t0 = std::chrono::steady_clock::now();
  const core::Json want = DatasetJson(o, GnuGoVersion(o.gnugo));
  const std::string meta = dir + "/dataset.json";
  GoDatasetSummary s;
  if (fs::exists(meta)) {
    core::Json have;
    try {
      have = core::ParseJson(core::ReadFile(meta));
    } catch (const core::JsonError& e) {
      throw core::FileError(meta, 0, std::string("not valid JSON: ") + e.what());
    }
    const std::string diff = core::JsonFirstDifference(have, want);
    if (!diff.empty()) {
      throw core::FileError(
          meta, 0,
          "describes another dataset (" + diff + ": " + core::JsonValueAt(have, diff) + " here, " +
              core::JsonValueAt(want, diff) +
              " asked); remove the folder to record it again, or pass --data for another folder");
    }
    s = CheckExpertCollection(dir + "/test", o.size);
    if (s.games != o.games) {
      throw core::FileError(dir + "/test", 0,
                            "holds " + std::to_string(s.games) + " games, dataset.json says " +
                                std::to_string(o.games) + "; remove the folder to record it again");
    }
  } else {
    // No dataset.json: nothing complete is here (it is written last); start the games afresh.
    fs::remove_all(dir + "/test");
    core::MakeDirs(dir + "/test");
    GnuGoOptions g;
    g.binary = o.gnugo;
    g.level = o.level;
    g.size = o.size;
    g.komi = o.komi;
    std::atomic<int> next{1};
    const int threads = std::max(1, std::min(o.threads, o.games));
    std::vector<std::exception_ptr> errors(static_cast<size_t>(threads));
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
        try {
          for (int k = next++; k <= o.games; k = next++) {
            const Game game = GnuGoSelfPlay(g, o.seed * 100000 + static_cast<uint64_t>(k));
            core::WriteFileAtomically(GameFile(dir, k), WriteSgf(game, "GNU Go", "GNU Go"));
            if (log != nullptr && k % 25 == 0)
              std::fprintf(log, "  %d of %d games recorded\n", k, o.games);
          }
        } catch (...) {
          errors[static_cast<size_t>(t)] = std::current_exception();
          next = o.games + 1;
        }
      });
    }
    for (auto& th : pool) th.join();
    for (auto& e : errors) {
      if (e) std::rethrow_exception(e);
    }
    s = CheckExpertCollection(dir + "/test", o.size);
    core::WriteFileAtomically(meta, core::PythonJsonDumps(want) + "\n");
    s.generated = true;
  }
  s.dataset = want;
  s.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return s;
}

}  // namespace trainbench::go

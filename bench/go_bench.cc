// Go engine speed: random self-play games on an empty board (uniform over legal moves that do
// not fill the mover's own eyes, until two passes), single-threaded. Prints board updates
// (plays, including legality checks and captures) per second, games per second, and the cost
// of a full legal-move scan.
// Then MCTS speed with a fake network (uniform priors, value 0: the search's own cost): 200
// readouts per search, batches of 8 leaves, from positions of a random game; readouts/s with
// fresh nodes per search (the reference) and with `node_pool`. Then random playouts
// (PlayoutValue) from positions of random games, scanned and `incremental`; playouts/s. Exits 1
// if the two kinds of playouts disagree.
// Usage: go_bench [--size N] [--games G] [--searches S]
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>

#include "go/match.h"
#include "go/mcts.h"
#include "go/rollout.h"

using namespace trainbench::go;

int main(int argc, char** argv) {
  int size = 9, games = 2000, searches = 50;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--size")
      size = std::atoi(argv[i + 1]);
    else if (a == "--games")
      games = std::atoi(argv[i + 1]);
    else if (a == "--searches")
      searches = std::atoi(argv[i + 1]);
    else {
      std::fprintf(stderr, "unknown flag %s\n", a.c_str());
      return 2;
    }
  }
  std::mt19937_64 rng(1);
  long long plays = 0, scans = 0;
  double scan_seconds = 0;
  auto t0 = std::chrono::steady_clock::now();
  std::vector<int> candidates;
  for (int g = 0; g < games; ++g) {
    Board b(size);
    Color c = kBlack;
    int passes = 0, moves = 0;
    while (passes < 2 && moves < 3 * size * size) {
      // Random order over empty points; the first legal non-eye point is played.
      candidates.clear();
      for (int r = 0; r < size; ++r) {
        for (int col = 0; col < size; ++col) {
          int p = Board::Index(r, col);
          if (b.at(p) == kEmpty) candidates.push_back(p);
        }
      }
      int chosen = kPass;
      for (size_t k = candidates.size(); k > 0; --k) {
        size_t j = rng() % k;
        int p = candidates[j];
        candidates[j] = candidates[k - 1];
        if (b.IsLegal(c, p) && !IsOwnEye(b, c, p)) {
          chosen = p;
          break;
        }
      }
      b.Play(c, chosen);
      ++plays;
      ++moves;
      passes = chosen == kPass ? passes + 1 : 0;
      c = Opponent(c);
    }
    if (g % 50 == 0) {
      auto s0 = std::chrono::steady_clock::now();
      volatile size_t n = b.LegalMoves(c).size();
      (void)n;
      scan_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - s0).count();
      ++scans;
    }
  }
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("go_bench %dx%d, %d random games, 1 thread\n", size, size, games);
  std::printf(
      "board_updates_per_s=%.0f  games_per_s=%.1f  moves_per_game=%.1f  legal_scan_us=%.2f\n",
      plays / s, games / s, static_cast<double>(plays) / games,
      1e6 * scan_seconds / std::max<long long>(1, scans));

  class Uniform : public Evaluator {
   public:
    void Evaluate(const std::vector<const Position*>& ps, std::vector<Evaluation>* out) override {
      out->assign(ps.size(), Evaluation{});
      for (size_t k = 0; k < ps.size(); ++k)
        out->at(k).priors.assign(ps[k]->board.size() * ps[k]->board.size() + 1, 1.0f);
    }
  } net;
  // The same searches with fresh nodes (the reference) and with node_pool, alternated in rounds.
  double mcts_seconds[2] = {0, 0};
  long long readouts[2] = {0, 0};
  for (int round = 0; round < 4; ++round) {
    for (int pool = 0; pool < 2; ++pool) {
      MctsOptions mo;
      mo.readouts = 200;
      mo.batch = 8;
      mo.node_pool = pool == 1;
      Mcts mcts(net, mo);
      Game game(size, 7.5);
      RandomPlayer random(7);
      auto m0 = std::chrono::steady_clock::now();
      for (int k = 0; k < searches / 4; ++k) {
        if (game.over() || static_cast<int>(game.moves().size()) > size * size)
          game = Game(size, 7.5);
        SearchResult r = mcts.Search(Position::Of(game));
        readouts[pool] += r.readouts;
        game.Play(random(game, game.to_play()));
      }
      mcts_seconds[pool] +=
          std::chrono::duration<double>(std::chrono::steady_clock::now() - m0).count();
    }
  }
  std::printf(
      "mcts (fake network, 200 readouts/search, batch 8): readouts_per_s=%.0f (fresh nodes)  %.0f "
      "(node_pool)  "
      "ratio=%.2f\n",
      readouts[0] / mcts_seconds[0], readouts[1] / mcts_seconds[1],
      (readouts[1] / mcts_seconds[1]) / (readouts[0] / mcts_seconds[0]));

  // Random playouts (PlayoutValue, at most 2 * N * N moves) from the positions of random games,
  // the board scanned before every move (the reference) against `incremental`, alternated in
  // rounds over the same positions and seeds.
  std::vector<Position> positions;
  {
    Game g(size, 7.5);
    RandomPlayer random(11);
    while (static_cast<int>(positions.size()) < 200) {
      if (g.over() || static_cast<int>(g.moves().size()) > size * size) g = Game(size, 7.5);
      positions.push_back(Position::Of(g));
      g.Play(random(g, g.to_play()));
    }
  }
  double playout_seconds[2] = {0, 0};
  long long playouts = 0;
  float checksum[2] = {0, 0};
  for (int round = 0; round < 4; ++round) {
    for (int incremental = 0; incremental < 2; ++incremental) {
      std::mt19937_64 prng(static_cast<uint64_t>(round));
      auto p0 = std::chrono::steady_clock::now();
      for (int rep = 0; rep < std::max(1, games / 400); ++rep) {
        for (const Position& p : positions)
          checksum[incremental] += PlayoutValue(p, prng, 2 * size * size, incremental == 1);
      }
      playout_seconds[incremental] +=
          std::chrono::duration<double>(std::chrono::steady_clock::now() - p0).count();
      if (incremental == 0)
        playouts += static_cast<long long>(positions.size()) * std::max(1, games / 400);
    }
  }
  std::printf(
      "playouts from %zu positions: playouts_per_s=%.0f (scan)  %.0f (incremental)  ratio=%.2f  "
      "%s\n",
      positions.size(), playouts / playout_seconds[0], playouts / playout_seconds[1],
      playout_seconds[0] / playout_seconds[1],
      checksum[0] == checksum[1] ? "same values" : "VALUES DIFFER");
  return checksum[0] == checksum[1] ? 0 : 1;
}

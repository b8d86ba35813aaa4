#include "go/expert_games.h"

#include "go/gtp.h"
#include "go/match.h"

namespace trainbench::go {

Game GnuGoSelfPlay(const GnuGoOptions& o, uint64_t seed) {
  GtpClient g({o.binary, "--mode", "gtp", "--level", std::to_string(o.level), "--chinese-rules",
               "--seed", std::to_string(seed)},
              o.timeout_s);
  SetUpOpponent(g, o.size, o.komi);
  Game game(o.size, o.komi);
  const int limit = o.max_moves > 0 ? o.max_moves : 3 * o.size * o.size;
  while (!game.over() && static_cast<int>(game.moves().size()) < limit) {
    const Color c = game.to_play();
    const int p = GenMove(g, game, c);
    if (p == kResign) {
      game.Resign(c);
      break;
    }
    game.Play(Move{c, p});
  }
  return game;
}

std::vector<LabelledPosition> PositionsOf(const std::vector<std::string>& files) {
  std::vector<LabelledPosition> out;
  for (const auto& f : files) {
    for (const auto& rec : ReadSgfFile(f)) {
      Replay(rec, f, [&](const Game& g, const SgfMove& m) {
        out.push_back({g, m.move, f + ":" + std::to_string(m.line)});
      });
    }
  }
  return out;
}

}  // namespace trainbench::go

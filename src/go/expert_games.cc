#include "go/expert_games.h"

#include <cctype>
#include <cstdio>

#include "core/error.h"

#include "go/gtp.h"

namespace trainbench::go {

Game GnuGoSelfPlay(const GnuGoOptions& o, uint64_t seed) {
  GtpClient g({o.binary, "--mode", "gtp", "--level", std::to_string(o.level), "--chinese-rules", "--seed",
               std::to_string(seed)},
              o.timeout_s);
  g.Send("boardsize " + std::to_string(o.size));
  g.Send("clear_board");
  char komi[32];
  std::snprintf(komi, sizeof(komi), "komi %g", o.komi);
  g.Send(komi);
  Game game(o.size, o.komi);
  const int limit = o.max_moves > 0 ? o.max_moves : 3 * o.size * o.size;
  while (!game.over() && static_cast<int>(game.moves().size()) < limit) {
    const Color c = game.to_play();
    const std::string cmd = std::string("genmove ") + (c == kBlack ? "b" : "w");
    std::string answer = g.Send(cmd);
    for (auto& ch : answer) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (answer == "resign") {
      game.Resign(c);
      break;
    }
    auto p = ParseGtpVertex(answer, o.size);
    std::string why = p ? IllegalReason(game.board(), c, *p) : "malformed";
    if (!p || !why.empty() || !game.Play(Move{c, *p})) {
      throw core::Error("GTP engine \"" + g.name() + "\": command \"" + cmd + "\": answered \"" + answer + "\" (" +
                        (why.empty() ? "game over" : why) + ")");
    }
  }
  return game;
}

std::vector<LabelledPosition> PositionsOf(const std::vector<std::string>& files) {
  std::vector<LabelledPosition> out;
  for (const auto& f : files) {
    for (const auto& rec : ReadSgfFile(f)) {
      Game full = Replay(rec, f);  // validates every move first
      Board setup(rec.size);
      for (auto [c, p] : rec.setup) setup.Setup(c, p);
      Game g(setup, rec.first, rec.komi);
      for (const auto& m : rec.moves) {
        out.push_back({g, m.move, f + ":" + std::to_string(m.line)});
        g.Play(m.move);
      }
      (void)full;
    }
  }
  return out;
}

}  // namespace trainbench::go

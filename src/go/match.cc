#include "go/match.h"

#include "core/error.h"
#include "go/sgf.h"

namespace trainbench::go {

bool IsOwnEye(const Board& b, Color c, int p) {
  if (b.at(p) != kEmpty) return false;
  for (int d : {-kStride, kStride, -1, 1}) {
    Color n = b.at(p + d);
    if (n != c && n != kBorder) return false;
  }
  int bad = 0, edge = 0;
  for (int d : {-kStride - 1, -kStride + 1, kStride - 1, kStride + 1}) {
    Color n = b.at(p + d);
    if (n == kBorder) edge = 1;
    if (n == Opponent(c)) ++bad;
  }
  return bad + edge < 2;
}

int RandomPlayer::operator()(const Game& g, Color c) {
  std::vector<int> moves;
  for (int p : g.board().LegalMoves(c)) {
    if (!IsOwnEye(g.board(), c, p)) moves.push_back(p);
  }
  if (moves.empty()) return kPass;
  return moves[std::uniform_int_distribution<size_t>(0, moves.size() - 1)(rng_)];
}

Game PlayMatch(GtpClient& opponent, const MoveGenerator& ours, Color our_color, const MatchOptions& o) {
  opponent.Send("boardsize " + std::to_string(o.size));
  opponent.Send("clear_board");
  char komi[32];
  std::snprintf(komi, sizeof(komi), "komi %g", o.komi);
  opponent.Send(komi);
  Game g(o.size, o.komi);
  const int limit = o.max_moves > 0 ? o.max_moves : 3 * o.size * o.size;
  const char* their = our_color == kBlack ? "w" : "b";
  while (!g.over() && static_cast<int>(g.moves().size()) < limit) {
    const Color c = g.to_play();
    if (c == our_color) {
      int p = ours(g, c);
      if (p == kResign) {
        g.Resign(c);
        break;
      }
      if (!g.Play(Move{c, p})) throw core::Error("our player chose an illegal move " + GtpVertex(p, o.size));
      opponent.Send(std::string("play ") + (c == kBlack ? "b " : "w ") + GtpVertex(p, o.size));
    } else {
      const std::string cmd = std::string("genmove ") + their;
      std::string answer = opponent.Send(cmd);
      for (auto& ch : answer) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      if (answer == "resign") {
        g.Resign(c);
        break;
      }
      auto p = ParseGtpVertex(answer, o.size);
      if (!p) throw core::Error("GTP engine \"" + opponent.name() + "\": command \"" + cmd + "\": malformed move \"" + answer + "\"");
      std::string why = IllegalReason(g.board(), c, *p);
      if (!why.empty() || !g.Play(Move{c, *p})) {
        throw core::Error("GTP engine \"" + opponent.name() + "\": command \"" + cmd + "\": answered an illegal move \"" +
                          answer + "\" (" + (why.empty() ? "game over" : why) + ")");
      }
    }
  }
  return g;
}

}  // namespace trainbench::go

#include "go/match.h"

#include <cctype>
#include <cstdio>

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

void SetUpOpponent(GtpClient& engine, int size, double komi) {
  engine.Send("boardsize " + std::to_string(size));
  engine.Send("clear_board");
  char k[32];
  std::snprintf(k, sizeof(k), "komi %g", komi);
  engine.Send(k);
}

int GenMove(GtpClient& engine, const Game& g, Color c) {
  const std::string cmd = std::string("genmove ") + (c == kBlack ? "b" : "w");
  std::string answer = engine.Send(cmd);
  for (auto& ch : answer) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (answer == "resign") return kResign;
  auto p = ParseGtpVertex(answer, g.board().size());
  if (!p)
    throw core::Error("GTP engine \"" + engine.name() + "\": command \"" + cmd +
                      "\": malformed move \"" + answer + "\"");
  std::string why = g.over() ? "game over" : IllegalReason(g.board(), c, *p);
  if (!why.empty()) {
    throw core::Error("GTP engine \"" + engine.name() + "\": command \"" + cmd +
                      "\": answered an illegal move \"" + answer + "\" (" + why + ")");
  }
  return *p;
}

Game PlayMatch(GtpClient& opponent, const MoveGenerator& ours, Color our_color,
               const MatchOptions& o) {
  SetUpOpponent(opponent, o.size, o.komi);
  Game g(o.size, o.komi);
  const int limit = o.max_moves > 0 ? o.max_moves : 3 * o.size * o.size;
  while (!g.over() && static_cast<int>(g.moves().size()) < limit) {
    const Color c = g.to_play();
    const bool mine = c == our_color;
    const int p = mine ? ours(g, c) : GenMove(opponent, g, c);
    if (p == kResign) {
      g.Resign(c);
      break;
    }
    if (!g.Play(Move{c, p}))
      throw core::Error("our player chose an illegal move " + GtpVertex(p, o.size));
    if (mine)
      opponent.Send(std::string("play ") + (c == kBlack ? "b " : "w ") + GtpVertex(p, o.size));
  }
  return g;
}

}  // namespace trainbench::go

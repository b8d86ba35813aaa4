#include "go/rollout.h"

#include "go/match.h"

namespace trainbench::go {

float PlayoutValue(const Position& p, std::mt19937_64& rng, int max_moves) {
  Board b = p.board;
  const int n = b.size();
  Color c = p.to_play;
  int passes = p.passes;
  std::vector<int> empty;
  empty.reserve(static_cast<size_t>(n) * n);
  for (int moves = 0; passes < 2 && moves < max_moves; ++moves) {
    empty.clear();
    for (int r = 0; r < n; ++r) {
      for (int col = 0; col < n; ++col) {
        const int q = Board::Index(r, col);
        if (b.at(q) == kEmpty) empty.push_back(q);
      }
    }
    // Random order over the empty points: the first legal one that is not an own eye.
    int chosen = kPass;
    for (size_t k = empty.size(); k > 0; --k) {
      const size_t j = static_cast<size_t>(rng() % k);
      const int q = empty[j];
      empty[j] = empty[k - 1];
      if (b.IsLegal(c, q) && !IsOwnEye(b, c, q)) {
        chosen = q;
        break;
      }
    }
    b.Play(c, chosen);
    passes = chosen == kPass ? passes + 1 : 0;
    c = Opponent(c);
  }
  const double s = b.Score(p.komi);
  const float black = s > 0 ? 1.0f : s < 0 ? -1.0f : 0.0f;
  return p.to_play == kBlack ? black : -black;
}

void PlayoutMixEvaluator::Evaluate(const std::vector<const Position*>& positions, std::vector<Evaluation>* out) {
  inner_.Evaluate(positions, out);
  if (weight_ <= 0) return;
  for (size_t k = 0; k < positions.size(); ++k) {
    const float z = PlayoutValue(*positions[k], rng_, max_moves_);
    (*out)[k].value = (1 - weight_) * (*out)[k].value + weight_ * z;
  }
}

}  // namespace trainbench::go

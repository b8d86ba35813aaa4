#include "go/rollout.h"

#include <algorithm>
#include <array>

#include "go/match.h"

namespace trainbench::go {

namespace {

// The empty points of `b`, row by row, into `out`; returns their number.
int EmptyPoints(const Board& b, int16_t* out) {
  const int n = b.size();
  int count = 0;
  for (int r = 0; r < n; ++r) {
    for (int col = 0; col < n; ++col) {
      const int q = Board::Index(r, col);
      if (b.at(q) == kEmpty) out[count++] = static_cast<int16_t>(q);
    }
  }
  return count;
}

// EmptyPoints without a branch per point (the incremental playouts' rescan after a capture).
int EmptyPointsBranchless(const Board& b, int16_t* out) {
  const int n = b.size();
  int count = 0;
  for (int r = 0; r < n; ++r) {
    for (int col = 0; col < n; ++col) {
      const int q = Board::Index(r, col);
      out[count] = static_cast<int16_t>(q);
      count += b.at(q) == kEmpty;
    }
  }
  return count;
}

// Plays the playout of PlayoutBoard(p, ...) on `b`, which holds p.board, scanning the board for
// its empty points before every move (the reference's playouts).
void PlayOutScanning(const Position& p, std::mt19937_64& rng, int max_moves, Board& b) {
  Color c = p.to_play;
  int passes = p.passes;
  std::array<int16_t, kMaxSize * kMaxSize> trial;
  for (int moves = 0; passes < 2 && moves < max_moves; ++moves) {
    const int count = EmptyPoints(b, trial.data());
    // Random order over the empty points: the first legal one that is not an own eye.
    int chosen = kPass;
    for (size_t k = static_cast<size_t>(count); k > 0; --k) {
      const size_t j = static_cast<size_t>(rng() % k);
      const int q = trial[j];
      trial[j] = trial[k - 1];
      if (b.IsLegal(c, q) && !IsOwnEye(b, c, q)) {
        chosen = q;
        break;
      }
    }
    b.Play(c, chosen);
    passes = chosen == kPass ? passes + 1 : 0;
    c = Opponent(c);
  }
}

// The same playout with the list of empty points kept up to date: `empty` lists them in
// row-major order, which is increasing point order, as the scan does. A move draws from it in
// the scan's order; the copy that the later draws scramble (`trial`) is made only when the first
// point drawn does not qualify, and the point chosen is played without a second legality check.
void PlayOutIncremental(const Position& p, std::mt19937_64& rng, int max_moves, Board& b) {
  Color c = p.to_play;
  int passes = p.passes;
  std::array<int16_t, kMaxSize * kMaxSize> empty, trial;
  int count = EmptyPointsBranchless(b, empty.data());
  for (int moves = 0; passes < 2 && moves < max_moves; ++moves) {
    int chosen = kPass;
    const int16_t* from = empty.data();
    for (size_t k = static_cast<size_t>(count); k > 0; --k) {
      const size_t j = static_cast<size_t>(rng() % k);
      const int q = from[j];
      if (!IsOwnEye(b, c, q) && b.IsLegal(c, q)) {
        chosen = q;
        break;
      }
      if (from == empty.data()) {
        std::copy_n(empty.data(), count, trial.data());
        from = trial.data();
      }
      trial[j] = trial[k - 1];
    }
    if (chosen == kPass) {
      b.Play(c, kPass);
    } else {
      const int captured = b.captured_by(c);
      b.PlayLegal(c, chosen);
      if (b.captured_by(c) != captured) {
        count = EmptyPointsBranchless(b, empty.data());
      } else {
        int16_t* at =
            std::lower_bound(empty.data(), empty.data() + count, static_cast<int16_t>(chosen));
        std::copy(at + 1, empty.data() + count, at);
        --count;
      }
    }
    passes = chosen == kPass ? passes + 1 : 0;
    c = Opponent(c);
  }
}

void PlayOut(const Position& p, std::mt19937_64& rng, int max_moves, bool incremental, Board& b) {
  if (incremental) {
    PlayOutIncremental(p, rng, max_moves, b);
  } else {
    PlayOutScanning(p, rng, max_moves, b);
  }
}

}  // namespace

Board PlayoutBoard(const Position& p, std::mt19937_64& rng, int max_moves, bool incremental) {
  Board b = p.board;
  PlayOut(p, rng, max_moves, incremental, b);
  return b;
}

float PlayoutValue(const Position& p, std::mt19937_64& rng, int max_moves, bool incremental) {
  double s;
  if (incremental) {  // on this thread's board of an earlier playout: only the used area is copied
    thread_local Board b;
    b.AssignUsed(p.board);
    PlayOut(p, rng, max_moves, incremental, b);
    s = b.Score(p.komi);
  } else {
    s = PlayoutBoard(p, rng, max_moves, incremental).Score(p.komi);
  }
  const float black = s > 0 ? 1.0f : s < 0 ? -1.0f : 0.0f;
  return p.to_play == kBlack ? black : -black;
}

void MixPlayout(const Position& p, float weight, std::mt19937_64& rng, int max_moves,
                bool incremental, Evaluation* e) {
  const float z = PlayoutValue(p, rng, max_moves, incremental);
  e->value = (1 - weight) * e->value + weight * z;
}

void PlayoutMixEvaluator::Evaluate(const std::vector<const Position*>& positions,
                                   std::vector<Evaluation>* out) {
  inner_.Evaluate(positions, out);
  if (weight_ <= 0) return;
  for (size_t k = 0; k < positions.size(); ++k)
    MixPlayout(*positions[k], weight_, rng_, max_moves_, incremental_, &(*out)[k]);
}

}  // namespace trainbench::go

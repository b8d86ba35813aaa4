#include "go/features.h"

#include <algorithm>

#include "core/error.h"

namespace trainbench::go {

void WriteFeatures(const Position& p, int history, float* out) {
  TB_CHECK(history >= 1 && history <= Position::kHistory, "feature history outside 1..8");
  const int n = p.board.size();
  const int plane = n * n;
  std::fill(out, out + FeaturePlanes(history) * plane, 0.0f);
  const Color me = p.to_play, them = Opponent(p.to_play);
  for (int t = 0; t < history; ++t) {
    const std::array<Color, kPoints>* colors = nullptr;
    if (t == 0) {
      colors = &p.board.colors();
    } else if (t <= p.past_count) {
      colors = &p.past[t - 1];
    } else {
      break;
    }
    float* mine = out + (2 * t) * plane;
    float* theirs = out + (2 * t + 1) * plane;
    for (int r = 0; r < n; ++r) {
      for (int c = 0; c < n; ++c) {
        Color x = (*colors)[Board::Index(r, c)];
        mine[r * n + c] = x == me ? 1.0f : 0.0f;
        theirs[r * n + c] = x == them ? 1.0f : 0.0f;
      }
    }
  }
  if (me == kBlack) std::fill(out + 2 * history * plane, out + (2 * history + 1) * plane, 1.0f);
}

namespace {
// (r, c) -> symmetric (r, c) on an n x n board.
void Map(int r, int c, int n, int sym, int* rr, int* cc) {
  if (sym & 4) std::swap(r, c);  // transpose
  if (sym & 1) r = n - 1 - r;    // flip rows
  if (sym & 2) c = n - 1 - c;    // flip columns
  *rr = r;
  *cc = c;
}
}  // namespace

int SymmetricMoveIndex(int index, int size, int sym) {
  if (index == size * size) return index;
  int r, c;
  Map(index / size, index % size, size, sym, &r, &c);
  return r * size + c;
}

void ApplySymmetry(const float* in, int planes, int size, int sym, float* out) {
  for (int k = 0; k < planes; ++k) {
    for (int r = 0; r < size; ++r) {
      for (int c = 0; c < size; ++c) {
        int rr, cc;
        Map(r, c, size, sym, &rr, &cc);
        out[k * size * size + rr * size + cc] = in[k * size * size + r * size + c];
      }
    }
  }
}

}  // namespace trainbench::go

// The network's input planes for a position, as MiniGo (and AlphaGo Zero) define them:
// for t = 0 .. history-1 (t = 0 the current position), plane 2t holds the stones of the player
// to move and plane 2t+1 the opponent's stones, t moves ago (all zero before the game's
// start); the last plane is 1 everywhere when black is to move. history 8 gives the 17 planes
// of the MLPerf v0.5 reference.
#pragma once

#include <vector>

#include "go/mcts.h"

namespace trainbench::go {

inline int FeaturePlanes(int history) { return 2 * history + 1; }

// Writes FeaturePlanes(history) * size * size floats (plane-major, row-major) to `out`.
void WriteFeatures(const Position& p, int history, float* out);

// The index of the 8 symmetries of the square applied to a move index (rotation/reflection
// `sym` in 0..7; pass is fixed), and to a whole plane set: for data augmentation.
int SymmetricMoveIndex(int index, int size, int sym);
void ApplySymmetry(const float* in, int planes, int size, int sym, float* out);

}  // namespace trainbench::go

// Training examples of one NCF epoch, as the reference makes them: every training positive of
// every user once (label 1), and for each positive `num_negatives` negatives (label 0), each an
// item drawn uniformly from the items the user never rated (independent draws, so the same
// negative may repeat: sampling with replacement, MLPerf's input_hp_sample_train_replacement).
// The examples are then shuffled. Negatives are re-drawn every epoch.
//
// Determinism: the negatives of user u in epoch e come from the stream (seed, e, u) and the
// shuffle from (seed, e), so the epoch's examples do not depend on the number of threads.
#pragma once

#include <cstdint>
#include <vector>

#include "data/leave_one_out.h"

namespace trainbench::data {

struct TrainExamples {
  std::vector<int32_t> users;
  std::vector<int32_t> items;
  std::vector<float> labels;  // 1 positive, 0 negative
  int64_t size() const { return static_cast<int64_t>(users.size()); }
};

struct NegativeSamplerOptions {
  int num_negatives = 4;
  uint64_t seed = 0;  // the run's data seed
  int threads = 1;
};

// Fills *out (reusing its storage) with the examples of `epoch`:
// num_train() * (1 + num_negatives) of them.
void SampleTrainEpoch(const LeaveOneOutDataset& d, const NegativeSamplerOptions& o, int64_t epoch,
                      TrainExamples* out);

}  // namespace trainbench::data

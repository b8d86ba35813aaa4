// Recommendation (MLPerf `ncf`): NeuMF trained on implicit feedback from a MovieLens-format
// ratings file, evaluated by leave-one-out HR@10 (and NDCG@10) over all users, each user's
// held-out latest item ranked among 999 items the user never rated.
// - mini: a ratings.csv that `trainbench prepare recommendation` generates from a latent-factor
//   model (data/synthetic_ratings.h); every user has >= 20 ratings (a user with fewer is an
//   error naming the file and line).
// - full: MovieLens-20M's ratings.csv; users with fewer than 20 ratings are dropped, as the
//   reference does.
// Both: binary cross-entropy on 1 positive + 4 sampled negatives per training positive,
// re-sampled every epoch; Adam or LazyAdam (sparse embedding gradients); the keys the MLPerf `ncf`
// rules name (rules/trainbench-1.0/ closed_ncf.yaml). The model is built in LoadData (timed): its
// table sizes come from the data.
#pragma once

#include <memory>
#include <string>

#include "core/benchmark_def.h"
#include "train/workload.h"

namespace trainbench::workloads {

// scale: the definition's scale (its preset fixes the model and the data files).
std::unique_ptr<train::Workload> MakeRecommendation(const core::ScaleDef& scale);

}  // namespace trainbench::workloads

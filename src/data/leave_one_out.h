// The NCF (MLPerf `ncf`) preprocessing of a ratings table, as the reference does it:
//  1. keep the users with at least `min_ratings` ratings (the reference drops the others;
//     with SparseUserPolicy::kError such a user is an error naming the file and line instead);
//  2. map user and item ids to dense indices 0.. in order of first appearance;
//  3. leave-one-out: each user's latest rating (largest timestamp; ties: the later line) is
//     the test positive, the others are training positives;
//  4. evaluation negatives: for every user, `eval_negatives` distinct items the user never
//     rated (neither in training nor as the test item), drawn uniformly from all items with a
//     seed fixed per dataset, so every run evaluates against the same candidates.
// A user who rated an item twice keeps one interaction (the latest); the count is reported.
// Everything here is deterministic: the same table and options give the same dataset.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "data/ratings_csv.h"

namespace trainbench::data {

enum class SparseUserPolicy {
  kDrop,   // the reference: users with fewer than min_ratings ratings are dropped
  kError,  // such a user is an error (a dataset that promises min_ratings per user)
};

struct LeaveOneOutOptions {
  int min_ratings = 20;
  SparseUserPolicy sparse_users = SparseUserPolicy::kDrop;
  int eval_negatives = 999;
  uint64_t eval_seed = 0;  // seeds the evaluation negatives (fixed per dataset)
  int threads = 1;         // for sampling the evaluation negatives (result does not depend on it)
};

struct LeaveOneOutDataset {
  int64_t num_users = 0;
  int64_t num_items = 0;
  // Training positives, CSR by user: items of user u are train_items[train_offsets[u] ..
  // train_offsets[u+1]), sorted ascending.
  std::vector<int64_t> train_offsets;
  std::vector<int32_t> train_items;
  // Everything user u rated (training positives and the test item), sorted ascending, CSR.
  std::vector<int64_t> rated_offsets;
  std::vector<int32_t> rated_items;
  std::vector<int32_t> test_items;           // per user: the held-out latest item
  int eval_negatives = 0;                    // per user
  std::vector<int32_t> eval_negative_items;  // num_users x eval_negatives, row-major
  // Original ids of the dense indices.
  std::vector<int64_t> user_ids, item_ids;
  // What the preprocessing did.
  int64_t ratings_read = 0;
  int64_t users_dropped = 0;      // fewer than min_ratings
  int64_t ratings_dropped = 0;    // of the dropped users
  int64_t duplicates_merged = 0;  // repeated (user, item) pairs

  int64_t num_train() const { return static_cast<int64_t>(train_items.size()); }
  // True when user u rated item i (training or test). O(log n).
  bool HasRated(int64_t u, int32_t i) const;
  // The evaluation's candidates, num_users x (1 + eval_negatives) row-major: per user the
  // held-out test item (column 0), then its evaluation negatives.
  std::vector<int32_t> EvalCandidates() const;
};

// Throws core::Error naming the file (table.path) and line for a user with too few ratings
// under kError, for a user with fewer than eval_negatives unrated items (the user's last line),
// and for a table left with no user; naming the option for invalid options.
LeaveOneOutDataset BuildLeaveOneOut(const RatingsTable& table, const LeaveOneOutOptions& options);

}  // namespace trainbench::data

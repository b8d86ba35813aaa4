// Token-based batching by length, as the translation references batch (fairseq's
// batch_by_size, t2t's length buckets): sentence pairs are ordered by length, packed greedily
// into batches whose padded size (sentences x longest side, eos included) stays within
// max_tokens, and the batches are shuffled. Each epoch draws its own tie-breaking and batch
// order from (seed, epoch), so every pair is in exactly one batch per epoch. Data-parallel
// ranks take every world_size-th batch of the same order, after the list is cut to a multiple
// of world_size (the cut batches' pairs are skipped in that epoch only, and counted).
// Pure and deterministic; no LibTorch.
#pragma once

#include <cstdint>
#include <vector>

namespace trainbench::text {

struct TokenBatchingOptions {
  int64_t max_tokens = 4096;  // per batch: sentences x max(longest source, longest target)
  int64_t max_sentences = 0;  // per batch; 0: no limit
  bool shuffle = true;        // false: pairs by length, batches in length order (evaluation)
  uint64_t seed = 0;
};

struct LengthPair {
  int32_t source = 0, target = 0;  // tokens, eos included
};

// The batches of one epoch (indices into `lengths`). A pair longer than max_tokens gets a batch
// of its own. Throws core::Error for max_tokens < 1.
std::vector<std::vector<int32_t>> MakeTokenBatches(const std::vector<LengthPair>& lengths,
                                                   const TokenBatchingOptions& options,
                                                   int64_t epoch);

// This rank's share: batches rank, rank + W, ... of the first (size / W) * W batches.
std::vector<std::vector<int32_t>> ShardBatches(const std::vector<std::vector<int32_t>>& batches,
                                               int rank, int world_size);

}  // namespace trainbench::text

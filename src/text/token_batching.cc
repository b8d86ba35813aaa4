#include "text/token_batching.h"

#include <algorithm>
#include <numeric>

#include "core/error.h"
#include "core/random.h"

namespace trainbench::text {

std::vector<std::vector<int32_t>> MakeTokenBatches(const std::vector<LengthPair>& lengths,
                                                   const TokenBatchingOptions& o, int64_t epoch) {
  if (o.max_tokens < 1) throw core::Error("token batching: max_tokens must be >= 1");
  const size_t n = lengths.size();
  std::vector<int32_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  // Random tie-breaking keys, then a stable sort by (source, target) length.
  std::vector<uint64_t> key(n, 0);
  // One counter-based stream per epoch (no standard-library distribution, so the batches are
  // the same everywhere).
  core::CounterRng rng(core::SeedFor(o.seed, "token_batches_" + std::to_string(epoch)));
  if (o.shuffle) {
    for (auto& k : key) k = rng.Next();
  }
  std::sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
    const LengthPair& x = lengths[static_cast<size_t>(a)];
    const LengthPair& y = lengths[static_cast<size_t>(b)];
    if (x.source != y.source) return x.source < y.source;
    if (x.target != y.target) return x.target < y.target;
    if (key[static_cast<size_t>(a)] != key[static_cast<size_t>(b)])
      return key[static_cast<size_t>(a)] < key[static_cast<size_t>(b)];
    return a < b;
  });
  std::vector<std::vector<int32_t>> batches;
  std::vector<int32_t> cur;
  int64_t longest = 0;
  for (int32_t i : order) {
    const LengthPair& l = lengths[static_cast<size_t>(i)];
    const int64_t len = std::max(l.source, l.target);
    const int64_t new_longest = std::max(longest, len);
    const int64_t new_count = static_cast<int64_t>(cur.size()) + 1;
    const bool too_many = o.max_sentences > 0 && new_count > o.max_sentences;
    if (!cur.empty() && (new_count * new_longest > o.max_tokens || too_many)) {
      batches.push_back(std::move(cur));
      cur.clear();
      longest = 0;
    }
    cur.push_back(i);
    longest = std::max(longest, len);
  }
  if (!cur.empty()) batches.push_back(std::move(cur));
  if (o.shuffle) {
    // Fisher-Yates with rejection sampling (the same on every platform).
    for (size_t k = batches.size(); k > 1; --k) {
      std::swap(batches[k - 1], batches[rng.Below(k)]);
    }
  }
  return batches;
}

std::vector<std::vector<int32_t>> ShardBatches(const std::vector<std::vector<int32_t>>& batches,
                                               int rank, int world_size) {
  if (world_size < 1 || rank < 0 || rank >= world_size)
    throw core::Error("ShardBatches: bad rank or world size");
  std::vector<std::vector<int32_t>> out;
  const size_t usable =
      batches.size() / static_cast<size_t>(world_size) * static_cast<size_t>(world_size);
  for (size_t i = static_cast<size_t>(rank); i < usable; i += static_cast<size_t>(world_size))
    out.push_back(batches[i]);
  return out;
}

}  // namespace trainbench::text

#include "models/seq2seq.h"

#include <algorithm>
#include <stdexcept>

namespace trainbench::models {

namespace {

// [B, max(len) + extra] int64 with rows prefix + ids + suffix, padded with 0.
torch::Tensor PackRows(const std::vector<const std::vector<int32_t>*>& rows, int64_t prefix,
                       int64_t suffix) {
  size_t longest = 0;
  for (const auto* r : rows) longest = std::max(longest, r->size());
  const int64_t width = static_cast<int64_t>(longest) + (prefix >= 0) + (suffix >= 0);
  torch::Tensor t = torch::zeros({static_cast<int64_t>(rows.size()), width}, torch::kInt64);
  auto a = t.accessor<int64_t, 2>();
  for (size_t b = 0; b < rows.size(); ++b) {
    int64_t j = 0;
    if (prefix >= 0) a[static_cast<int64_t>(b)][j++] = prefix;
    for (int32_t id : *rows[b]) a[static_cast<int64_t>(b)][j++] = id;
    if (suffix >= 0) a[static_cast<int64_t>(b)][j++] = suffix;
  }
  return t;
}

}  // namespace

torch::Tensor MakeSourceBatch(const std::vector<const std::vector<int32_t>*>& sources) {
  if (sources.empty()) throw std::invalid_argument("MakeSourceBatch: empty batch");
  return PackRows(sources, -1, kEosId);
}

Seq2SeqBatch MakeSeq2SeqBatch(const std::vector<const std::vector<int32_t>*>& sources,
                              const std::vector<const std::vector<int32_t>*>& targets) {
  if (sources.size() != targets.size() || sources.empty()) {
    throw std::invalid_argument(
        "MakeSeq2SeqBatch: sources and targets must be non-empty and of one size");
  }
  Seq2SeqBatch b;
  b.src = PackRows(sources, -1, kEosId);
  b.tgt_in = PackRows(targets, kBosId, -1);
  b.tgt_out = PackRows(targets, -1, kEosId);
  for (const auto* t : targets) b.target_tokens += static_cast<int64_t>(t->size()) + 1;
  return b;
}

}  // namespace trainbench::models

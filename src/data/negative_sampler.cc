#include "data/negative_sampler.h"

#include <algorithm>

#include "core/error.h"
#include "data/parallel.h"
#include "data/random.h"

namespace trainbench::data {

namespace {
inline constexpr uint64_t kTrainNegDomain = 0x5452414e4e4547ULL;  // "TRANNEG"
}  // namespace

void SampleTrainEpoch(const LeaveOneOutDataset& d, const NegativeSamplerOptions& o, int64_t epoch,
                      TrainExamples* out) {
  if (o.num_negatives < 0) throw core::Error("negative sampler: num_negatives must be >= 0");
  const int64_t per = 1 + o.num_negatives;
  const int64_t total = d.num_train() * per;
  out->users.resize(static_cast<size_t>(total));
  out->items.resize(static_cast<size_t>(total));
  out->labels.resize(static_cast<size_t>(total));
  const int threads =
      std::max(1, std::min<int>(o.threads, static_cast<int>(std::max<int64_t>(1, d.num_users))));
  auto work = [&](int t) {
    for (int64_t u = t; u < d.num_users; u += threads) {
      const int64_t rated =
          d.rated_offsets[static_cast<size_t>(u) + 1] - d.rated_offsets[static_cast<size_t>(u)];
      TB_CHECK(rated < d.num_items || o.num_negatives == 0, "user " << u << " rated every item");
      Rng rng(MixSeed(
          {o.seed, kTrainNegDomain, static_cast<uint64_t>(epoch), static_cast<uint64_t>(u)}));
      for (int64_t p = d.train_offsets[static_cast<size_t>(u)];
           p < d.train_offsets[static_cast<size_t>(u) + 1]; ++p) {
        auto at = static_cast<size_t>(p * per);
        out->users[at] = static_cast<int32_t>(u);
        out->items[at] = d.train_items[static_cast<size_t>(p)];
        out->labels[at] = 1.0f;
        for (int k = 1; k <= o.num_negatives; ++k) {
          int32_t i;
          do {
            i = static_cast<int32_t>(rng.UniformInt(0, d.num_items - 1));
          } while (d.HasRated(u, i));
          out->users[at + static_cast<size_t>(k)] = static_cast<int32_t>(u);
          out->items[at + static_cast<size_t>(k)] = i;
          out->labels[at + static_cast<size_t>(k)] = 0.0f;
        }
      }
    }
  };
  RunOnThreads(threads, work);
  // Fisher-Yates over the three arrays together.
  Rng rng(MixSeed({o.seed, kShuffleDomain, static_cast<uint64_t>(epoch)}));
  for (int64_t i = total - 1; i > 0; --i) {
    auto j = static_cast<size_t>(rng.UniformInt(0, i));
    auto k = static_cast<size_t>(i);
    std::swap(out->users[k], out->users[j]);
    std::swap(out->items[k], out->items[j]);
    std::swap(out->labels[k], out->labels[j]);
  }
}

}  // namespace trainbench::data

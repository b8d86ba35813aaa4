#include "data/synthetic_ratings.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/error.h"
#include "data/random.h"

namespace trainbench::data {

namespace {

inline constexpr uint64_t kItemsDomain = 0x4954454d53ULL;  // "ITEMS"
inline constexpr uint64_t kUsersDomain = 0x5553455253ULL;  // "USERS"
inline constexpr int64_t kEpochStart = 1420070400;         // 2015-01-01T00:00:00Z
inline constexpr int64_t kDay = 86400;
inline constexpr int64_t kSpanDays = 3 * 365;  // items are released over 3 years

double Normal(Rng& r) {
  // Box-Muller; 1 - Uniform() is in (0, 1].
  double u1 = 1.0 - r.Uniform(), u2 = r.Uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

double Gumbel(Rng& r) { return -std::log(-std::log(1.0 - r.Uniform() * (1.0 - 1e-12))); }

}  // namespace

core::Json SyntheticRatingsOptionsJson(const SyntheticRatingsOptions& o) {
  return core::Json{{"generator", "trainbench latent-factor ratings v1"},
                    {"seed", o.seed},
                    {"num_users", o.num_users},
                    {"num_items", o.num_items},
                    {"latent_dim", o.latent_dim},
                    {"affinity", o.affinity},
                    {"popularity", o.popularity},
                    {"zipf_exponent", o.zipf_exponent},
                    {"min_ratings_per_user", o.min_ratings_per_user},
                    {"median_extra_ratings", o.median_extra_ratings},
                    {"activity_sigma", o.activity_sigma},
                    {"max_ratings_per_user", o.max_ratings_per_user}};
}

std::vector<Rating> GenerateSyntheticRatings(const SyntheticRatingsOptions& o) {
  if (o.num_users < 1) throw core::Error("synthetic ratings: num_users must be >= 1");
  if (o.latent_dim < 1) throw core::Error("synthetic ratings: latent_dim must be >= 1");
  if (o.min_ratings_per_user < 1)
    throw core::Error("synthetic ratings: min_ratings_per_user must be >= 1");
  if (o.max_ratings_per_user < o.min_ratings_per_user) {
    throw core::Error("synthetic ratings: max_ratings_per_user must be >= min_ratings_per_user");
  }
  if (o.num_items < o.max_ratings_per_user) {
    throw core::Error("synthetic ratings: num_items must be >= max_ratings_per_user");
  }
  const int d = o.latent_dim;
  const auto ni = static_cast<size_t>(o.num_items);
  const double scale = o.affinity / std::sqrt(static_cast<double>(d));

  // Items: latent vectors, popularity (a random permutation of Zipf ranks), release day, and
  // sparse MovieLens-like ids.
  Rng ir(MixSeed({o.seed, kItemsDomain}));
  std::vector<float> q(ni * static_cast<size_t>(d));
  for (float& x : q) x = static_cast<float>(Normal(ir));
  std::vector<int64_t> rank(ni);
  std::iota(rank.begin(), rank.end(), 1);
  for (size_t i = ni - 1; i > 0; --i)
    std::swap(rank[i], rank[static_cast<size_t>(ir.UniformInt(0, static_cast<int64_t>(i)))]);
  std::vector<double> log_pop(ni);
  for (size_t i = 0; i < ni; ++i)
    log_pop[i] = -o.zipf_exponent * std::log(static_cast<double>(rank[i]));
  std::vector<int64_t> release(ni);
  for (auto& t : release)
    t = kEpochStart + ir.UniformInt(0, kSpanDays) * kDay + ir.UniformInt(0, kDay - 1);
  std::vector<int64_t> item_id(ni);
  int64_t next_id = 1;
  for (auto& id : item_id) {
    id = next_id;
    next_id += 1 + (ir.Bernoulli(0.3) ? ir.UniformInt(1, 20) : 0);
  }

  std::vector<Rating> out;
  std::vector<double> key(ni);
  std::vector<size_t> order(ni);
  std::vector<float> p(static_cast<size_t>(d));
  for (int64_t u = 0; u < o.num_users; ++u) {
    Rng ur(MixSeed({o.seed, kUsersDomain, static_cast<uint64_t>(u)}));
    for (float& x : p) x = static_cast<float>(Normal(ur));
    const double extra =
        std::exp(std::log(std::max(1e-9, o.median_extra_ratings)) + o.activity_sigma * Normal(ur));
    const auto n = static_cast<size_t>(
        std::min<double>(o.max_ratings_per_user, o.min_ratings_per_user + std::floor(extra)));
    const int64_t first_active = kEpochStart + ur.UniformInt(0, kSpanDays) * kDay;
    // Gumbel top-n over the logits: n distinct items drawn with probability ~ exp(logit).
    for (size_t i = 0; i < ni; ++i) {
      const float* qi = q.data() + i * static_cast<size_t>(d);
      double dot = 0;
      for (int k = 0; k < d; ++k) dot += static_cast<double>(p[static_cast<size_t>(k)]) * qi[k];
      key[i] = scale * dot + o.popularity * log_pop[i] + Gumbel(ur);
    }
    std::iota(order.begin(), order.end(), size_t{0});
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(n), order.end(),
                      [&](size_t a, size_t b) { return key[a] > key[b]; });
    const size_t first = out.size();
    for (size_t k = 0; k < n; ++k) {
      const size_t i = order[k];
      const float* qi = q.data() + i * static_cast<size_t>(d);
      double dot = 0;
      for (int j = 0; j < d; ++j) dot += static_cast<double>(p[static_cast<size_t>(j)]) * qi[j];
      const double z = dot / std::sqrt(static_cast<double>(d));  // ~ N(0, 1)
      double stars = std::round((3.5 + 0.9 * z + 0.5 * Normal(ur)) * 2.0) / 2.0;
      stars = std::clamp(stars, 0.5, 5.0);
      const int64_t from = std::max(first_active, release[i]);
      // Ratings trail the later of release and first activity by an exponential delay
      // (mean 60 days), so a user's latest ratings lean to recently released items.
      const auto delay = static_cast<int64_t>(-std::log(1.0 - ur.Uniform()) * 60.0 * kDay);
      Rating r;
      r.user = u + 1;
      r.item = item_id[i];
      r.rating = static_cast<float>(stars);
      r.timestamp = from + delay;
      out.push_back(r);
    }
    std::stable_sort(out.begin() + static_cast<std::ptrdiff_t>(first), out.end(),
                     [](const Rating& a, const Rating& b) { return a.timestamp < b.timestamp; });
  }
  return out;
}

}  // namespace trainbench::data

// The mini recommendation dataset: a MovieLens-format ratings table generated deterministically
// from a seed by a latent-factor model, so that predicting a user's next item is a real
// learning problem (docs/datasets/recommendation_mini.md describes the model):
//  - items: a latent vector q_i ~ N(0, I_d), a long-tailed (Zipf) popularity, a release time;
//  - users: a latent vector p_u ~ N(0, I_d), a long-tailed (log-normal) number of ratings
//    (at least min_ratings_per_user), a first-activity time;
//  - user u picks n_u distinct items with probability proportional to
//    exp(affinity * <p_u, q_i> / sqrt(d) + popularity * log w_i) (Gumbel top-k sampling);
//  - each rating is timestamped after both the item's release and the user's first activity,
//    and its value (0.5 .. 5 stars) grows with the affinity.
// The output lists users in id order and each user's ratings in time order, as ML-20M does.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/json.h"
#include "data/ratings_csv.h"

namespace trainbench::data {

struct SyntheticRatingsOptions {
  uint64_t seed = 2018;
  int64_t num_users = 8000;
  int64_t num_items = 3000;
  int latent_dim = 16;
  double affinity = 3.0;       // weight of the user-item latent match
  double popularity = 1.0;     // weight of log item popularity
  double zipf_exponent = 0.8;  // item popularity w_i ~ rank^-exponent
  int min_ratings_per_user = 20;
  double median_extra_ratings = 20;  // user activity: min + lognormal(log(median), sigma)
  double activity_sigma = 1.0;
  int max_ratings_per_user = 1000;
};

// Throws core::Error naming the option when the options are inconsistent (e.g. more ratings
// per user than items).
std::vector<Rating> GenerateSyntheticRatings(const SyntheticRatingsOptions& o);

// The options as JSON (recorded next to the generated file).
core::Json SyntheticRatingsOptionsJson(const SyntheticRatingsOptions& o);

}  // namespace trainbench::data

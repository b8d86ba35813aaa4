#include "data/leave_one_out.h"

#include <algorithm>
#include <numeric>
#include <unordered_map>

#include "core/error.h"
#include "data/parallel.h"
#include "data/random.h"

namespace trainbench::data {

namespace {

inline constexpr uint64_t kEvalNegDomain = 0x4556414c4e4547ULL;  // "EVALNEG"

// Draws `count` distinct items in [0, num_items) that `rated` (sorted) does not hold.
void SampleUnrated(const int32_t* rated, int64_t rated_n, int64_t num_items, int count, Rng& rng,
                   std::vector<uint8_t>& mark, int32_t* out) {
  const int64_t unrated = num_items - rated_n;
  if (unrated < 2 * static_cast<int64_t>(count)) {
    // Dense case: enumerate the unrated items and take a partial Fisher-Yates sample.
    std::vector<int32_t> pool;
    pool.reserve(static_cast<size_t>(unrated));
    int64_t j = 0;
    for (int32_t i = 0; i < num_items; ++i) {
      while (j < rated_n && rated[j] < i) ++j;
      if (j < rated_n && rated[j] == i) continue;
      pool.push_back(i);
    }
    for (int k = 0; k < count; ++k) {
      int64_t pick = rng.UniformInt(k, static_cast<int64_t>(pool.size()) - 1);
      std::swap(pool[static_cast<size_t>(k)], pool[static_cast<size_t>(pick)]);
      out[k] = pool[static_cast<size_t>(k)];
    }
    return;
  }
  for (int64_t k = 0; k < rated_n; ++k) mark[static_cast<size_t>(rated[k])] = 1;
  for (int k = 0; k < count;) {
    auto i = static_cast<int32_t>(rng.UniformInt(0, num_items - 1));
    if (mark[static_cast<size_t>(i)]) continue;
    mark[static_cast<size_t>(i)] = 1;
    out[k++] = i;
  }
  for (int64_t k = 0; k < rated_n; ++k) mark[static_cast<size_t>(rated[k])] = 0;
  for (int k = 0; k < count; ++k) mark[static_cast<size_t>(out[k])] = 0;
}

}  // namespace

bool LeaveOneOutDataset::HasRated(int64_t u, int32_t i) const {
  const int32_t* b = rated_items.data() + rated_offsets[static_cast<size_t>(u)];
  const int32_t* e = rated_items.data() + rated_offsets[static_cast<size_t>(u) + 1];
  return std::binary_search(b, e, i);
}

std::vector<int32_t> LeaveOneOutDataset::EvalCandidates() const {
  const auto c = static_cast<size_t>(1 + eval_negatives);
  const auto n = static_cast<size_t>(eval_negatives);
  std::vector<int32_t> out(static_cast<size_t>(num_users) * c);
  for (size_t u = 0; u < static_cast<size_t>(num_users); ++u) {
    out[u * c] = test_items[u];
    std::copy_n(eval_negative_items.begin() + static_cast<std::ptrdiff_t>(u * n), n,
                out.begin() + static_cast<std::ptrdiff_t>(u * c + 1));
  }
  return out;
}

LeaveOneOutDataset BuildLeaveOneOut(const RatingsTable& table, const LeaveOneOutOptions& o) {
  if (o.min_ratings < 2)
    throw core::Error("leave-one-out: min_ratings must be >= 2 (one test, one training rating)");
  if (o.eval_negatives < 1) throw core::Error("leave-one-out: eval_negatives must be >= 1");
  const std::string& path = table.path.empty() ? std::string("<ratings>") : table.path;
  const auto& rs = table.ratings;
  const size_t n = rs.size();
  auto line_of = [&](size_t r) {
    return r < table.lines.size() ? table.lines[r] : static_cast<int64_t>(r) + 2;
  };

  // Group rating indices by raw user, users in order of first appearance.
  std::unordered_map<int64_t, int32_t> user_index;
  std::vector<int32_t> user_of(n);
  std::vector<int64_t> raw_users;
  for (size_t r = 0; r < n; ++r) {
    auto [it, inserted] = user_index.emplace(rs[r].user, static_cast<int32_t>(raw_users.size()));
    if (inserted) raw_users.push_back(rs[r].user);
    user_of[r] = it->second;
  }
  const size_t nu = raw_users.size();
  std::vector<int64_t> start(nu + 1, 0);
  for (size_t r = 0; r < n; ++r) ++start[static_cast<size_t>(user_of[r]) + 1];
  std::partial_sum(start.begin(), start.end(), start.begin());
  std::vector<int64_t> by_user(n);
  {
    std::vector<int64_t> fill(start.begin(), start.end() - 1);
    for (size_t r = 0; r < n; ++r)
      by_user[static_cast<size_t>(fill[static_cast<size_t>(user_of[r])]++)] =
          static_cast<int64_t>(r);
  }

  LeaveOneOutDataset d;
  d.ratings_read = static_cast<int64_t>(n);
  d.eval_negatives = o.eval_negatives;
  // Per user: its ratings by time (ties: file order), duplicates of an item merged into the
  // latest; then keep or drop.
  std::vector<char> keep(nu, 0);
  std::vector<int64_t> kept_start(nu + 1, 0);  // into `kept` (deduplicated, time-ordered)
  std::vector<int64_t> kept;
  kept.reserve(n);
  std::unordered_map<int64_t, char> seen_items;
  for (size_t u = 0; u < nu; ++u) {
    auto b = by_user.begin() + start[u], e = by_user.begin() + start[u + 1];
    std::stable_sort(b, e, [&](int64_t x, int64_t y) {
      return rs[static_cast<size_t>(x)].timestamp < rs[static_cast<size_t>(y)].timestamp;
    });
    // Walk backwards so the latest rating of a repeated item is the one kept.
    seen_items.clear();
    std::vector<int64_t> mine;
    for (auto it = e; it != b;) {
      --it;
      if (seen_items.emplace(rs[static_cast<size_t>(*it)].item, 1).second) {
        mine.push_back(*it);
      } else {
        ++d.duplicates_merged;
      }
    }
    std::reverse(mine.begin(), mine.end());
    if (static_cast<int64_t>(mine.size()) < o.min_ratings) {
      if (o.sparse_users == SparseUserPolicy::kError) {
        int64_t last_line = 0;
        for (auto it = b; it != e; ++it)
          last_line = std::max(last_line, line_of(static_cast<size_t>(*it)));
        throw core::FileError(path, last_line,
                              "user " + std::to_string(raw_users[u]) + " has " +
                                  std::to_string(mine.size()) +
                                  " distinct rating(s) (its last on this line); the leave-one-out "
                                  "split needs at least " +
                                  std::to_string(o.min_ratings) + " per user (min_ratings)");
      }
      ++d.users_dropped;
      d.ratings_dropped += static_cast<int64_t>(e - b);
    } else {
      keep[u] = 1;
      kept.insert(kept.end(), mine.begin(), mine.end());
    }
    kept_start[u + 1] = static_cast<int64_t>(kept.size());
  }

  // Dense ids: kept users in first-appearance order; items in order of first appearance in the
  // file among the kept users' ratings.
  std::vector<int32_t> dense_user(nu, -1);
  for (size_t u = 0; u < nu; ++u) {
    if (keep[u]) {
      dense_user[u] = static_cast<int32_t>(d.user_ids.size());
      d.user_ids.push_back(raw_users[u]);
    }
  }
  d.num_users = static_cast<int64_t>(d.user_ids.size());
  if (d.num_users == 0) {
    throw core::FileError(path, 0,
                          "no user has at least " + std::to_string(o.min_ratings) +
                              " ratings (min_ratings): nothing to train or evaluate on");
  }
  std::unordered_map<int64_t, int32_t> item_index;
  for (size_t r = 0; r < n; ++r) {
    if (!keep[static_cast<size_t>(user_of[r])]) continue;
    auto [it, inserted] = item_index.emplace(rs[r].item, static_cast<int32_t>(d.item_ids.size()));
    if (inserted) d.item_ids.push_back(rs[r].item);
  }
  d.num_items = static_cast<int64_t>(d.item_ids.size());

  d.train_offsets.assign(static_cast<size_t>(d.num_users) + 1, 0);
  d.rated_offsets.assign(static_cast<size_t>(d.num_users) + 1, 0);
  d.test_items.resize(static_cast<size_t>(d.num_users));
  d.train_items.reserve(kept.size());
  d.rated_items.reserve(kept.size());
  std::vector<int64_t> last_line_of_user(static_cast<size_t>(d.num_users), 0);
  for (size_t u = 0; u < nu; ++u) {
    if (!keep[u]) continue;
    const auto du = static_cast<size_t>(dense_user[u]);
    std::vector<int32_t> items;
    for (int64_t k = kept_start[u]; k < kept_start[u + 1]; ++k) {
      const auto r = static_cast<size_t>(kept[static_cast<size_t>(k)]);
      items.push_back(item_index.at(rs[r].item));
      last_line_of_user[du] = std::max(last_line_of_user[du], line_of(r));
    }
    d.test_items[du] = items.back();
    std::vector<int32_t> rated = items;
    std::sort(rated.begin(), rated.end());
    items.pop_back();
    std::sort(items.begin(), items.end());
    d.train_items.insert(d.train_items.end(), items.begin(), items.end());
    d.rated_items.insert(d.rated_items.end(), rated.begin(), rated.end());
    d.train_offsets[du + 1] = static_cast<int64_t>(d.train_items.size());
    d.rated_offsets[du + 1] = static_cast<int64_t>(d.rated_items.size());
  }

  // Evaluation negatives, per user from its own stream: independent of the thread count.
  for (int64_t u = 0; u < d.num_users; ++u) {
    const int64_t rated_n =
        d.rated_offsets[static_cast<size_t>(u) + 1] - d.rated_offsets[static_cast<size_t>(u)];
    if (d.num_items - rated_n < o.eval_negatives) {
      throw core::FileError(path, last_line_of_user[static_cast<size_t>(u)],
                            "user " + std::to_string(d.user_ids[static_cast<size_t>(u)]) +
                                " rated " + std::to_string(rated_n) + " of the " +
                                std::to_string(d.num_items) + " items: fewer than the " +
                                std::to_string(o.eval_negatives) +
                                " unrated items the evaluation needs (eval_negatives)");
    }
  }
  d.eval_negative_items.resize(static_cast<size_t>(d.num_users) *
                               static_cast<size_t>(o.eval_negatives));
  const int threads = std::max(1, std::min<int>(o.threads, static_cast<int>(d.num_users)));
  auto work = [&](int t) {
    std::vector<uint8_t> mark(static_cast<size_t>(d.num_items), 0);
    for (int64_t u = t; u < d.num_users; u += threads) {
      Rng rng(MixSeed({o.eval_seed, kEvalNegDomain, static_cast<uint64_t>(u)}));
      const int64_t off = d.rated_offsets[static_cast<size_t>(u)];
      SampleUnrated(d.rated_items.data() + off, d.rated_offsets[static_cast<size_t>(u) + 1] - off,
                    d.num_items, o.eval_negatives, rng, mark,
                    d.eval_negative_items.data() +
                        static_cast<size_t>(u) * static_cast<size_t>(o.eval_negatives));
    }
  };
  RunOnThreads(threads, work);
  return d;
}

}  // namespace trainbench::data

#include "data/synthetic_ratings.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "data/test_util.h"

namespace trainbench::data {
namespace {

SyntheticRatingsOptions Small() {
  SyntheticRatingsOptions g;
  g.num_users = 400;
  g.num_items = 1500;
  g.max_ratings_per_user = 300;
  return g;
}

TEST(SyntheticRatingsTest, DeterministicFromTheSeed) {
  const auto a = FormatRatingsCsv(GenerateSyntheticRatings(Small()));
  EXPECT_EQ(a, FormatRatingsCsv(GenerateSyntheticRatings(Small())));
  SyntheticRatingsOptions other = Small();
  other.seed = 1;
  EXPECT_NE(a, FormatRatingsCsv(GenerateSyntheticRatings(other)));
}

TEST(SyntheticRatingsTest, MovieLensShapedTable) {
  const SyntheticRatingsOptions g = Small();
  const std::vector<Rating> rs = GenerateSyntheticRatings(g);
  std::map<int64_t, std::vector<const Rating*>> by_user;
  for (const Rating& r : rs) by_user[r.user].push_back(&r);
  ASSERT_EQ(static_cast<int64_t>(by_user.size()), g.num_users);
  int64_t prev_user = 0;
  for (const Rating& r : rs) {  // users in id order, each user's ratings in time order
    ASSERT_GE(r.user, prev_user);
    prev_user = r.user;
    ASSERT_GE(r.rating, 0.5f);
    ASSERT_LE(r.rating, 5.0f);
    ASSERT_EQ(r.rating * 2, std::round(r.rating * 2));  // half stars
  }
  size_t most = 0;
  for (const auto& [u, list] : by_user) {
    ASSERT_GE(static_cast<int>(list.size()), g.min_ratings_per_user);
    ASSERT_LE(static_cast<int>(list.size()), g.max_ratings_per_user);
    most = std::max(most, list.size());
    std::set<int64_t> items;
    for (size_t k = 0; k < list.size(); ++k) {
      ASSERT_TRUE(items.insert(list[k]->item).second) << "user " << u << " rated an item twice";
      if (k > 0) ASSERT_GE(list[k]->timestamp, list[k - 1]->timestamp);
    }
  }
  EXPECT_GT(most, 3u * static_cast<size_t>(g.min_ratings_per_user));  // long-tailed activity
}

TEST(SyntheticRatingsTest, ItemPopularityIsLongTailed) {
  const std::vector<Rating> rs = GenerateSyntheticRatings(Small());
  std::map<int64_t, int64_t> count;
  for (const Rating& r : rs) ++count[r.item];
  std::vector<int64_t> c;
  for (const auto& [i, n] : count) c.push_back(n);
  std::sort(c.rbegin(), c.rend());
  int64_t total = 0, top = 0;
  for (size_t k = 0; k < c.size(); ++k) {
    total += c[k];
    if (k < c.size() / 10) top += c[k];
  }
  // The most popular 10% of the rated items take well over 10% of the ratings.
  EXPECT_GT(static_cast<double>(top) / static_cast<double>(total), 0.3);
}

TEST(SyntheticRatingsTest, RejectsInconsistentOptions) {
  SyntheticRatingsOptions g = Small();
  g.num_items = 100;  // fewer than max_ratings_per_user
  EXPECT_NE(testing::ErrorOf([&] { GenerateSyntheticRatings(g); }).find("num_items"),
            std::string::npos);
}

}  // namespace
}  // namespace trainbench::data

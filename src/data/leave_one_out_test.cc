#include "data/leave_one_out.h"

#include <gtest/gtest.h>

#include <set>

#include "data/synthetic_ratings.h"
#include "data/test_util.h"

namespace trainbench::data {
namespace {

using testing::ErrorOf;

// A hand-made table with its file line numbers (line 1 is the header).
RatingsTable Table(const std::vector<Rating>& rs) {
  RatingsTable t;
  t.path = "ratings.csv";
  t.ratings = rs;
  for (size_t i = 0; i < rs.size(); ++i) t.lines.push_back(static_cast<int64_t>(i) + 2);
  return t;
}

RatingsTable HandTable() {
  return Table({{10, 100, 5, 50},    // line 2
                {20, 200, 4, 10},    // line 3
                {10, 200, 3, 70},    // line 4: user 10's latest -> its test item
                {30, 300, 3, 5},     // line 5: user 30 has one rating
                {10, 300, 4, 60},    // line 6
                {20, 100, 4, 20},    // line 7: user 20's latest
                {20, 400, 1, 15},    // line 8
                {10, 500, 2, 40}});  // line 9
}

TEST(LeaveOneOutTest, SplitsEachUsersLatestRatingOff) {
  LeaveOneOutOptions o;
  o.min_ratings = 2;
  o.eval_negatives = 1;
  LeaveOneOutDataset d = BuildLeaveOneOut(HandTable(), o);
  // User 30 (one rating) is dropped; users and items are numbered by first appearance among
  // the kept users' ratings: users 10 -> 0, 20 -> 1; items 100, 200, 300, 400, 500 -> 0..4.
  EXPECT_EQ(d.num_users, 2);
  EXPECT_EQ(d.num_items, 5);
  EXPECT_EQ(d.user_ids, (std::vector<int64_t>{10, 20}));
  EXPECT_EQ(d.item_ids, (std::vector<int64_t>{100, 200, 300, 400, 500}));
  EXPECT_EQ(d.users_dropped, 1);
  EXPECT_EQ(d.ratings_dropped, 1);
  EXPECT_EQ(d.test_items, (std::vector<int32_t>{1, 0}));  // 200 for user 10, 100 for user 20
  EXPECT_EQ(d.train_offsets, (std::vector<int64_t>{0, 3, 5}));
  EXPECT_EQ(d.train_items, (std::vector<int32_t>{0, 2, 4, 1, 3}));
  EXPECT_EQ(d.rated_items, (std::vector<int32_t>{0, 1, 2, 4, 0, 1, 3}));
  EXPECT_TRUE(d.HasRated(0, 1));
  EXPECT_FALSE(d.HasRated(0, 3));
  EXPECT_TRUE(d.HasRated(1, 3));
  EXPECT_FALSE(d.HasRated(1, 4));
  // User 10 rated 4 of the 5 items: its one evaluation negative can only be item 400 (3).
  ASSERT_EQ(d.eval_negative_items.size(), 2u);
  EXPECT_EQ(d.eval_negative_items[0], 3);
  EXPECT_FALSE(d.HasRated(1, d.eval_negative_items[1]));
  // Candidates per user: the test item, then the negatives.
  EXPECT_EQ(d.EvalCandidates(), (std::vector<int32_t>{1, 3, 0, d.eval_negative_items[1]}));
}

TEST(LeaveOneOutTest, TiesGoToTheLaterLine) {
  LeaveOneOutOptions o;
  o.min_ratings = 2;
  o.eval_negatives = 1;
  LeaveOneOutDataset d = BuildLeaveOneOut(
      Table({{1, 7, 3, 100}, {1, 8, 3, 100}, {1, 9, 3, 50}, {2, 10, 3, 1}, {2, 11, 3, 2}}), o);
  EXPECT_EQ(d.item_ids[static_cast<size_t>(d.test_items[0])], 8);
}

TEST(LeaveOneOutTest, RepeatedItemKeepsTheLatestRating) {
  LeaveOneOutOptions o;
  o.min_ratings = 2;
  o.eval_negatives = 1;
  // Item 7 rated at t=10 and again at t=300: one interaction, the latest, so it is the test item.
  LeaveOneOutDataset d = BuildLeaveOneOut(Table({{1, 7, 3, 10},
                                                 {1, 8, 3, 100},
                                                 {1, 9, 3, 200},
                                                 {1, 7, 5, 300},
                                                 {2, 5, 1, 1},
                                                 {2, 6, 1, 2}}),
                                          o);
  EXPECT_EQ(d.duplicates_merged, 1);
  EXPECT_EQ(d.item_ids[static_cast<size_t>(d.test_items[0])], 7);
  EXPECT_EQ(d.train_offsets[1], 2);  // items 8 and 9
}

TEST(LeaveOneOutTest, SparseUserIsAnErrorNamingFileAndLineWhenAsked) {
  LeaveOneOutOptions o;
  o.min_ratings = 2;
  o.eval_negatives = 1;
  o.sparse_users = SparseUserPolicy::kError;
  const std::string err = ErrorOf([&] { BuildLeaveOneOut(HandTable(), o); });
  EXPECT_NE(err.find("ratings.csv:5: user 30 has 1 distinct rating(s)"), std::string::npos) << err;
  EXPECT_NE(err.find("at least 2 per user (min_ratings)"), std::string::npos) << err;
}

TEST(LeaveOneOutTest, TooFewUnratedItemsForTheEvaluationIsAnError) {
  LeaveOneOutOptions o;
  o.min_ratings = 2;
  o.eval_negatives = 2;  // user 10 has only one unrated item
  const std::string err = ErrorOf([&] { BuildLeaveOneOut(HandTable(), o); });
  EXPECT_NE(err.find("ratings.csv:9: user 10 rated 4 of the 5 items"), std::string::npos) << err;
}

TEST(LeaveOneOutTest, NoUserLeftIsAnError) {
  LeaveOneOutOptions o;
  o.min_ratings = 20;
  const std::string err = ErrorOf([&] { BuildLeaveOneOut(HandTable(), o); });
  EXPECT_NE(err.find("ratings.csv: no user has at least 20 ratings"), std::string::npos) << err;
}

TEST(LeaveOneOutTest, EvalNegativesAreDistinctUnratedAndFixedPerSeed) {
  const RatingsTable t = testing::SmallRatings(300, 1500, 400);
  LeaveOneOutOptions o;
  o.eval_negatives = 999;
  LeaveOneOutDataset a = BuildLeaveOneOut(t, o);
  ASSERT_EQ(a.num_users, 300);
  ASSERT_EQ(a.eval_negative_items.size(), 300u * 999u);
  for (int64_t u = 0; u < a.num_users; ++u) {
    std::set<int32_t> seen;
    for (int k = 0; k < 999; ++k) {
      const int32_t i = a.eval_negative_items[static_cast<size_t>(u * 999 + k)];
      ASSERT_GE(i, 0);
      ASSERT_LT(i, a.num_items);
      ASSERT_FALSE(a.HasRated(u, i)) << "user " << u << " item " << i;
      ASSERT_TRUE(seen.insert(i).second) << "repeated negative for user " << u;
    }
    ASSERT_NE(a.test_items[static_cast<size_t>(u)], -1);
  }
  o.threads = 3;
  EXPECT_EQ(BuildLeaveOneOut(t, o).eval_negative_items, a.eval_negative_items);  // any thread count
  o.eval_seed = 1;
  EXPECT_NE(BuildLeaveOneOut(t, o).eval_negative_items, a.eval_negative_items);
}

TEST(LeaveOneOutTest, DenseUserGetsAllItsUnratedItems) {
  // 3 items, the user rated 1 (plus a second user): with 2 evaluation negatives the dense path
  // must return exactly the 2 unrated items.
  LeaveOneOutOptions o;
  o.min_ratings = 2;
  o.eval_negatives = 1;
  LeaveOneOutDataset d =
      BuildLeaveOneOut(Table({{1, 1, 3, 1}, {1, 2, 3, 2}, {2, 3, 3, 1}, {2, 4, 3, 2}}), o);
  // 4 items; each user rated 2, so 2 unrated; 1 negative each, unrated.
  EXPECT_FALSE(d.HasRated(0, d.eval_negative_items[0]));
  EXPECT_FALSE(d.HasRated(1, d.eval_negative_items[1]));
}

}  // namespace
}  // namespace trainbench::data

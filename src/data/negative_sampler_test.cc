#include "data/negative_sampler.h"

#include <gtest/gtest.h>

#include <map>

#include "data/test_util.h"

namespace trainbench::data {
namespace {

LeaveOneOutDataset SmallDataset() {
  return BuildLeaveOneOut(testing::SmallRatings(200, 1200, 150), LeaveOneOutOptions());
}

TEST(NegativeSamplerTest, EveryPositiveOnceAndNegativesNeverRated) {
  const LeaveOneOutDataset d = SmallDataset();
  NegativeSamplerOptions o;
  o.num_negatives = 4;
  o.seed = 7;
  TrainExamples ex;
  SampleTrainEpoch(d, o, 1, &ex);
  ASSERT_EQ(ex.size(), d.num_train() * 5);
  std::map<std::pair<int32_t, int32_t>, int> positives;
  int64_t negatives = 0;
  for (int64_t k = 0; k < ex.size(); ++k) {
    const auto i = static_cast<size_t>(k);
    if (ex.labels[i] == 1.0f) {
      ++positives[{ex.users[i], ex.items[i]}];
    } else {
      ASSERT_EQ(ex.labels[i], 0.0f);
      ASSERT_FALSE(d.HasRated(ex.users[i], ex.items[i]))
          << "negative " << ex.items[i] << " rated by user " << ex.users[i];
      // Not the held-out test item either.
      ASSERT_NE(ex.items[i], d.test_items[static_cast<size_t>(ex.users[i])]);
      ++negatives;
    }
  }
  EXPECT_EQ(negatives, d.num_train() * 4);
  ASSERT_EQ(static_cast<int64_t>(positives.size()), d.num_train());
  for (int64_t u = 0; u < d.num_users; ++u) {
    for (int64_t p = d.train_offsets[static_cast<size_t>(u)];
         p < d.train_offsets[static_cast<size_t>(u) + 1]; ++p) {
      ASSERT_EQ((positives[{static_cast<int32_t>(u), d.train_items[static_cast<size_t>(p)]}]), 1);
    }
  }
}

TEST(NegativeSamplerTest, ShuffledDeterministicAndResampledPerEpoch) {
  const LeaveOneOutDataset d = SmallDataset();
  NegativeSamplerOptions o;
  o.seed = 7;
  TrainExamples a, b, c, e2;
  SampleTrainEpoch(d, o, 1, &a);
  o.threads = 2;
  SampleTrainEpoch(d, o, 1, &b);  // thread count does not matter
  EXPECT_EQ(a.users, b.users);
  EXPECT_EQ(a.items, b.items);
  EXPECT_EQ(a.labels, b.labels);
  SampleTrainEpoch(d, o, 2, &e2);  // a new epoch: new negatives and order
  EXPECT_NE(a.items, e2.items);
  o.seed = 8;
  SampleTrainEpoch(d, o, 1, &c);
  EXPECT_NE(a.items, c.items);
  // Shuffled: the first 1000 examples are not grouped by user.
  int changes = 0;
  for (size_t k = 1; k < 1000; ++k) changes += a.users[k] != a.users[k - 1];
  EXPECT_GT(changes, 900);
}

TEST(NegativeSamplerTest, NoNegatives) {
  const LeaveOneOutDataset d = SmallDataset();
  NegativeSamplerOptions o;
  o.num_negatives = 0;
  TrainExamples ex;
  SampleTrainEpoch(d, o, 1, &ex);
  EXPECT_EQ(ex.size(), d.num_train());
  for (float l : ex.labels) ASSERT_EQ(l, 1.0f);
}

}  // namespace
}  // namespace trainbench::data

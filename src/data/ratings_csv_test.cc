#include "data/ratings_csv.h"

#include <gtest/gtest.h>

#include <fstream>

#include "core/atomic_file.h"
#include "data/test_util.h"

namespace trainbench::data {
namespace {

using testing::ErrorOf;
using testing::TempDir;

void Write(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

TEST(RatingsCsvTest, ReadsMovieLensFormat) {
  TempDir dir;
  const std::string p = dir.file("ratings.csv");
  Write(p,
        "userId,movieId,rating,timestamp\n1,2,3.5,1112486027\n1,29,3.5,1112484676\n7,32,4,974\n");
  RatingsTable t = ReadRatingsCsv(p);
  ASSERT_EQ(t.ratings.size(), 3u);
  EXPECT_EQ(t.ratings[0].user, 1);
  EXPECT_EQ(t.ratings[0].item, 2);
  EXPECT_FLOAT_EQ(t.ratings[0].rating, 3.5f);
  EXPECT_EQ(t.ratings[0].timestamp, 1112486027);
  EXPECT_EQ(t.ratings[2].user, 7);
  EXPECT_FLOAT_EQ(t.ratings[2].rating, 4.0f);
  EXPECT_EQ(t.lines, (std::vector<int64_t>{2, 3, 4}));
}

TEST(RatingsCsvTest, AcceptsCrLfAndTrailingBlankLine) {
  TempDir dir;
  const std::string p = dir.file("ratings.csv");
  Write(p, "userId,movieId,rating,timestamp\r\n1,2,3.5,10\r\n\r\n");
  RatingsTable t = ReadRatingsCsv(p);
  ASSERT_EQ(t.ratings.size(), 1u);
  EXPECT_EQ(t.ratings[0].timestamp, 10);
}

TEST(RatingsCsvTest, RoundTripsThroughTheWriter) {
  TempDir dir;
  const std::string p = dir.file("ratings.csv");
  std::vector<Rating> rs = {{1, 10, 4.5f, 100}, {1, 11, 3.0f, 101}, {2, 10, 0.5f, 99}};
  WriteRatingsCsv(p, rs);
  EXPECT_EQ(core::ReadFile(p),
            "userId,movieId,rating,timestamp\n1,10,4.5,100\n1,11,3,101\n2,10,0.5,99\n");
  RatingsTable t = ReadRatingsCsv(p);
  ASSERT_EQ(t.ratings.size(), rs.size());
  for (size_t i = 0; i < rs.size(); ++i) {
    EXPECT_EQ(t.ratings[i].user, rs[i].user);
    EXPECT_EQ(t.ratings[i].item, rs[i].item);
    EXPECT_FLOAT_EQ(t.ratings[i].rating, rs[i].rating);
    EXPECT_EQ(t.ratings[i].timestamp, rs[i].timestamp);
  }
}

TEST(RatingsCsvTest, ContentHashIdentifiesTheBytes) {
  TempDir dir;
  Write(dir.file("a.csv"), "userId,movieId,rating,timestamp\n1,2,3,4\n");
  Write(dir.file("b.csv"), "userId,movieId,rating,timestamp\n1,2,3,4\n");
  Write(dir.file("c.csv"), "userId,movieId,rating,timestamp\n1,2,3,5\n");
  Write(dir.file("d.csv"), "userId,movieId,rating,timestamp\n1,2,3,4");
  const uint64_t a = ReadRatingsCsv(dir.file("a.csv")).content_hash;
  EXPECT_EQ(a, ReadRatingsCsv(dir.file("b.csv")).content_hash);
  EXPECT_NE(a, ReadRatingsCsv(dir.file("c.csv")).content_hash);
  EXPECT_NE(a, ReadRatingsCsv(dir.file("d.csv")).content_hash);  // no final newline
  // FNV-1a 64 of the whole file, as computed over the bytes in one pass.
  uint64_t h = 0xcbf29ce484222325ull;
  for (char c : std::string("userId,movieId,rating,timestamp\n1,2,3,4\n"))
    h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
  EXPECT_EQ(a, h);
}

struct BadCase {
  const char* name;
  const char* text;
  const char* expected;  // substring of the error
};

class RatingsCsvBadInputTest : public ::testing::TestWithParam<BadCase> {};

TEST_P(RatingsCsvBadInputTest, NamesFileAndLine) {
  TempDir dir;
  const std::string p = dir.file("ratings.csv");
  Write(p, GetParam().text);
  const std::string err = ErrorOf([&] { ReadRatingsCsv(p); });
  EXPECT_NE(err.find(p), std::string::npos) << err;
  EXPECT_NE(err.find(GetParam().expected), std::string::npos) << err;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, RatingsCsvBadInputTest,
    ::testing::Values(
        BadCase{"MissingColumn", "userId,movieId,rating,timestamp\n1,2,3,4\n1,2,3\n",
                ":3: expected 4 columns (userId,movieId,rating,timestamp), found 3"},
        BadCase{"ExtraColumn", "userId,movieId,rating,timestamp\n1,2,3,4,5\n",
                ":2: expected 4 columns"},
        BadCase{"NonNumericUser", "userId,movieId,rating,timestamp\n1,2,3,4\nabc,2,3,4\n",
                ":3: column userId: \"abc\" is not an integer"},
        BadCase{"NonNumericRating", "userId,movieId,rating,timestamp\n1,2,four,4\n",
                ":2: column rating: \"four\" is not a number"},
        BadCase{"FractionalTimestamp", "userId,movieId,rating,timestamp\n1,2,3,4.5\n",
                ":2: column timestamp: \"4.5\" is not an integer"},
        BadCase{"EmptyField", "userId,movieId,rating,timestamp\n1,,3,4\n",
                ":2: column movieId is empty"},
        BadCase{"NegativeId", "userId,movieId,rating,timestamp\n-1,2,3,4\n",
                ":2: column userId: -1 is negative"},
        BadCase{"WrongHeader", "user,movie,rating,time\n1,2,3,4\n", ":1: expected the header"},
        BadCase{"HeaderOnly", "userId,movieId,rating,timestamp\n", "holds no rating"},
        BadCase{"Empty", "", "empty file"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(RatingsCsvTest, MissingFileIsAnError) {
  const std::string err = ErrorOf([] { ReadRatingsCsv("/nonexistent/ratings.csv"); });
  EXPECT_NE(err.find("/nonexistent/ratings.csv: cannot open"), std::string::npos) << err;
}

}  // namespace
}  // namespace trainbench::data

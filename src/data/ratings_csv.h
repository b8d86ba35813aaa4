// MovieLens ratings files (`ratings.csv` of MovieLens-20M): a header line
// `userId,movieId,rating,timestamp`, then one rating per line: integer user and movie ids,
// a decimal rating (0.5 .. 5.0 in MovieLens), and an integer Unix timestamp in seconds.
// The reader is strict: a line with a missing or extra column, a field that is not a number,
// or a wrong header is an error naming the file and the line. The writer writes the same
// format atomically (core::WriteFileAtomically), so a reader never sees half a file.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace trainbench::data {

struct Rating {
  int64_t user = 0;       // userId as in the file
  int64_t item = 0;       // movieId as in the file
  float rating = 0;       // the explicit rating; NCF uses every rating as an implicit positive
  int64_t timestamp = 0;  // seconds since the Unix epoch
};

struct RatingsTable {
  std::string path;             // the file it was read from ("" when made in memory)
  std::vector<Rating> ratings;  // in file order
  std::vector<int64_t> lines;   // per rating: its 1-based line number in `path`
  uint64_t content_hash = 0;    // FNV-1a 64 of the file's bytes (identifies the dataset)
};

inline constexpr const char* kRatingsHeader = "userId,movieId,rating,timestamp";

// A recommendation dataset folder holds its ratings as <dir>/ratings.csv (MovieLens layout).
inline std::string RatingsCsvPath(const std::string& dir) { return dir + "/ratings.csv"; }

// Reads a ratings file. Throws core::Error "<path>:<line>: <what>" for a wrong header, a line
// with other than 4 fields, an empty or non-numeric field (naming the column), a negative id
// or timestamp; "<path>: ..." when the file cannot be read or holds no rating.
RatingsTable ReadRatingsCsv(const std::string& path);

// The file's text: header, then one line per rating (rating with up to 3 decimals, trailing
// zeros trimmed: 4, 3.5).
std::string FormatRatingsCsv(const std::vector<Rating>& ratings);

// Writes FormatRatingsCsv(ratings) to `path` atomically. Throws core::Error naming the path.
void WriteRatingsCsv(const std::string& path, const std::vector<Rating>& ratings);

}  // namespace trainbench::data

#include "data/ratings_csv.h"

#include <array>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string_view>

#include "core/atomic_file.h"
#include "core/error.h"

namespace trainbench::data {

namespace {

constexpr std::array<const char*, 4> kColumns = {"userId", "movieId", "rating", "timestamp"};

constexpr uint64_t kFnvOffset = 0xcbf29ce484222325ull;
constexpr uint64_t kFnvPrime = 0x100000001b3ull;

uint64_t Fnv1a(uint64_t h, std::string_view s) {
  for (char c : s) h = (h ^ static_cast<unsigned char>(c)) * kFnvPrime;
  return h;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.back() == '\r' || s.back() == ' ' || s.back() == '\t'))
    s.remove_suffix(1);
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  return s;
}

int64_t ParseInt(std::string_view f, const std::string& path, int64_t line, int col) {
  f = Trim(f);
  if (f.empty())
    throw core::FileError(path, line, std::string("column ") + kColumns[col] + " is empty");
  int64_t v = 0;
  auto [p, ec] = std::from_chars(f.data(), f.data() + f.size(), v);
  if (ec != std::errc() || p != f.data() + f.size()) {
    throw core::FileError(
        path, line,
        std::string("column ") + kColumns[col] + ": \"" + std::string(f) + "\" is not an integer");
  }
  if (v < 0) {
    throw core::FileError(
        path, line,
        std::string("column ") + kColumns[col] + ": " + std::to_string(v) + " is negative");
  }
  return v;
}

float ParseFloat(std::string_view f, const std::string& path, int64_t line, int col) {
  f = Trim(f);
  if (f.empty())
    throw core::FileError(path, line, std::string("column ") + kColumns[col] + " is empty");
  double v = 0;
  auto [p, ec] = std::from_chars(f.data(), f.data() + f.size(), v);
  if (ec != std::errc() || p != f.data() + f.size() || !std::isfinite(v)) {
    throw core::FileError(
        path, line,
        std::string("column ") + kColumns[col] + ": \"" + std::string(f) + "\" is not a number");
  }
  return static_cast<float>(v);
}

}  // namespace

RatingsTable ReadRatingsCsv(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw core::FileError(path, 0, std::string("cannot open: ") + std::strerror(errno));
  RatingsTable t;
  t.path = path;
  std::string line;
  int64_t n = 0;
  if (!std::getline(in, line))
    throw core::FileError(path, 0,
                          "empty file (expected the header " + std::string(kRatingsHeader) + ")");
  n = 1;
  uint64_t hash = kFnvOffset;
  bool ended_with_newline = !in.eof();
  hash = Fnv1a(hash, line);
  if (Trim(line) != kRatingsHeader) {
    throw core::FileError(path, 1,
                          "expected the header \"" + std::string(kRatingsHeader) + "\", found \"" +
                              std::string(Trim(line)) + "\"");
  }
  while (std::getline(in, line)) {
    ++n;
    hash = Fnv1a(hash, "\n");
    hash = Fnv1a(hash, line);
    ended_with_newline = !in.eof();
    std::string_view l = Trim(line);
    if (l.empty()) continue;  // a trailing blank line
    std::array<std::string_view, 4> f;
    size_t count = 0, start = 0;
    for (size_t i = 0; i <= l.size(); ++i) {
      if (i == l.size() || l[i] == ',') {
        if (count < f.size()) f[count] = l.substr(start, i - start);
        ++count;
        start = i + 1;
      }
    }
    if (count != 4) {
      throw core::FileError(path, n,
                            "expected 4 columns (" + std::string(kRatingsHeader) + "), found " +
                                std::to_string(count));
    }
    Rating r;
    r.user = ParseInt(f[0], path, n, 0);
    r.item = ParseInt(f[1], path, n, 1);
    r.rating = ParseFloat(f[2], path, n, 2);
    r.timestamp = ParseInt(f[3], path, n, 3);
    t.ratings.push_back(r);
    t.lines.push_back(n);
  }
  if (in.bad()) throw core::FileError(path, n, "read error");
  if (ended_with_newline) hash = Fnv1a(hash, "\n");
  t.content_hash = hash;
  if (t.ratings.empty()) throw core::FileError(path, 0, "holds no rating");
  return t;
}

std::string FormatRatingsCsv(const std::vector<Rating>& ratings) {
  std::string out = std::string(kRatingsHeader) + "\n";
  out.reserve(out.size() + ratings.size() * 28);
  char buf[96];
  for (const Rating& r : ratings) {
    char rb[32];
    std::snprintf(rb, sizeof(rb), "%.3f", static_cast<double>(r.rating));
    size_t len = std::strlen(rb);
    while (len > 0 && rb[len - 1] == '0') --len;
    if (len > 0 && rb[len - 1] == '.') --len;
    rb[len] = '\0';
    int k = std::snprintf(buf, sizeof(buf), "%lld,%lld,%s,%lld\n", static_cast<long long>(r.user),
                          static_cast<long long>(r.item), rb, static_cast<long long>(r.timestamp));
    out.append(buf, static_cast<size_t>(k));
  }
  return out;
}

void WriteRatingsCsv(const std::string& path, const std::vector<Rating>& ratings) {
  core::WriteFileAtomically(path, FormatRatingsCsv(ratings));
}

}  // namespace trainbench::data

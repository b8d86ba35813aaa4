// Test helpers for the data layer (tests only): a self-deleting temporary directory and
// synthetic images/datasets.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <string>

#include "core/error.h"
#include "data/image.h"
#include "data/leave_one_out.h"
#include "data/random.h"
#include "data/synthetic_ratings.h"

namespace trainbench::data::testing {

// A fresh directory under the system temp dir, removed (recursively) on destruction.
class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    path_ = std::filesystem::temp_directory_path() /
            ("trainbench_data_test_" + std::to_string(::getpid()) + "_" +
             std::to_string(counter.fetch_add(1)));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  std::string path() const { return path_.string(); }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

// A JPEG-friendly RGB (or gray) test image: smooth per-channel gradients plus a checkerboard
// of 32-pixel blocks (brightness edges in all channels alike, so chroma stays smooth).
inline Image SyntheticImage(int height, int width, int channels, uint64_t seed) {
  Image img(height, width, channels);
  Rng rng(seed);
  const int cx = static_cast<int>(rng.UniformInt(0, width - 1));
  const int cy = static_cast<int>(rng.UniformInt(0, height - 1));
  const double fx_max = std::max(1, width - 1);
  const double fy_max = std::max(1, height - 1);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      const bool block = ((x + 1024 - cx) / 32 + (y + 1024 - cy) / 32) % 2 == 0;
      const double fx = x / fx_max;
      const double fy = y / fy_max;
      const double base[3] = {150 * fx, 150 * fy, 75 * (fx + fy)};
      for (int c = 0; c < channels; ++c) {
        img.at(y, x, c) = static_cast<uint8_t>(40 + base[c] + (block ? 40 : 0));
      }
    }
  }
  return img;
}

// An image whose every byte is distinct-ish and position-coded: value = (y*31 + x*7 + c*101) % 256.
inline Image PatternImage(int height, int width, int channels) {
  Image img(height, width, channels);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      for (int c = 0; c < channels; ++c)
        img.at(y, x, c) = static_cast<uint8_t>((y * 31 + x * 7 + c * 101) % 256);
    }
  }
  return img;
}

// A small generated ratings table (the mini generator with fewer users and items).
inline RatingsTable SmallRatings(int64_t users, int64_t items, int max_per_user) {
  SyntheticRatingsOptions g;
  g.num_users = users;
  g.num_items = items;
  g.max_ratings_per_user = max_per_user;
  RatingsTable t;
  t.ratings = GenerateSyntheticRatings(g);
  return t;
}

// Calls f, expects core::Error, returns its message (and fails the test if none is thrown).
template <typename F>
std::string ErrorOf(F f) {
  try {
    f();
  } catch (const core::Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no core::Error thrown";
  return "";
}

}  // namespace trainbench::data::testing

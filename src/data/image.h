// An 8-bit image in HWC layout (row-major, channels interleaved: RGBRGB... or gray), the
// currency of the decode and transform stages. Owns its pixels. Plain value type.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace trainbench::data {

struct Image {
  int height = 0;
  int width = 0;
  int channels = 0;           // 1 (gray) or 3 (RGB)
  std::vector<uint8_t> data;  // height * width * channels bytes

  Image() = default;
  Image(int h, int w, int c)
      : height(h), width(w), channels(c), data(static_cast<size_t>(h) * w * c) {}

  size_t num_bytes() const { return static_cast<size_t>(height) * width * channels; }
  uint8_t* row(int y) { return data.data() + static_cast<size_t>(y) * width * channels; }
  const uint8_t* row(int y) const {
    return data.data() + static_cast<size_t>(y) * width * channels;
  }
  uint8_t& at(int y, int x, int c) {
    return data[(static_cast<size_t>(y) * width + x) * channels + c];
  }
  uint8_t at(int y, int x, int c) const {
    return data[(static_cast<size_t>(y) * width + x) * channels + c];
  }
};

}  // namespace trainbench::data

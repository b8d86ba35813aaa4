// The Dataset interface of the data layer: a fixed-size, random-access collection of examples
// that all have the same float CHW shape and an int64 label. Augmentation randomness comes from
// the Rng passed in (see random.h: the loader derives it from (seed, epoch, index)), so
// an example is a pure function of (index, rng).
//
// Datasets produce plain buffers, no tensors: the training layer wraps batches later.
// Threading: GetInto/Get are const and are called concurrently from the loader's worker
// threads; implementations must not mutate shared state in them.
#pragma once

#include <cstdint>
#include <vector>

#include "data/random.h"

namespace trainbench::data {

struct ExampleShape {
  int channels = 0;
  int height = 0;
  int width = 0;
  int64_t numel() const { return static_cast<int64_t>(channels) * height * width; }
  bool operator==(const ExampleShape& o) const {
    return channels == o.channels && height == o.height && width == o.width;
  }
};

struct Example {
  std::vector<float> data;  // shape.numel() floats, CHW
  ExampleShape shape;
  int64_t label = 0;
};

class Dataset {
 public:
  virtual ~Dataset() = default;

  virtual int64_t size() const = 0;
  // The shape of every example.
  virtual ExampleShape shape() const = 0;
  // Writes example `index` (0 <= index < size()) as shape().numel() floats (CHW) to `out`
  // (caller-owned) and returns its label. Expected failures (unreadable/corrupt file) throw
  // core::Error naming the file.
  virtual int64_t GetInto(int64_t index, Rng& rng, float* out) const = 0;

  // Side data of every example beyond its image: extra_floats() floats (0 by default), e.g. a
  // detector's encoded box targets, which depend on the example's augmentation and so must be
  // made with it. Datasets with side data override GetIntoWithExtra; the loader calls it with
  // `extra` pointing at extra_floats() caller-owned floats.
  virtual int64_t extra_floats() const { return 0; }
  virtual int64_t GetIntoWithExtra(int64_t index, Rng& rng, float* out, float* /*extra*/) const {
    return GetInto(index, rng, out);
  }

  // Convenience: allocates and returns the example.
  Example Get(int64_t index, Rng& rng) const {
    Example e;
    e.shape = shape();
    e.data.resize(static_cast<size_t>(e.shape.numel()));
    e.label = GetInto(index, rng, e.data.data());
    return e;
  }
};

}  // namespace trainbench::data

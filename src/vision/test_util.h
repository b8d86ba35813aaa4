// Helpers shared by the vision tests: one intra-op thread (the machine is shared with timing
// runs) and small constructors.
#pragma once

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <array>
#include <vector>

namespace trainbench::vision::testing {

class VisionTest : public ::testing::Test {
 protected:
  void SetUp() override { torch::set_num_threads(1); }
};

// [N, 4] float xyxy boxes from rows.
inline torch::Tensor Boxes(const std::vector<std::array<float, 4>>& rows,
                           torch::Dtype dtype = torch::kFloat) {
  auto t = torch::empty({static_cast<int64_t>(rows.size()), 4}, torch::kFloat);
  for (size_t i = 0; i < rows.size(); ++i) {
    for (int j = 0; j < 4; ++j) t[i][j] = rows[i][j];
  }
  return t.to(dtype);
}

// Random valid xyxy boxes in [0, size]^2 with sides in [1, max_side], seeded by `gen`.
inline torch::Tensor RandomBoxes(int64_t n, double size, double max_side, torch::Generator gen,
                                 torch::Dtype dtype = torch::kFloat) {
  auto xy = torch::rand({n, 2}, gen, torch::kDouble) * size;
  auto wh = 1 + torch::rand({n, 2}, gen, torch::kDouble) * (max_side - 1);
  return torch::cat({xy, xy + wh}, 1).to(dtype);
}

// The xyxy box (x0, y0, x1 + 1, y1 + 1) of the nonzero cells of a [H, W] mask; {0,0,0,0} if empty.
inline std::array<int64_t, 4> MaskBox(const torch::Tensor& mask) {
  auto nz = torch::nonzero(mask);
  if (nz.size(0) == 0) return {0, 0, 0, 0};
  auto rows = nz.select(1, 0), cols = nz.select(1, 1);
  return {cols.min().item<int64_t>(), rows.min().item<int64_t>(), cols.max().item<int64_t>() + 1,
          rows.max().item<int64_t>() + 1};
}

}  // namespace trainbench::vision::testing

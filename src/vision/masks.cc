#include "vision/masks.h"

#include <algorithm>

#include "vision/roi_align.h"

namespace trainbench::vision {

namespace {

using torch::indexing::Slice;

}  // namespace

torch::Tensor PasteMasksInImage(const torch::Tensor& masks, const torch::Tensor& boxes,
                                int64_t height, int64_t width, int64_t padding, double threshold) {
  TORCH_CHECK(masks.dim() == 3 || (masks.dim() == 4 && masks.size(1) == 1),
              "PasteMasksInImage: masks must be [N, M, M] or [N, 1, M, M], got ", masks.sizes());
  TORCH_CHECK(boxes.dim() == 2 && boxes.size(1) == 4 && boxes.size(0) == masks.size(0),
              "PasteMasksInImage: boxes must be [N, 4] for N masks, got ", boxes.sizes());
  TORCH_CHECK(padding >= 0 && height >= 0 && width >= 0, "PasteMasksInImage: bad sizes");
  const auto soft = masks.dim() == 4 ? masks.select(1, 0) : masks;
  const int64_t n = soft.size(0), m = soft.size(-1);
  const auto out_type = threshold >= 0 ? torch::kUInt8 : soft.scalar_type();
  auto result = torch::zeros({n, 1, height, width}, soft.options().dtype(out_type));
  if (n == 0) return result;
  namespace F = torch::nn::functional;
  const auto padded = F::pad(soft.to(torch::kFloat).unsqueeze(1),
                             F::PadFuncOptions({padding, padding, padding, padding}));
  const double scale = static_cast<double>(m + 2 * padding) / static_cast<double>(m);
  // torchvision's expand_boxes, then .to(int64) (truncation toward zero).
  const auto b = boxes.detach().to(torch::kCPU, torch::kFloat);
  const auto half_w = (b.select(1, 2) - b.select(1, 0)) * 0.5 * scale;
  const auto half_h = (b.select(1, 3) - b.select(1, 1)) * 0.5 * scale;
  const auto cx = (b.select(1, 2) + b.select(1, 0)) * 0.5;
  const auto cy = (b.select(1, 3) + b.select(1, 1)) * 0.5;
  const auto corners =
      torch::stack({cx - half_w, cy - half_h, cx + half_w, cy + half_h}, 1).to(torch::kLong);
  const auto c = corners.accessor<int64_t, 2>();
  for (int64_t i = 0; i < n; ++i) {
    const int64_t x0 = c[i][0], y0 = c[i][1], x1 = c[i][2], y1 = c[i][3];
    const int64_t w = std::max<int64_t>(x1 - x0 + 1, 1);
    const int64_t h = std::max<int64_t>(y1 - y0 + 1, 1);
    auto resized = F::interpolate(padded.slice(0, i, i + 1), F::InterpolateFuncOptions()
                                                                 .size(std::vector<int64_t>{h, w})
                                                                 .mode(torch::kBilinear)
                                                                 .align_corners(false))[0][0];
    const int64_t ix0 = std::max<int64_t>(x0, 0), ix1 = std::min<int64_t>(x1 + 1, width);
    const int64_t iy0 = std::max<int64_t>(y0, 0), iy1 = std::min<int64_t>(y1 + 1, height);
    if (ix0 >= ix1 || iy0 >= iy1) continue;
    auto part = resized.index({Slice(iy0 - y0, iy1 - y0), Slice(ix0 - x0, ix1 - x0)});
    part = threshold >= 0 ? part.gt(threshold).to(torch::kUInt8) : part.to(out_type);
    result.index_put_({i, 0, Slice(iy0, iy1), Slice(ix0, ix1)}, part);
  }
  return result;
}

torch::Tensor ProjectMasksOnBoxes(const torch::Tensor& gt_masks, const torch::Tensor& boxes,
                                  const torch::Tensor& matched_idxs, int64_t M) {
  TORCH_CHECK(gt_masks.dim() == 3, "ProjectMasksOnBoxes: gt_masks must be [G, H, W], got ",
              gt_masks.sizes());
  TORCH_CHECK(boxes.dim() == 2 && boxes.size(1) == 4 && matched_idxs.dim() == 1 &&
                  matched_idxs.size(0) == boxes.size(0),
              "ProjectMasksOnBoxes: boxes must be [P, 4] and matched_idxs [P]");
  const auto dtype = boxes.is_floating_point() ? boxes.scalar_type() : torch::kFloat;
  const auto b = boxes.detach().to(dtype);
  const auto rois = torch::cat({matched_idxs.to(b.options()).unsqueeze(1), b}, 1);
  RoiAlignOptions o;
  o.output_h = o.output_w = M;
  o.spatial_scale = 1.0;
  o.sampling_ratio = -1;
  o.aligned = false;
  return RoiAlignForward(gt_masks.unsqueeze(1).to(b.options()), rois, o).select(1, 0);
}

std::vector<uint32_t> MaskToRle(const torch::Tensor& mask) {
  TORCH_CHECK(mask.dim() == 2, "MaskToRle: mask must be [H, W], got ", mask.sizes());
  // Column-major order = the row-major order of the transpose.
  const auto flat = mask.detach().to(torch::kCPU).ne(0).t().contiguous().to(torch::kUInt8);
  const uint8_t* p = flat.data_ptr<uint8_t>();
  const int64_t n = flat.numel();
  std::vector<uint32_t> counts;
  uint8_t current = 0;
  uint32_t run = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (p[i] != current) {
      counts.push_back(run);
      run = 0;
      current = p[i];
    }
    ++run;
  }
  counts.push_back(run);
  return counts;
}

torch::Tensor RleToMask(const std::vector<uint32_t>& counts, int64_t height, int64_t width) {
  TORCH_CHECK(height >= 0 && width >= 0, "RleToMask: negative size");
  uint64_t total = 0;
  for (uint32_t c : counts) total += c;
  TORCH_CHECK(total == static_cast<uint64_t>(height * width), "RleToMask: counts sum to ", total,
              ", not ", height, " x ", width);
  auto columns = torch::zeros({width, height}, torch::kUInt8);  // column-major storage
  uint8_t* p = columns.data_ptr<uint8_t>();
  uint64_t at = 0;
  for (size_t i = 0; i < counts.size(); ++i) {
    if (i % 2 == 1) std::fill(p + at, p + at + counts[i], uint8_t{1});
    at += counts[i];
  }
  return columns.t().contiguous();
}

}  // namespace trainbench::vision

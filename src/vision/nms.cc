#include "vision/nms.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <unordered_map>
#include <vector>

namespace trainbench::vision {

namespace {

// Greedy NMS over the boxes `order` (already in visiting order) that share one category; marks
// the kept ones in `keep`. The boxes are first gathered in visiting order (structure of arrays),
// so the inner loop reads memory sequentially.
template <typename T>
void GreedyNms(const T* b, const std::vector<int64_t>& order, T threshold, std::vector<char>& keep,
               int64_t max_kept) {
  const size_t n = order.size();
  std::vector<T> x1(n), y1(n), x2(n), y2(n), area(n);
  for (size_t a = 0; a < n; ++a) {
    const T* box = b + 4 * order[a];
    x1[a] = box[0];
    y1[a] = box[1];
    x2[a] = box[2];
    y2[a] = box[3];
    area[a] = (box[2] - box[0]) * (box[3] - box[1]);
  }
  std::vector<char> suppressed(n, 0);
  int64_t kept = 0;
  for (size_t a = 0; a < n; ++a) {
    if (suppressed[a]) continue;
    keep[order[a]] = 1;
    if (++kept == max_kept) break;  // the rest could only be kept after these: not wanted
    const T ix1 = x1[a], iy1 = y1[a], ix2 = x2[a], iy2 = y2[a], iarea = area[a];
    for (size_t c = a + 1; c < n; ++c) {
      if (suppressed[c]) continue;
      const T w = std::max(static_cast<T>(0), std::min(ix2, x2[c]) - std::max(ix1, x1[c]));
      const T h = std::max(static_cast<T>(0), std::min(iy2, y2[c]) - std::max(iy1, y1[c]));
      const T inter = w * h;
      const T iou = inter / (iarea + area[c] - inter);
      if (iou > threshold) suppressed[c] = 1;
    }
  }
}

// The kept indices, in descending score. `categories` null: one category.
template <typename T>
std::vector<int64_t> NmsKernel(const torch::Tensor& boxes, const torch::Tensor& scores,
                               const int64_t* categories, double iou_threshold, int64_t max_kept) {
  const int64_t n = boxes.size(0);
  const T* b = boxes.data_ptr<T>();
  const T* s = scores.data_ptr<T>();
  std::vector<int64_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  // NaN scores sort last (a comparator that sees NaN would break the strict weak order).
  auto key = [s](int64_t i) {
    return std::isnan(s[i]) ? -std::numeric_limits<T>::infinity() : s[i];
  };
  std::stable_sort(order.begin(), order.end(),
                   [&key](int64_t i, int64_t j) { return key(i) > key(j); });
  std::vector<char> keep(n, 0);
  const T threshold = static_cast<T>(iou_threshold);
  if (categories == nullptr) {
    GreedyNms(b, order, threshold, keep, max_kept);
  } else {
    // Split the visiting order by category (each list stays in visiting order).
    std::unordered_map<int64_t, std::vector<int64_t>> by_category;
    for (int64_t i : order) by_category[categories[i]].push_back(i);
    for (const auto& [category, members] : by_category) {
      GreedyNms(b, members, threshold, keep, max_kept);
    }
  }
  std::vector<int64_t> kept;
  for (int64_t i : order) {
    if (keep[i]) kept.push_back(i);
  }
  return kept;
}

torch::Tensor RunNms(const torch::Tensor& boxes, const torch::Tensor& scores,
                     const torch::Tensor* idxs, double iou_threshold, int64_t max_kept) {
  TORCH_CHECK(boxes.dim() == 2 && boxes.size(1) == 4, "Nms: boxes must be [N, 4], got ",
              boxes.sizes());
  TORCH_CHECK(scores.dim() == 1 && scores.size(0) == boxes.size(0),
              "Nms: scores must be [N] for boxes [N, 4], got ", scores.sizes());
  TORCH_CHECK(boxes.is_floating_point(), "Nms: boxes must be floating point");
  const auto device = boxes.device();
  auto dtype = boxes.scalar_type();
  if (dtype != torch::kFloat && dtype != torch::kDouble) dtype = torch::kFloat;
  const auto cpu_boxes = boxes.detach().to(torch::kCPU, dtype).contiguous();
  const auto cpu_scores = scores.detach().to(torch::kCPU, dtype).contiguous();
  torch::Tensor cpu_idxs;
  if (idxs != nullptr) {
    TORCH_CHECK(idxs->dim() == 1 && idxs->size(0) == boxes.size(0),
                "BatchedNms: idxs must be [N] for boxes [N, 4], got ", idxs->sizes());
    cpu_idxs = idxs->detach().to(torch::kCPU, torch::kLong).contiguous();
  }
  const int64_t* categories = idxs != nullptr ? cpu_idxs.data_ptr<int64_t>() : nullptr;
  std::vector<int64_t> kept =
      dtype == torch::kDouble
          ? NmsKernel<double>(cpu_boxes, cpu_scores, categories, iou_threshold, max_kept)
          : NmsKernel<float>(cpu_boxes, cpu_scores, categories, iou_threshold, max_kept);
  auto result = torch::tensor(kept, torch::kLong);
  if (kept.empty()) result = torch::empty({0}, torch::kLong);
  return result.to(device);
}

}  // namespace

torch::Tensor Nms(const torch::Tensor& boxes, const torch::Tensor& scores, double iou_threshold) {
  return RunNms(boxes, scores, nullptr, iou_threshold, -1);
}

torch::Tensor BatchedNms(const torch::Tensor& boxes, const torch::Tensor& scores,
                         const torch::Tensor& idxs, double iou_threshold,
                         int64_t max_per_category) {
  TORCH_CHECK(max_per_category != 0,
              "BatchedNms: max_per_category must be positive (or negative: no limit)");
  return RunNms(boxes, scores, &idxs, iou_threshold, max_per_category);
}

}  // namespace trainbench::vision

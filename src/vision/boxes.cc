#include "vision/boxes.h"

namespace trainbench::vision {

namespace {

using torch::indexing::None;
using torch::indexing::Slice;

torch::Tensor Col(const torch::Tensor& boxes, int64_t i) { return boxes.select(-1, i); }

void CheckBoxes(const torch::Tensor& boxes, const char* what) {
  TORCH_CHECK(boxes.dim() >= 1 && boxes.size(-1) == 4, what, ": boxes must be [..., 4], got ",
              boxes.sizes());
}

}  // namespace

torch::Tensor ConvertBoxes(const torch::Tensor& boxes, BoxFormat from, BoxFormat to) {
  CheckBoxes(boxes, "ConvertBoxes");
  if (from == to) return boxes.clone();
  // Through xyxy.
  torch::Tensor xyxy;
  const auto a = Col(boxes, 0), b = Col(boxes, 1), c = Col(boxes, 2), d = Col(boxes, 3);
  switch (from) {
    case BoxFormat::kXyxy:
      xyxy = boxes;
      break;
    case BoxFormat::kXywh:
      xyxy = torch::stack({a, b, a + c, b + d}, -1);
      break;
    case BoxFormat::kCxcywh:
      xyxy = torch::stack({a - 0.5 * c, b - 0.5 * d, a + 0.5 * c, b + 0.5 * d}, -1);
      break;
  }
  const auto x1 = Col(xyxy, 0), y1 = Col(xyxy, 1), x2 = Col(xyxy, 2), y2 = Col(xyxy, 3);
  switch (to) {
    case BoxFormat::kXyxy:
      return xyxy;
    case BoxFormat::kXywh:
      return torch::stack({x1, y1, x2 - x1, y2 - y1}, -1);
    case BoxFormat::kCxcywh:
      return torch::stack({(x1 + x2) / 2, (y1 + y2) / 2, x2 - x1, y2 - y1}, -1);
  }
  TORCH_CHECK(false, "ConvertBoxes: unknown format");
}

torch::Tensor BoxArea(const torch::Tensor& boxes) {
  CheckBoxes(boxes, "BoxArea");
  return (Col(boxes, 2) - Col(boxes, 0)) * (Col(boxes, 3) - Col(boxes, 1));
}

torch::Tensor BoxIou(const torch::Tensor& boxes1, const torch::Tensor& boxes2) {
  TORCH_CHECK(boxes1.dim() == 2 && boxes1.size(1) == 4 && boxes2.dim() == 2 && boxes2.size(1) == 4,
              "BoxIou: boxes must be [N, 4] and [M, 4], got ", boxes1.sizes(), " and ",
              boxes2.sizes());
  const auto area1 = BoxArea(boxes1);
  const auto area2 = BoxArea(boxes2);
  const auto lt = torch::max(boxes1.index({Slice(), None, Slice(0, 2)}),
                             boxes2.index({Slice(), Slice(0, 2)}));  // [N, M, 2]
  const auto rb =
      torch::min(boxes1.index({Slice(), None, Slice(2, 4)}), boxes2.index({Slice(), Slice(2, 4)}));
  const auto wh = (rb - lt).clamp_min(0);
  const auto inter = wh.select(-1, 0) * wh.select(-1, 1);
  return inter / (area1.unsqueeze(1) + area2.unsqueeze(0) - inter);
}

torch::Tensor ClipBoxesToImage(const torch::Tensor& boxes, int64_t height, int64_t width) {
  CheckBoxes(boxes, "ClipBoxesToImage");
  const auto w = static_cast<double>(width), h = static_cast<double>(height);
  return torch::stack({Col(boxes, 0).clamp(0, w), Col(boxes, 1).clamp(0, h),
                       Col(boxes, 2).clamp(0, w), Col(boxes, 3).clamp(0, h)},
                      -1);
}

torch::Tensor RemoveSmallBoxes(const torch::Tensor& boxes, double min_size) {
  TORCH_CHECK(boxes.dim() == 2 && boxes.size(1) == 4, "RemoveSmallBoxes: boxes must be [N, 4]");
  const auto ws = Col(boxes, 2) - Col(boxes, 0);
  const auto hs = Col(boxes, 3) - Col(boxes, 1);
  return torch::where(ws.ge(min_size).logical_and(hs.ge(min_size)))[0];
}

torch::Tensor BoxCoder::Encode(const torch::Tensor& boxes, const torch::Tensor& reference) const {
  TORCH_CHECK(boxes.dim() == 2 && boxes.size(1) == 4 && reference.sizes() == boxes.sizes(),
              "BoxCoder::Encode: boxes and reference must both be [N, 4], got ", boxes.sizes(),
              " and ", reference.sizes());
  const auto ref = reference.to(boxes.scalar_type());
  const auto pw = Col(ref, 2) - Col(ref, 0);
  const auto ph = Col(ref, 3) - Col(ref, 1);
  const auto px = Col(ref, 0) + 0.5 * pw;
  const auto py = Col(ref, 1) + 0.5 * ph;
  const auto gw = Col(boxes, 2) - Col(boxes, 0);
  const auto gh = Col(boxes, 3) - Col(boxes, 1);
  const auto gx = Col(boxes, 0) + 0.5 * gw;
  const auto gy = Col(boxes, 1) + 0.5 * gh;
  const auto& w = weights_;
  return torch::stack({w[0] * (gx - px) / pw, w[1] * (gy - py) / ph, w[2] * torch::log(gw / pw),
                       w[3] * torch::log(gh / ph)},
                      1);
}

torch::Tensor BoxCoder::Decode(const torch::Tensor& codes, const torch::Tensor& reference) const {
  TORCH_CHECK(codes.dim() == 2 && codes.size(1) % 4 == 0 && reference.dim() == 2 &&
                  reference.size(1) == 4 && reference.size(0) == codes.size(0),
              "BoxCoder::Decode: codes must be [N, 4K] and reference [N, 4], got ", codes.sizes(),
              " and ", reference.sizes());
  const auto ref = reference.to(codes.scalar_type());
  const auto pw = (Col(ref, 2) - Col(ref, 0)).unsqueeze(1);
  const auto ph = (Col(ref, 3) - Col(ref, 1)).unsqueeze(1);
  const auto px = Col(ref, 0).unsqueeze(1) + 0.5 * pw;
  const auto py = Col(ref, 1).unsqueeze(1) + 0.5 * ph;
  const auto& w = weights_;
  const auto dx = codes.index({Slice(), Slice(0, None, 4)}) / w[0];
  const auto dy = codes.index({Slice(), Slice(1, None, 4)}) / w[1];
  const auto dw = (codes.index({Slice(), Slice(2, None, 4)}) / w[2]).clamp_max(clip_);
  const auto dh = (codes.index({Slice(), Slice(3, None, 4)}) / w[3]).clamp_max(clip_);
  const auto cx = dx * pw + px;
  const auto cy = dy * ph + py;
  const auto half_w = 0.5 * torch::exp(dw) * pw;
  const auto half_h = 0.5 * torch::exp(dh) * ph;
  // [N, K, 4] -> [N, 4K]: box k of row i is columns 4k .. 4k + 3, as the codes.
  return torch::stack({cx - half_w, cy - half_h, cx + half_w, cy + half_h}, 2).flatten(1);
}

}  // namespace trainbench::vision

#include "vision/roi_align.h"

#include <ATen/Parallel.h>

#include <algorithm>
#include <cmath>

#include "vision/boxes.h"

namespace trainbench::vision {

namespace {

// One sampling point: the four neighbouring cells (offsets in an H x W plane) and their bilinear
// weights. pos[0] < 0 marks a point outside the map, which contributes nothing.
template <typename T>
struct SamplePoint {
  int64_t pos[4];
  T w[4];
};

// The sampling points of one RoI, bin by bin (row-major over the output), grid_h * grid_w per
// bin; shared by every channel.
template <typename T>
struct RoiSamples {
  int64_t batch = 0;
  int64_t per_bin = 0;
  T count = 1;  // the divisor of the average
  std::vector<SamplePoint<T>> points;
};

template <typename T>
SamplePoint<T> Bilinear(T y, T x, int64_t height, int64_t width) {
  SamplePoint<T> p{};
  // Written as !(inside) so that NaN coordinates land here too.
  if (!(y >= T(-1) && y <= T(height) && x >= T(-1) && x <= T(width))) {
    p.pos[0] = -1;
    return p;
  }
  if (y <= 0) y = 0;
  if (x <= 0) x = 0;
  int64_t y_low = static_cast<int64_t>(y), x_low = static_cast<int64_t>(x), y_high, x_high;
  if (y_low >= height - 1) {
    y_high = y_low = height - 1;
    y = static_cast<T>(y_low);
  } else {
    y_high = y_low + 1;
  }
  if (x_low >= width - 1) {
    x_high = x_low = width - 1;
    x = static_cast<T>(x_low);
  } else {
    x_high = x_low + 1;
  }
  const T ly = y - y_low, lx = x - x_low;
  const T hy = T(1) - ly, hx = T(1) - lx;
  p.pos[0] = y_low * width + x_low;
  p.pos[1] = y_low * width + x_high;
  p.pos[2] = y_high * width + x_low;
  p.pos[3] = y_high * width + x_high;
  p.w[0] = hy * hx;
  p.w[1] = hy * lx;
  p.w[2] = ly * hx;
  p.w[3] = ly * lx;
  return p;
}

template <typename T>
RoiSamples<T> SamplesOf(const T* roi, const RoiAlignOptions& o, int64_t batch_size, int64_t height,
                        int64_t width) {
  RoiSamples<T> r;
  r.batch = static_cast<int64_t>(roi[0]);
  TORCH_CHECK(r.batch >= 0 && r.batch < batch_size, "RoiAlign: RoI batch index ", roi[0],
              " outside [0, ", batch_size, ")");
  const T scale = static_cast<T>(o.spatial_scale);
  const T offset = o.aligned ? T(0.5) : T(0);
  const T start_w = roi[1] * scale - offset;
  const T start_h = roi[2] * scale - offset;
  const T end_w = roi[3] * scale - offset;
  const T end_h = roi[4] * scale - offset;
  T roi_w = end_w - start_w, roi_h = end_h - start_h;
  if (!o.aligned) {  // malformed RoIs become 1 x 1
    roi_w = std::max(roi_w, T(1));
    roi_h = std::max(roi_h, T(1));
  }
  const T bin_h = roi_h / static_cast<T>(o.output_h);
  const T bin_w = roi_w / static_cast<T>(o.output_w);
  const int64_t grid_h = o.sampling_ratio > 0
                             ? o.sampling_ratio
                             : static_cast<int64_t>(std::ceil(roi_h / static_cast<T>(o.output_h)));
  const int64_t grid_w = o.sampling_ratio > 0
                             ? o.sampling_ratio
                             : static_cast<int64_t>(std::ceil(roi_w / static_cast<T>(o.output_w)));
  r.per_bin = std::max<int64_t>(grid_h, 0) * std::max<int64_t>(grid_w, 0);
  r.count = static_cast<T>(std::max<int64_t>(r.per_bin, 1));
  r.points.reserve(o.output_h * o.output_w * r.per_bin);
  for (int64_t ph = 0; ph < o.output_h; ++ph) {
    for (int64_t pw = 0; pw < o.output_w; ++pw) {
      for (int64_t iy = 0; iy < grid_h; ++iy) {
        const T y =
            start_h + ph * bin_h + static_cast<T>(iy + 0.5f) * bin_h / static_cast<T>(grid_h);
        for (int64_t ix = 0; ix < grid_w; ++ix) {
          const T x =
              start_w + pw * bin_w + static_cast<T>(ix + 0.5f) * bin_w / static_cast<T>(grid_w);
          r.points.push_back(Bilinear(y, x, height, width));
        }
      }
    }
  }
  return r;
}

void CheckOptions(const RoiAlignOptions& o) {
  TORCH_CHECK(o.output_h > 0 && o.output_w > 0, "RoiAlign: output size must be positive, got ",
              o.output_h, " x ", o.output_w);
}

void CheckRois(const torch::Tensor& rois) {
  TORCH_CHECK(rois.dim() == 2 && rois.size(1) == 5, "RoiAlign: rois must be [K, 5], got ",
              rois.sizes());
}

template <typename T>
void ForwardKernel(const torch::Tensor& input, const torch::Tensor& rois, const RoiAlignOptions& o,
                   torch::Tensor& output) {
  const int64_t n = input.size(0), channels = input.size(1), height = input.size(2),
                width = input.size(3);
  const int64_t bins = o.output_h * o.output_w, plane = height * width;
  const T* in = input.data_ptr<T>();
  const T* roi = rois.data_ptr<T>();
  T* out = output.data_ptr<T>();
  at::parallel_for(0, rois.size(0), 1, [&](int64_t begin, int64_t end) {
    for (int64_t k = begin; k < end; ++k) {
      const RoiSamples<T> s = SamplesOf(roi + 5 * k, o, n, height, width);
      for (int64_t c = 0; c < channels; ++c) {
        const T* x = in + (s.batch * channels + c) * plane;
        T* y = out + (k * channels + c) * bins;
        const SamplePoint<T>* p = s.points.data();
        for (int64_t b = 0; b < bins; ++b) {
          T sum = 0;
          for (int64_t i = 0; i < s.per_bin; ++i, ++p) {
            if (p->pos[0] < 0) continue;
            sum += p->w[0] * x[p->pos[0]] + p->w[1] * x[p->pos[1]] + p->w[2] * x[p->pos[2]] +
                   p->w[3] * x[p->pos[3]];
          }
          y[b] = sum / s.count;
        }
      }
    }
  });
}

template <typename T>
void BackwardKernel(const torch::Tensor& grad_output, const torch::Tensor& rois,
                    const RoiAlignOptions& o, torch::Tensor& grad_input) {
  const int64_t n = grad_input.size(0), channels = grad_input.size(1), height = grad_input.size(2),
                width = grad_input.size(3);
  const int64_t k_rois = rois.size(0), bins = o.output_h * o.output_w, plane = height * width;
  const T* roi = rois.data_ptr<T>();
  std::vector<RoiSamples<T>> samples;
  samples.reserve(k_rois);
  for (int64_t k = 0; k < k_rois; ++k)
    samples.push_back(SamplesOf(roi + 5 * k, o, n, height, width));
  const T* go = grad_output.data_ptr<T>();
  T* gi = grad_input.data_ptr<T>();
  // Channels write disjoint planes of grad_input, so they run in parallel without atomics; the
  // RoIs of one channel accumulate in a fixed order (deterministic for any thread count). Each
  // thread walks the RoIs once over its range of channels, so a RoI's sample points (about 9 KB
  // for 7x7 bins of 4 samples) stay in cache while its channels use them, instead of streaming
  // every RoI's points once per channel.
  at::parallel_for(0, channels, 1, [&](int64_t begin, int64_t end) {
    for (int64_t k = 0; k < k_rois; ++k) {
      const RoiSamples<T>& s = samples[k];
      for (int64_t c = begin; c < end; ++c) {
        T* g = gi + (s.batch * channels + c) * plane;
        const T* gy = go + (k * channels + c) * bins;
        const SamplePoint<T>* p = s.points.data();
        for (int64_t b = 0; b < bins; ++b) {
          const T grad = gy[b] / s.count;  // the forward's mean over the bin's samples
          for (int64_t i = 0; i < s.per_bin; ++i, ++p) {
            if (p->pos[0] < 0) continue;
            for (int q = 0; q < 4; ++q) g[p->pos[q]] += grad * p->w[q];
          }
        }
      }
    }
  });
}

class RoiAlignFunction : public torch::autograd::Function<RoiAlignFunction> {
 public:
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& input,
                               const torch::Tensor& rois, int64_t output_h, int64_t output_w,
                               double spatial_scale, int64_t sampling_ratio, bool aligned) {
    ctx->save_for_backward({rois});
    ctx->saved_data["output_h"] = output_h;
    ctx->saved_data["output_w"] = output_w;
    ctx->saved_data["spatial_scale"] = spatial_scale;
    ctx->saved_data["sampling_ratio"] = sampling_ratio;
    ctx->saved_data["aligned"] = aligned;
    ctx->saved_data["input_sizes"] = input.sizes().vec();
    return RoiAlignForward(input, rois,
                           {output_h, output_w, spatial_scale, sampling_ratio, aligned});
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grad_outputs) {
    const auto rois = ctx->get_saved_variables()[0];
    RoiAlignOptions o;
    o.output_h = ctx->saved_data["output_h"].toInt();
    o.output_w = ctx->saved_data["output_w"].toInt();
    o.spatial_scale = ctx->saved_data["spatial_scale"].toDouble();
    o.sampling_ratio = ctx->saved_data["sampling_ratio"].toInt();
    o.aligned = ctx->saved_data["aligned"].toBool();
    const auto sizes = ctx->saved_data["input_sizes"].toIntVector();
    auto grad_input =
        RoiAlignBackward(grad_outputs[0], rois, o, sizes[0], sizes[1], sizes[2], sizes[3]);
    return {grad_input,      torch::Tensor(), torch::Tensor(), torch::Tensor(),
            torch::Tensor(), torch::Tensor(), torch::Tensor()};
  }
};

}  // namespace

torch::Tensor RoiAlignForward(const torch::Tensor& input, const torch::Tensor& rois,
                              const RoiAlignOptions& options) {
  CheckOptions(options);
  CheckRois(rois);
  TORCH_CHECK(input.dim() == 4, "RoiAlign: input must be [N, C, H, W], got ", input.sizes());
  TORCH_CHECK(input.scalar_type() == torch::kFloat || input.scalar_type() == torch::kDouble,
              "RoiAlign: input must be float or double, got ", input.scalar_type());
  const auto device = input.device();
  const auto cpu_input = input.detach().to(torch::kCPU).contiguous();
  const auto cpu_rois = rois.detach().to(torch::kCPU, input.scalar_type()).contiguous();
  auto output = torch::zeros({rois.size(0), input.size(1), options.output_h, options.output_w},
                             cpu_input.options());
  if (output.numel() > 0 && input.size(2) > 0 && input.size(3) > 0) {
    AT_DISPATCH_FLOATING_TYPES(cpu_input.scalar_type(), "RoiAlignForward", [&] {
      ForwardKernel<scalar_t>(cpu_input, cpu_rois, options, output);
    });
  }
  return output.to(device);
}

torch::Tensor RoiAlignBackward(const torch::Tensor& grad_output, const torch::Tensor& rois,
                               const RoiAlignOptions& options, int64_t batch, int64_t channels,
                               int64_t height, int64_t width) {
  CheckOptions(options);
  CheckRois(rois);
  TORCH_CHECK(grad_output.dim() == 4 && grad_output.size(0) == rois.size(0) &&
                  grad_output.size(1) == channels && grad_output.size(2) == options.output_h &&
                  grad_output.size(3) == options.output_w,
              "RoiAlignBackward: grad_output must be [K, C, output_h, output_w], got ",
              grad_output.sizes());
  TORCH_CHECK(
      grad_output.scalar_type() == torch::kFloat || grad_output.scalar_type() == torch::kDouble,
      "RoiAlignBackward: gradient must be float or double");
  const auto device = grad_output.device();
  const auto cpu_grad = grad_output.detach().to(torch::kCPU).contiguous();
  const auto cpu_rois = rois.detach().to(torch::kCPU, grad_output.scalar_type()).contiguous();
  auto grad_input = torch::zeros({batch, channels, height, width}, cpu_grad.options());
  if (cpu_grad.numel() > 0 && grad_input.numel() > 0) {
    AT_DISPATCH_FLOATING_TYPES(cpu_grad.scalar_type(), "RoiAlignBackward", [&] {
      BackwardKernel<scalar_t>(cpu_grad, cpu_rois, options, grad_input);
    });
  }
  return grad_input.to(device);
}

torch::Tensor RoiAlign(const torch::Tensor& input, const torch::Tensor& rois,
                       const RoiAlignOptions& options) {
  return RoiAlignFunction::apply(input, rois, options.output_h, options.output_w,
                                 options.spatial_scale, options.sampling_ratio, options.aligned);
}

torch::Tensor BoxesToRois(const std::vector<torch::Tensor>& boxes) {
  TORCH_CHECK(!boxes.empty(), "BoxesToRois: no images");
  std::vector<torch::Tensor> parts;
  parts.reserve(boxes.size());
  for (size_t i = 0; i < boxes.size(); ++i) {
    TORCH_CHECK(boxes[i].dim() == 2 && boxes[i].size(1) == 4,
                "BoxesToRois: boxes must be [N, 4], got ", boxes[i].sizes());
    auto index = torch::full({boxes[i].size(0), 1}, static_cast<double>(i), boxes[i].options());
    parts.push_back(torch::cat({index, boxes[i]}, 1));
  }
  return torch::cat(parts, 0);
}

torch::Tensor FpnLevels(const torch::Tensor& boxes, int64_t k_min, int64_t k_max,
                        double canonical_scale, int64_t canonical_level) {
  TORCH_CHECK(k_min <= k_max, "FpnLevels: k_min > k_max");
  const auto s = torch::sqrt(BoxArea(boxes));
  const auto levels =
      torch::floor(static_cast<double>(canonical_level) + torch::log2(s / canonical_scale) + 1e-6);
  return levels.clamp(static_cast<double>(k_min), static_cast<double>(k_max)).to(torch::kLong);
}

torch::Tensor MultiScaleRoiAlign(const std::vector<torch::Tensor>& features,
                                 const torch::Tensor& rois, const RoiAlignOptions& options,
                                 int64_t k_min, double canonical_scale, int64_t canonical_level) {
  TORCH_CHECK(!features.empty(), "MultiScaleRoiAlign: no feature maps");
  CheckRois(rois);
  const int64_t k_max = k_min + static_cast<int64_t>(features.size()) - 1;
  const auto& f0 = features[0];
  const auto levels = FpnLevels(rois.slice(1, 1, 5), k_min, k_max, canonical_scale, canonical_level)
                          .to(f0.device());
  // Every RoI has a level (FpnLevels clamps), so the levels' outputs cover every row: pool each
  // level's RoIs, concatenate, and put the rows back in the RoIs' order (one gather). Writing
  // each level into a zero tensor out of place, as before, copied the whole result once per level
  // (for 9600 eval RoIs of 64 x 7 x 7, four 120 MB copies a batch).
  std::vector<torch::Tensor> parts, order;
  for (size_t l = 0; l < features.size(); ++l) {
    const auto idx = torch::where(levels == k_min + static_cast<int64_t>(l))[0];
    if (idx.numel() == 0) continue;
    RoiAlignOptions o = options;
    o.spatial_scale = std::ldexp(1.0, -static_cast<int>(k_min + static_cast<int64_t>(l)));
    parts.push_back(RoiAlign(features[l], rois.index_select(0, idx), o));
    order.push_back(idx);
  }
  if (parts.empty())
    return torch::zeros({0, f0.size(1), options.output_h, options.output_w}, f0.options());
  if (parts.size() == 1) return parts[0];
  const auto perm = torch::cat(order);  // row i of the concatenation is RoI perm[i]
  const auto inverse =
      torch::empty_like(perm).index_put_({perm}, torch::arange(perm.numel(), perm.options()));
  return torch::cat(parts).index_select(0, inverse);
}

}  // namespace trainbench::vision

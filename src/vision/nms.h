// Non-maximum suppression, greedy, as torchvision.ops.nms and batched_nms.
//
// Boxes are xyxy [N, 4] floating tensors, scores [N] of the same dtype. Boxes are visited in
// descending score, equal scores in ascending index (a stable sort); a box is kept unless a kept
// box overlaps it with IoU > iou_threshold (strictly greater: IoU == threshold keeps both). The
// IoU is computed in the boxes' dtype as torchvision's CPU kernel does.
//
// Device handling: the greedy loop is a CPU kernel (float and double; other floating dtypes are
// computed in float). Tensors on another device (CUDA) are copied to the CPU, suppressed there and
// the indices copied back: correct, but a device round trip per call. Not differentiable (it
// returns indices). Thread-safe; runs on the calling thread.
#pragma once

#include <torch/torch.h>

namespace trainbench::vision {

// [K] int64 indices of the kept boxes, sorted by descending score (ties by ascending index), on
// the boxes' device.
torch::Tensor Nms(const torch::Tensor& boxes, const torch::Tensor& scores, double iou_threshold);

// NMS done independently per category: boxes only suppress boxes with the same idxs[i] (int64
// [N], e.g. class or class * num_images + image). The kept indices over all categories, sorted by
// descending score (ties by ascending index), as torchvision.ops.batched_nms. Exactly per class:
// no coordinate offset trick, so boxes of any coordinates are kept apart. max_per_category > 0:
// each category stops after that many kept boxes (its best ones; the greedy pass never revisits
// them, so they are exactly the first max_per_category of the unlimited result), e.g. the RPN's
// per-level post-NMS count; < 0: no limit.
torch::Tensor BatchedNms(const torch::Tensor& boxes, const torch::Tensor& scores,
                         const torch::Tensor& idxs, double iou_threshold,
                         int64_t max_per_category = -1);

}  // namespace trainbench::vision

// Instance-mask operations of Mask R-CNN: pasting the head's M x M masks into the image (for
// evaluation), projecting ground-truth masks onto proposals (the mask head's targets), and the
// COCO run-length encoding of a binary mask (what COCO's segm evaluation reads).
//
// Device handling: PasteMasksInImage and ProjectMasksOnBoxes are tensor operations on the
// inputs' device (the paste loops over instances on the host, reading each box's integer corners;
// ProjectMasksOnBoxes goes through RoiAlign, see roi_align.h). MaskToRle copies the mask to the
// CPU. Thread-safe (no state).
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <vector>

namespace trainbench::vision {

// Pastes soft masks `masks` [N, M, M] (or [N, 1, M, M], floating) predicted for xyxy boxes
// `boxes` [N, 4] into an image of height x width, as torchvision's paste_masks_in_image (and
// maskrcnn-benchmark's Masker, which MLPerf's reference uses): the mask is padded by `padding`
// cells of 0 on each side and its box scaled by (M + 2 padding) / M about its centre, the box's
// corners truncated to integers (x0, y0, x1, y1); the mask is resized bilinearly
// (align_corners = false) to (y1 - y0 + 1) x (x1 - x0 + 1), at least 1 x 1, and placed at
// (x0, y0), clipped to the image. threshold >= 0: returns uint8 [N, 1, height, width] of
// (value > threshold) (0.5 for COCO evaluation); threshold < 0: the soft float masks.
torch::Tensor PasteMasksInImage(const torch::Tensor& masks, const torch::Tensor& boxes,
                                int64_t height, int64_t width, int64_t padding = 1,
                                double threshold = 0.5);

// The mask head's targets, as torchvision's project_masks_on_boxes: ground-truth masks `gt_masks`
// [G, H, W] (any dtype, binary) cropped and resized to M x M over xyxy `boxes` [P, 4] (proposals
// in image coordinates) by RoIAlign (spatial scale 1, adaptive sampling, aligned = false) of
// the matched masks gt_masks[matched_idxs[i]] (int64 [P]). Float [P, M, M] in [0, 1] (the loss is
// a binary cross-entropy against these soft targets).
torch::Tensor ProjectMasksOnBoxes(const torch::Tensor& gt_masks, const torch::Tensor& boxes,
                                  const torch::Tensor& matched_idxs, int64_t M);

// COCO's uncompressed RLE of a binary mask [H, W] (nonzero = foreground): run lengths over the
// pixels in column-major (Fortran) order, alternating background and foreground and starting
// with the background run (0 when the first pixel is foreground). The same counts as cocoapi's
// rleEncode / pycocotools.mask.encode(np.asfortranarray(mask)) before its string compression;
// the counts sum to H * W (an empty mask: {0}).
std::vector<uint32_t> MaskToRle(const torch::Tensor& mask);

// The inverse: a uint8 [height, width] mask of 0 and 1 from RLE counts. Throws c10::Error when
// the counts do not sum to height * width.
torch::Tensor RleToMask(const std::vector<uint32_t>& counts, int64_t height, int64_t width);

}  // namespace trainbench::vision

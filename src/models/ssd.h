// SSD (MLPerf `ssd`, the v0.5 reference "SSD300 with a ResNet-34 backbone") in LibTorch:
// - the trunk: ResNet-34's stem, layer1, layer2 and layer3 with layer3's stride set to 1 (so a
//   300x300 image gives a 38x38 map of 256 channels), torchvision's parameter names;
// - extra blocks (1x1 conv + ReLU + 3x3 conv + ReLU, with bias, no BatchNorm, as v0.5) that
//   give the 19, 10, 5, 3, 1 maps of 512, 512, 256, 256, 256 channels;
// - per map a 3x3 localisation head (4 numbers per default box) and a 3x3 classification head
//   (num_classes logits per default box, class 0 = background), Xavier-uniform initialised;
// - default boxes as the reference's DefaultBoxes (Caffe's variant: sizes s_k and
//   sqrt(s_k s_k+1), then each aspect ratio and its inverse; centres (j + 0.5) / f_k; clamped
//   to [0, 1]); 8732 for SSD300;
// - target encoding (IoU > 0.5 with every ground-truth box forced onto its best default box),
//   the loss (smooth L1 on positives + cross-entropy with 3:1 hard negative mining, per image
//   normalised by its positives) and the decoding (softmax, score > 0.05, per class at most 200
//   candidates and NMS, then the best max_output of the image), as the reference's Encoder and
//   Loss.
// The mini scale uses the same construction, narrower and for smaller images (MiniSsdOptions).
// Boxes here are normalised to [0, 1] of the image, ltrb = (x1, y1, x2, y2) or xywh = (cx, cy,
// w, h) as the reference names them (vision::BoxFormat kXyxy and kCxcywh). Device-agnostic.
#pragma once

#include <torch/torch.h>

#include <vector>

#include "models/resnet.h"

namespace trainbench::models {

struct SsdExtraBlock {
  int64_t mid_channels = 0;  // of the 1x1 convolution
  int64_t out_channels = 0;  // of the 3x3 convolution, the feature map the heads see
  int64_t stride = 2;
  int64_t padding = 1;
};

struct SsdOptions {
  int64_t num_classes = 81;  // background included (COCO: 80 + 1)
  ResNetOptions trunk;       // classifier(false); its last stage gives the first feature map
  std::vector<SsdExtraBlock> extras;
  std::vector<int64_t> num_defaults;  // default boxes per cell of each feature map
};

// The reference SSD300: ResNet-34 trunk (blocks 3, 4, 6; widths 64, 128, 256; strides 1, 2, 1),
// extras 256->512 s2, 256->512 s2, 128->256 s2, 128->256 valid, 128->256 valid; 4, 6, 6, 6, 4, 4
// default boxes per cell.
SsdOptions Ssd300Options(int64_t num_classes = 81);

// The mini SSD: the same layout with a ResNet trunk of `blocks` basic blocks per stage and
// widths w, 2w, 4w (strides 1, 2, 1 after the 7x7/2 stem and max pool: stride 8), then
// stride-2 extra blocks (mid 2w, out 4w) down to a 1x1 map: an image of 128 gives maps of 16,
// 8, 4, 2, 1 cells with 4, 6, 6, 4, 4 default boxes.
SsdOptions MiniSsdOptions(int64_t num_classes, int64_t image_size, int64_t width, int64_t blocks);

struct DefaultBoxOptions {
  int64_t fig_size = 300;
  std::vector<int64_t> feat_size;                   // cells per side of each feature map
  std::vector<double> steps;                        // pixels per cell of each map
  std::vector<double> scales;                       // feat_size.size() + 1 box sizes in pixels
  std::vector<std::vector<int64_t>> aspect_ratios;  // extra ratios per map (each adds 2 boxes)
  double scale_xy = 0.1;                            // the encoding's variances
  double scale_wh = 0.2;
};

// SSD300's: feature maps 38, 19, 10, 5, 3, 1; steps 8, 16, 32, 64, 100, 300; scales 21, 45, 99,
// 153, 207, 261, 315; ratios [2], [2, 3], [2, 3], [2, 3], [2], [2].
DefaultBoxOptions Ssd300DefaultBoxes();

// The mini boxes for the maps of MiniSsdOptions at `image_size`: the steps image_size /
// feat_size, sizes the same fractions of the image as SSD300's first six (0.07 .. 0.87), ratios
// [2], [2, 3], [2, 3], [2], [2], ... (one [2, 3] per map beyond five is not needed at mini sizes).
DefaultBoxOptions MiniDefaultBoxes(int64_t image_size, const std::vector<int64_t>& feat_size);

// [A, 4] default boxes in xywh, clamped to [0, 1], in the order the heads emit them (per map;
// per size; per row; per column). A = sum over maps of num_defaults * feat_size^2.
torch::Tensor MakeDefaultBoxes(const DefaultBoxOptions& o);
// Boxes per cell of each map implied by the options (2 + 2 * ratios).
std::vector<int64_t> DefaultBoxesPerCell(const DefaultBoxOptions& o);

class SsdImpl : public torch::nn::Module {
 public:
  explicit SsdImpl(const SsdOptions& options);
  // x: [N, 3, H, W]; returns {loc [N, 4, A], conf [N, num_classes, A]} (raw: the encoded
  // offsets and the logits).
  std::pair<torch::Tensor, torch::Tensor> forward(torch::Tensor x);
  // Cells per side of each feature map for a square image of `image_size` pixels.
  std::vector<int64_t> FeatureSizes(int64_t image_size) const;
  // Multiply-accumulate count of one forward pass of an image_size^2 image.
  int64_t ForwardMacs(int64_t image_size) const;
  const SsdOptions& options() const { return options_; }

  ResNet trunk{nullptr};
  std::vector<torch::nn::Sequential> extras;
  std::vector<torch::nn::Conv2d> loc, conf;

 private:
  SsdOptions options_;
};
TORCH_MODULE(Ssd);

struct SsdTargets {
  torch::Tensor loc;     // [A, 4] xywh: the matched ground-truth box (the default box if none)
  torch::Tensor labels;  // [A] int64: the matched class, 0 = background
};

// The reference Encoder.encode for one image: gt_ltrb [n, 4] normalised boxes, gt_labels [n]
// (1..num_classes-1); n may be 0 (all background). dboxes_ltrb: MakeDefaultBoxes in ltrb.
SsdTargets SsdEncode(const torch::Tensor& dboxes_ltrb, const torch::Tensor& gt_ltrb,
                     const torch::Tensor& gt_labels, double iou_threshold = 0.5);

// The reference Loss: ploc [N, 4, A], pconf [N, C, A] from the model; gloc [N, 4, A] (xywh of
// SsdTargets::loc, transposed), glabel [N, A]; dboxes_xywh [A, 4]. Per image: smooth L1 of the
// encoded offsets over positives + cross-entropy over positives and the neg_ratio x positives
// hardest negatives, divided by the positives; images without positives count 0; mean over N.
torch::Tensor SsdLoss(const torch::Tensor& ploc, const torch::Tensor& pconf,
                      const torch::Tensor& gloc, const torch::Tensor& glabel,
                      const torch::Tensor& dboxes_xywh, double scale_xy, double scale_wh,
                      double neg_ratio = 3.0);

struct SsdDecodeOptions {
  double score_threshold = 0.05;
  // A candidate overlapping a kept box of its class by IoU > this is dropped (vision::Nms; the
  // reference drops IoU >= it, which differs only at exact ties).
  double nms_iou = 0.5;
  int64_t max_candidates = 200;  // per class, the best-scoring before NMS
  int64_t max_output = 200;      // per image
};

struct Detections {
  torch::Tensor boxes;   // [K, 4] ltrb, normalised
  torch::Tensor labels;  // [K] int64, 1..C-1
  torch::Tensor scores;  // [K] float
};

// The reference decode_batch: per image, offsets -> boxes, softmax over classes, per class
// threshold + top candidates + NMS, then the image's max_output best. Returns one Detections
// per image, on the CPU, sorted by descending score.
std::vector<Detections> SsdDecode(const torch::Tensor& ploc, const torch::Tensor& pconf,
                                  const torch::Tensor& dboxes_xywh, double scale_xy,
                                  double scale_wh, const SsdDecodeOptions& options = {});

}  // namespace trainbench::models

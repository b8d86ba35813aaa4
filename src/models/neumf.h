// NeuMF (He et al. 2017, "Neural Collaborative Filtering"), the MLPerf `ncf` model, with the
// reference's parameter names (mf_user_embed, mf_item_embed, mlp_user_embed, mlp_item_embed,
// mlp.<k>, final) and initialisation (embeddings N(0, 0.01), MLP Glorot-uniform, final layer
// LeCun-uniform):
//   GMF:  mf_user_embed(u) * mf_item_embed(i)                         [mf_dim]
//   MLP:  relu(Linear(...relu(Linear([mlp_user_embed(u), mlp_item_embed(i)]))))
//         with layer sizes mlp_layer_sizes = {256, 256, 128, 64} (the first is the width of the
//         concatenated embeddings: 128 per side)                       [mlp_layer_sizes.back()]
//   out:  final([GMF, MLP])  -> one logit per (user, item)
// NeuMFScorer evaluates users x candidate items with the same function, factorised for speed:
// the first MLP layer splits into a user part and an item part (W [a; b] = W_a a + W_b b), and
// the GMF term folds the final layer's weights into the user side; both are computed once per
// user and once per item (a table each), so a (user, candidate) pair costs two gathers and the
// MLP layers after the first. Device-agnostic.
#pragma once

#include <torch/torch.h>

#include <vector>

namespace trainbench::models {

struct NeuMFOptions {
  NeuMFOptions(int64_t num_users, int64_t num_items)
      : num_users_(num_users), num_items_(num_items) {}
  TORCH_ARG(int64_t, num_users);
  TORCH_ARG(int64_t, num_items);
  TORCH_ARG(int64_t, mf_dim) = 64;
  TORCH_ARG(std::vector<int64_t>, mlp_layer_sizes) = std::vector<int64_t>{256, 256, 128, 64};
  // Embedding tables with sparse gradients (for a lazy optimizer: only the batch's rows).
  TORCH_ARG(bool, sparse_embeddings) = false;
};

class NeuMFImpl : public torch::nn::Module {
 public:
  explicit NeuMFImpl(const NeuMFOptions& options);

  // users, items: [N] int64 (or int32) indices. Returns [N] logits.
  torch::Tensor forward(const torch::Tensor& users, const torch::Tensor& items);

  const NeuMFOptions& options() const { return options_; }

  torch::nn::Embedding mf_user_embed{nullptr}, mf_item_embed{nullptr};
  torch::nn::Embedding mlp_user_embed{nullptr}, mlp_item_embed{nullptr};
  torch::nn::ModuleList mlp{nullptr};
  torch::nn::Linear final{nullptr};

 private:
  NeuMFOptions options_;
};
TORCH_MODULE(NeuMF);

// A snapshot of a NeuMF's weights prepared for scoring (see above). Build it after the last
// weight update (it does not follow later updates), under NoGradGuard.
struct NeuMFScorerOptions {
  // One pass per (user, candidate) pair on the CPU that gathers both first-layer rows, adds and
  // applies the ReLU, and computes the GMF dot product (instead of two table gathers, a broadcast
  // add, a ReLU and a batched product, each a pass over memory). Same values; CPU float only (a
  // CUDA model falls back to the tensor operations).
  TORCH_ARG(bool, fused_gather) = false;
  // The MLP layers after the first in this dtype (kFloat32 or kBFloat16: bf16 inputs and
  // weights, fp32 accumulation inside the GEMM); the final layer and the GMF term stay fp32.
  TORCH_ARG(torch::Dtype, mlp_dtype) = torch::kFloat32;
};

class NeuMFScorer {
 public:
  explicit NeuMFScorer(NeuMF& model, const NeuMFScorerOptions& options = {});
  // users: [B] indices; items: [B, C] candidate indices per user. Returns [B, C] logits, equal
  // (to float rounding) to model->forward() on every (user, candidate) pair.
  torch::Tensor Score(const torch::Tensor& users, const torch::Tensor& items) const;
  const torch::Tensor& user_hidden() const { return user_hidden_; }
  const torch::Tensor& item_hidden() const { return item_hidden_; }

 private:
  NeuMF model_;
  NeuMFScorerOptions options_;
  std::vector<std::pair<torch::Tensor, torch::Tensor>>
      mlp_;                    // layers 2..: (weight, bias) in mlp_dtype
  torch::Tensor user_hidden_;  // [U, h1]: W1_user . mlp_user_embed + b1
  torch::Tensor item_hidden_;  // [I, h1]: W1_item . mlp_item_embed
  torch::Tensor user_gmf_;     // [U, mf]: mf_user_embed * final.weight[:mf]
  torch::Tensor mlp_out_w_;    // [h_last, 1]: final.weight[mf:]
  torch::Tensor bias_;         // final.bias
};

}  // namespace trainbench::models

#include "models/neumf.h"

#include <ATen/Parallel.h>

#include <cmath>
#include <stdexcept>

namespace trainbench::models {

namespace {

void GlorotUniform(torch::nn::Linear& l) {
  const double fan_in = static_cast<double>(l->options.in_features());
  const double fan_out = static_cast<double>(l->options.out_features());
  const double limit = std::sqrt(6.0 / (fan_in + fan_out));
  torch::NoGradGuard g;
  l->weight.uniform_(-limit, limit);
}

void LecunUniform(torch::nn::Linear& l) {
  const double limit = std::sqrt(3.0 / static_cast<double>(l->options.in_features()));
  torch::NoGradGuard g;
  l->weight.uniform_(-limit, limit);
}

}  // namespace

NeuMFImpl::NeuMFImpl(const NeuMFOptions& o) : options_(o) {
  const auto& sizes = o.mlp_layer_sizes();
  if (sizes.size() < 2)
    throw std::invalid_argument("NeuMF: mlp_layer_sizes needs at least 2 sizes");
  if (sizes[0] % 2 != 0)
    throw std::invalid_argument("NeuMF: mlp_layer_sizes[0] must be even (user + item halves)");
  if (o.mf_dim() < 1 || o.num_users() < 1 || o.num_items() < 1) {
    throw std::invalid_argument("NeuMF: mf_dim, num_users and num_items must be >= 1");
  }
  auto table = [&](int64_t rows, int64_t dim) {
    return torch::nn::Embedding(
        torch::nn::EmbeddingOptions(rows, dim).sparse(o.sparse_embeddings()));
  };
  mf_user_embed = register_module("mf_user_embed", table(o.num_users(), o.mf_dim()));
  mf_item_embed = register_module("mf_item_embed", table(o.num_items(), o.mf_dim()));
  mlp_user_embed = register_module("mlp_user_embed", table(o.num_users(), sizes[0] / 2));
  mlp_item_embed = register_module("mlp_item_embed", table(o.num_items(), sizes[0] / 2));
  mlp = register_module("mlp", torch::nn::ModuleList());
  for (size_t k = 1; k < sizes.size(); ++k) {
    torch::nn::Linear l(sizes[k - 1], sizes[k]);
    GlorotUniform(l);
    mlp->push_back(l);
  }
  final = register_module("final", torch::nn::Linear(o.mf_dim() + sizes.back(), 1));
  LecunUniform(final);
  torch::NoGradGuard g;
  for (auto* e : {&mf_user_embed, &mf_item_embed, &mlp_user_embed, &mlp_item_embed}) {
    (*e)->weight.normal_(0.0, 0.01);
  }
}

torch::Tensor NeuMFImpl::forward(const torch::Tensor& users, const torch::Tensor& items) {
  torch::Tensor gmf = mf_user_embed(users) * mf_item_embed(items);
  torch::Tensor x = torch::cat({mlp_user_embed(users), mlp_item_embed(items)}, 1);
  for (const auto& m : *mlp) x = torch::relu(m->as<torch::nn::Linear>()->forward(x));
  return final(torch::cat({gmf, x}, 1)).squeeze(1);
}

namespace {

// out[p, :] = relu(item_hidden[items[p], :] + user_hidden[users[p / c], :]) in out's dtype (float
// or bf16), and gmf[p] = <mf_item[items[p], :], user_gmf[users[p / c], :]>, for the b x c pairs.
template <typename Out>
void GatherAddReluGmf(const torch::Tensor& user_hidden, const torch::Tensor& item_hidden,
                      const torch::Tensor& user_gmf, const torch::Tensor& mf_item,
                      const torch::Tensor& users, const torch::Tensor& items, torch::Tensor& out,
                      torch::Tensor& gmf) {
  const int64_t c = items.size(1), n = items.numel(), h = item_hidden.size(1), f = mf_item.size(1);
  const int64_t num_items = item_hidden.size(0), num_users = user_hidden.size(0);
  const float* uh = user_hidden.data_ptr<float>();
  const float* ih = item_hidden.data_ptr<float>();
  const float* ug = user_gmf.data_ptr<float>();
  const float* mi = mf_item.data_ptr<float>();
  const int64_t* us = users.data_ptr<int64_t>();
  const int64_t* it = items.data_ptr<int64_t>();
  Out* o = out.data_ptr<Out>();
  float* g = gmf.data_ptr<float>();
  at::parallel_for(0, n, 1024, [&](int64_t lo, int64_t hi) {
    for (int64_t p = lo; p < hi; ++p) {
      const int64_t u = us[p / c], i = it[p];
      TORCH_CHECK(u >= 0 && u < num_users && i >= 0 && i < num_items, "NeuMFScorer: pair ", p,
                  " (user ", u, ", item ", i, ") is out of range (", num_users, " users, ",
                  num_items, " items)");
      const float* a = ih + i * h;
      const float* b = uh + u * h;
      Out* dst = o + p * h;
      for (int64_t j = 0; j < h; ++j) {
        const float v = a[j] + b[j];
        dst[j] = static_cast<Out>(v > 0.0f ? v : 0.0f);
      }
      const float* x = mi + i * f;
      const float* y = ug + u * f;
      float s = 0.0f;
      for (int64_t j = 0; j < f; ++j) s += x[j] * y[j];
      g[p] = s;
    }
  });
}

}  // namespace

NeuMFScorer::NeuMFScorer(NeuMF& model, const NeuMFScorerOptions& options)
    : model_(model), options_(options) {
  torch::NoGradGuard g;
  TORCH_CHECK(options.mlp_dtype() == torch::kFloat32 || options.mlp_dtype() == torch::kBFloat16,
              "NeuMFScorer: mlp_dtype must be float32 or bfloat16");
  for (size_t k = 1; k < model->mlp->size(); ++k) {
    auto* l = (*model->mlp)[k]->as<torch::nn::Linear>();
    mlp_.emplace_back(l->weight.to(options.mlp_dtype()), l->bias.to(options.mlp_dtype()));
  }
  const int64_t half = model->options().mlp_layer_sizes()[0] / 2;
  const int64_t mf = model->options().mf_dim();
  auto* first = (*model->mlp)[0]->as<torch::nn::Linear>();
  user_hidden_ = torch::addmm(first->bias, model->mlp_user_embed->weight,
                              first->weight.narrow(1, 0, half).t());
  item_hidden_ = torch::mm(model->mlp_item_embed->weight, first->weight.narrow(1, half, half).t());
  const torch::Tensor& fw = model->final->weight;  // [1, mf + h_last]
  user_gmf_ = model->mf_user_embed->weight * fw.narrow(1, 0, mf);
  mlp_out_w_ = fw.narrow(1, mf, fw.size(1) - mf).t().contiguous();
  bias_ = model->final->bias;
}

torch::Tensor NeuMFScorer::Score(const torch::Tensor& users, const torch::Tensor& items) const {
  torch::NoGradGuard g;
  const int64_t b = items.size(0), c = items.size(1);
  TORCH_CHECK(users.size(0) == b, "NeuMFScorer: ", users.size(0), " users for ", b,
              " rows of candidates");
  torch::Tensor x, gmf;
  const torch::Tensor& mf_item = model_->mf_item_embed->weight;
  if (options_.fused_gather() && item_hidden_.is_cpu() &&
      item_hidden_.scalar_type() == torch::kFloat32) {
    const torch::Tensor u = users.to(torch::kInt64).contiguous(),
                        it = items.to(torch::kInt64).contiguous();
    const torch::Tensor ih = item_hidden_.contiguous(), uh = user_hidden_.contiguous();
    const torch::Tensor ug = user_gmf_.contiguous(), mi = mf_item.contiguous();
    x = torch::empty({b * c, ih.size(1)}, ih.options().dtype(options_.mlp_dtype()));
    gmf = torch::empty({b, c}, ih.options());
    if (options_.mlp_dtype() == torch::kBFloat16) {
      GatherAddReluGmf<at::BFloat16>(uh, ih, ug, mi, u, it, x, gmf);
    } else {
      GatherAddReluGmf<float>(uh, ih, ug, mi, u, it, x, gmf);
    }
  } else {
    torch::Tensor flat = items.reshape({-1});
    x = torch::relu(item_hidden_.index_select(0, flat).view({b, c, -1}) +
                    user_hidden_.index_select(0, users).unsqueeze(1))
            .view({b * c, -1})
            .to(options_.mlp_dtype());
    // <mu * mi, w_g> = <mu * w_g, mi>: one batched dot product per pair.
    torch::Tensor mi = mf_item.index_select(0, flat).view({b, c, -1});
    gmf = torch::bmm(mi, user_gmf_.index_select(0, users).unsqueeze(2)).squeeze(2);
  }
  for (const auto& [w, bias] : mlp_) x = torch::relu(torch::linear(x, w, bias));
  return torch::addmm(bias_, x.to(torch::kFloat32), mlp_out_w_).view({b, c}) + gmf;
}

}  // namespace trainbench::models

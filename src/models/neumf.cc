#include "models/neumf.h"

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
  if (sizes.size() < 2) throw std::invalid_argument("NeuMF: mlp_layer_sizes needs at least 2 sizes");
  if (sizes[0] % 2 != 0) throw std::invalid_argument("NeuMF: mlp_layer_sizes[0] must be even (user + item halves)");
  if (o.mf_dim() < 1 || o.num_users() < 1 || o.num_items() < 1) {
    throw std::invalid_argument("NeuMF: mf_dim, num_users and num_items must be >= 1");
  }
  auto table = [&](int64_t rows, int64_t dim) {
    return torch::nn::Embedding(torch::nn::EmbeddingOptions(rows, dim).sparse(o.sparse_embeddings()));
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

NeuMFScorer::NeuMFScorer(NeuMF& model) : model_(model) {
  torch::NoGradGuard g;
  const int64_t half = model->options().mlp_layer_sizes()[0] / 2;
  const int64_t mf = model->options().mf_dim();
  auto* first = (*model->mlp)[0]->as<torch::nn::Linear>();
  user_hidden_ = torch::addmm(first->bias, model->mlp_user_embed->weight, first->weight.narrow(1, 0, half).t());
  item_hidden_ = torch::mm(model->mlp_item_embed->weight, first->weight.narrow(1, half, half).t());
  const torch::Tensor& fw = model->final->weight;  // [1, mf + h_last]
  user_gmf_ = model->mf_user_embed->weight * fw.narrow(1, 0, mf);
  mlp_out_w_ = fw.narrow(1, mf, fw.size(1) - mf).t().contiguous();
  bias_ = model->final->bias;
}

torch::Tensor NeuMFScorer::Score(const torch::Tensor& users, const torch::Tensor& items) const {
  torch::NoGradGuard g;
  const int64_t b = items.size(0), c = items.size(1);
  torch::Tensor flat = items.reshape({-1});
  torch::Tensor x = torch::relu(item_hidden_.index_select(0, flat).view({b, c, -1}) +
                                user_hidden_.index_select(0, users).unsqueeze(1))
                        .view({b * c, -1});
  for (size_t k = 1; k < model_->mlp->size(); ++k) {
    x = torch::relu((*model_->mlp)[k]->as<torch::nn::Linear>()->forward(x));
  }
  // <mu * mi, w_g> = <mu * w_g, mi>: one batched dot product per pair.
  torch::Tensor mi = model_->mf_item_embed->weight.index_select(0, flat).view({b, c, -1});
  torch::Tensor gmf = torch::bmm(mi, user_gmf_.index_select(0, users).unsqueeze(2)).squeeze(2);
  return torch::addmm(bias_, x, mlp_out_w_).view({b, c}) + gmf;
}

}  // namespace trainbench::models

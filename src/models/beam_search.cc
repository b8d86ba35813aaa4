#include "models/beam_search.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace trainbench::models {

namespace {

// Source lengths without eos and pad.
std::vector<int64_t> SourceLengths(const torch::Tensor& src) {
  torch::Tensor n = src.ne(kPadId).sum(1).to(torch::kCPU).to(torch::kInt64);
  std::vector<int64_t> out(static_cast<size_t>(src.size(0)));
  auto a = n.accessor<int64_t, 1>();
  for (int64_t b = 0; b < src.size(0); ++b)
    out[static_cast<size_t>(b)] = std::max<int64_t>(0, a[b] - 1);
  return out;
}

std::vector<int64_t> MaxLengths(const torch::Tensor& src, const BeamSearchOptions& o) {
  std::vector<int64_t> len = SourceLengths(src);
  for (auto& l : len)
    l = std::max<int64_t>(
        1, static_cast<int64_t>(std::floor(o.max_len_a * static_cast<double>(l))) + o.max_len_b);
  return len;
}

}  // namespace

std::vector<std::vector<int32_t>> GreedyDecode(Seq2Seq& model, const torch::Tensor& src,
                                               const BeamSearchOptions& o) {
  torch::NoGradGuard no_grad;
  const int64_t B = src.size(0);
  const std::vector<int64_t> max_len = MaxLengths(src, o);
  const int64_t longest = *std::max_element(max_len.begin(), max_len.end());
  auto state = model.StartDecoding(src, 1);
  torch::Tensor tokens =
      torch::full({B}, kBosId, torch::TensorOptions().dtype(torch::kInt64).device(src.device()));
  std::vector<std::vector<int32_t>> out(static_cast<size_t>(B));
  std::vector<bool> done(static_cast<size_t>(B), false);
  for (int64_t t = 0; t < longest; ++t) {
    DecodeStep step = model.Step(*state, tokens);
    tokens = step.log_probs.argmax(1);
    torch::Tensor cpu = tokens.to(torch::kCPU);
    auto a = cpu.accessor<int64_t, 1>();
    bool all = true;
    for (int64_t b = 0; b < B; ++b) {
      if (done[static_cast<size_t>(b)]) continue;
      if (a[b] == kEosId || t + 1 >= max_len[static_cast<size_t>(b)]) {
        if (a[b] != kEosId) out[static_cast<size_t>(b)].push_back(static_cast<int32_t>(a[b]));
        done[static_cast<size_t>(b)] = true;
      } else {
        out[static_cast<size_t>(b)].push_back(static_cast<int32_t>(a[b]));
        all = false;
      }
    }
    if (all) break;
  }
  return out;
}

std::vector<std::vector<int32_t>> BeamSearch(Seq2Seq& model, const torch::Tensor& src,
                                             const BeamSearchOptions& o) {
  if (o.beam < 1) throw std::invalid_argument("BeamSearch: beam must be >= 1");
  torch::NoGradGuard no_grad;
  const int64_t B = src.size(0), K = o.beam, N = B * K;
  const torch::Device device = src.device();
  const std::vector<int64_t> max_len = MaxLengths(src, o);
  const int64_t longest = *std::max_element(max_len.begin(), max_len.end());
  const double kNegInf = -std::numeric_limits<double>::infinity();
  auto lp = [&](int64_t len) {
    return o.length_alpha == 0
               ? 1.0
               : std::pow((o.length_const + static_cast<double>(len)) / (o.length_const + 1.0),
                          o.length_alpha);
  };

  auto state = model.StartDecoding(src, K);
  torch::Tensor tokens =
      torch::full({N}, kBosId, torch::TensorOptions().dtype(torch::kInt64).device(device));
  // Only beam 0 of each sentence is live at the start (all beams hold the same bos).
  std::vector<double> scores(static_cast<size_t>(N), kNegInf);
  for (int64_t b = 0; b < B; ++b) scores[static_cast<size_t>(b * K)] = 0.0;
  std::vector<std::vector<int32_t>> hyp(static_cast<size_t>(N));
  torch::Tensor coverage;  // [N, S] summed attention
  struct Finished {
    double score;
    std::vector<int32_t> tokens;
  };
  std::vector<std::vector<Finished>> finished(static_cast<size_t>(B));
  std::vector<bool> done(static_cast<size_t>(B), false);
  std::vector<double> best_finished(static_cast<size_t>(B), kNegInf);      // normalized score
  std::vector<double> best_finished_raw(static_cast<size_t>(B), kNegInf);  // log-probability
  torch::Tensor src_real = src.ne(kPadId).to(torch::kFloat);  // [B, S]; eos counts as a position

  auto coverage_penalty = [&](const torch::Tensor& cov_rows /*[M,S]*/,
                              const torch::Tensor& real_rows) {
    // beta * sum_i log(min(cov, 1)) over real source positions.
    torch::Tensor c = cov_rows.clamp(1e-10, 1.0).log() * real_rows;
    return (c.sum(1) * o.coverage_beta).to(torch::kCPU).to(torch::kDouble);
  };

  for (int64_t t = 0; t < longest; ++t) {
    DecodeStep step = model.Step(*state, tokens);
    const int64_t V = step.log_probs.size(1);
    const bool use_cov = o.coverage_beta != 0.0;
    torch::Tensor new_cov;
    if (use_cov) {
      if (!step.attention.defined())
        throw std::invalid_argument(
            "BeamSearch: a coverage penalty needs a model that returns attention");
      new_cov = coverage.defined() ? coverage + step.attention : step.attention.clone();
    }
    torch::Tensor base = torch::tensor(scores, torch::kDouble).to(device).to(torch::kFloat);
    torch::Tensor cand = (step.log_probs + base.unsqueeze(1)).view({B, K * V});
    const int64_t take = std::min<int64_t>(2 * K, K * V);
    auto top = cand.topk(take, 1);
    torch::Tensor values = std::get<0>(top).to(torch::kCPU).to(torch::kDouble).contiguous();
    torch::Tensor indices = std::get<1>(top).to(torch::kCPU).contiguous();
    auto va = values.accessor<double, 2>();
    auto ia = indices.accessor<int64_t, 2>();

    // Coverage penalties of the rows that may finish now: computed per source row on demand.
    torch::Tensor cov_pen;
    if (use_cov) {
      torch::Tensor real_rows = src_real.repeat_interleave(K, 0);
      cov_pen = coverage_penalty(new_cov, real_rows);
    }
    auto cov_of = [&](int64_t row) { return use_cov ? cov_pen[row].item<double>() : 0.0; };

    std::vector<int64_t> keep_rows(static_cast<size_t>(N));
    std::vector<int64_t> keep_tokens(static_cast<size_t>(N), kEosId);
    std::vector<double> keep_scores(static_cast<size_t>(N), kNegInf);
    std::vector<std::vector<int32_t>> new_hyp(static_cast<size_t>(N));
    bool all_done = true;
    for (int64_t b = 0; b < B; ++b) {
      const size_t bs = static_cast<size_t>(b);
      for (int64_t k = 0; k < K; ++k) keep_rows[static_cast<size_t>(b * K + k)] = b * K + k;
      if (done[bs]) continue;
      const bool last = t + 1 >= max_len[bs];
      int64_t live = 0;
      for (int64_t j = 0; j < take && live < K; ++j) {
        const double v = va[b][j];
        if (!std::isfinite(v)) break;
        const int64_t beam = ia[b][j] / V, tok = ia[b][j] % V;
        const int64_t row = b * K + beam;
        if (tok == kEosId || last) {
          std::vector<int32_t> seq = hyp[static_cast<size_t>(row)];
          if (tok != kEosId) seq.push_back(static_cast<int32_t>(tok));
          const int64_t len = static_cast<int64_t>(seq.size()) + 1;
          const double score = v / lp(len) + cov_of(row);
          best_finished[bs] = std::max(best_finished[bs], score);
          best_finished_raw[bs] = std::max(best_finished_raw[bs], v);
          finished[bs].push_back({score, std::move(seq)});
          continue;
        }
        const size_t dst = static_cast<size_t>(b * K + live);
        keep_rows[dst] = row;
        keep_tokens[dst] = tok;
        keep_scores[dst] = v;
        new_hyp[dst] = hyp[static_cast<size_t>(row)];
        new_hyp[dst].push_back(static_cast<int32_t>(tok));
        ++live;
      }
      // No live hypothesis can beat the best finished one any more: log-probabilities only
      // fall, lp grows with the length (so the best a live one can reach is its score over
      // lp(limit)) and the coverage penalty is <= 0.
      // Or, fairseq's rule, `beam` hypotheses have finished, but only once the best of them is
      // also more likely than every live one (so beam 1 is greedy decoding, and short unlikely
      // hypotheses cannot end the search early).
      double best_live = kNegInf;
      for (int64_t k = 0; k < live; ++k)
        best_live = std::max(best_live, keep_scores[static_cast<size_t>(b * K + k)]);
      const double live_bound = best_live / lp(max_len[bs] + 1);
      const bool enough =
          static_cast<int64_t>(finished[bs].size()) >= K && best_finished_raw[bs] >= best_live;
      if (last || live == 0 || best_finished[bs] >= live_bound || enough) {
        done[bs] = true;
        for (int64_t k = 0; k < K; ++k) keep_scores[static_cast<size_t>(b * K + k)] = kNegInf;
      } else {
        all_done = false;
      }
    }
    if (all_done) break;
    torch::Tensor index = torch::tensor(keep_rows, torch::kInt64).to(device);
    state->Select(index);
    if (use_cov) coverage = new_cov.index_select(0, index);
    tokens = torch::tensor(keep_tokens, torch::kInt64).to(device);
    scores = std::move(keep_scores);
    hyp = std::move(new_hyp);
  }

  std::vector<std::vector<int32_t>> out(static_cast<size_t>(B));
  for (int64_t b = 0; b < B; ++b) {
    auto& f = finished[static_cast<size_t>(b)];
    if (f.empty()) continue;  // cannot happen: the length limit finishes every sentence
    auto best = std::max_element(
        f.begin(), f.end(), [](const Finished& x, const Finished& y) { return x.score < y.score; });
    out[static_cast<size_t>(b)] = best->tokens;
  }
  return out;
}

}  // namespace trainbench::models

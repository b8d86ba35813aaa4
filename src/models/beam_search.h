// Batched beam search over a Seq2Seq model, as the translation references decode:
//  - every sentence of the batch keeps `beam` live hypotheses; each step expands all of them,
//    takes the 2 x beam best continuations by accumulated log-probability, moves those ending
//    in eos (or reaching the sentence's length limit) to the sentence's finished list, and keeps
//    the best `beam` others live (so beam 1 is greedy decoding);
//  - a sentence is done when no live hypothesis can beat its best finished one any more (as
//    tensor2tensor's beam search stops: the best live score over lp at the length limit is
//    below the best finished score), or at its length limit max_len_a * source_length +
//    max_len_b (source without eos), or when `beam` hypotheses have finished and the most
//    likely of them is more likely than every live one (fairseq stops at `beam` finished
//    hypotheses alone, which lets short unlikely ones end the search before the best has
//    finished); the batch ends when all sentences are done. With beam 1 this is greedy
//    decoding: the sentence ends when eos is the most likely next token.
//  - finished hypotheses are ranked by GNMT's score (Wu et al. 2016, eq. 14):
//      log P(Y|X) / lp(Y) + cp(X; Y),  lp(Y) = ((len_const + |Y|) / (len_const + 1))^alpha,
//      cp = beta * sum over source positions i of log(min(sum over steps t of a_ti, 1)),
//    |Y| counting the eos, a_ti the model's attention (head-averaged); alpha 0 switches length
//    normalization off, beta 0 the coverage penalty (which needs a model that returns
//    attention).
// Returns each sentence's best hypothesis without bos and eos.
#pragma once

#include <cstdint>
#include <vector>

#include "models/seq2seq.h"

namespace trainbench::models {

struct BeamSearchOptions {
  int64_t beam = 4;
  double length_alpha = 0.6;   // GNMT reference: 0.6 (len_norm_factor)
  double length_const = 5.0;   // GNMT reference: 5.0 (len_norm_const)
  double coverage_beta = 0.0;  // GNMT reference: 0.1 (cov_penalty_factor)
  double max_len_a = 1.5;
  int64_t max_len_b = 10;
};

// src [B, S] (MakeSourceBatch). Call with the model in eval mode; uses NoGradGuard itself.
std::vector<std::vector<int32_t>> BeamSearch(Seq2Seq& model, const torch::Tensor& src,
                                             const BeamSearchOptions& options);

// Greedy decoding (argmax at every step) with the same length limits, for tests and probes.
std::vector<std::vector<int32_t>> GreedyDecode(Seq2Seq& model, const torch::Tensor& src,
                                               const BeamSearchOptions& options);

}  // namespace trainbench::models

#include "models/beam_search.h"

#include <gtest/gtest.h>

#include <cmath>

#include "models/transformer.h"

namespace trainbench::models {
namespace {

// A model whose next-token distribution depends only on the last token (a Markov table), and
// whose attention over a 2-position source depends on it too. Tokens: 4 = x, 5 = y, 6..8 = z.
//   bos -> x 0.6, y 0.4;  x -> z1 .34, z2 .33, z3 .33;  y -> eos .9, z1 .1;  z* -> eos 1.
// Greedy: x z1 (log P = ln .6 + ln .34 = -1.59); best sequence: y (ln .4 + ln .9 = -1.02).
class MarkovModel : public Seq2Seq {
 public:
  static constexpr int64_t V = 9;
  MarkovModel() {
    table_ = torch::full({V, V}, 1e-9, torch::kFloat);
    auto set = [&](int from, std::initializer_list<std::pair<int, double>> to) {
      for (auto [t, p] : to) table_[from][t] = p;
    };
    set(kBosId, {{4, 0.6}, {5, 0.4}});
    set(4, {{6, 0.34}, {7, 0.33}, {8, 0.33}});
    set(5, {{kEosId, 0.9}, {6, 0.1}});
    for (int z = 6; z <= 8; ++z) set(z, {{kEosId, 1.0}});
    set(kEosId, {{kEosId, 1.0}});
    table_ = table_.log();
    attention_ = torch::zeros({V, 2});
    attention_.fill_(0.5);
    attention_[5] = torch::tensor({1.0, 0.0});
  }
  torch::Tensor Logits(const torch::Tensor&, const torch::Tensor&) override {
    throw std::logic_error("unused");
  }
  struct State : DecoderState {
    void Select(const torch::Tensor&) override {}
  };
  std::unique_ptr<DecoderState> StartDecoding(const torch::Tensor&, int64_t) override {
    return std::make_unique<State>();
  }
  DecodeStep Step(DecoderState&, const torch::Tensor& tokens) override {
    return {table_.index_select(0, tokens), attention_.index_select(0, tokens)};
  }
  int64_t vocab_size() const override { return V; }

 private:
  torch::Tensor table_, attention_;
};

torch::Tensor OneSource() {
  return torch::tensor({int64_t{7}, kEosId}, torch::kInt64).unsqueeze(0);
}

TEST(BeamSearchTest, FindsTheMoreLikelySequenceGreedyMisses) {
  MarkovModel m;
  BeamSearchOptions o;
  o.length_alpha = 0;
  EXPECT_EQ(GreedyDecode(m, OneSource(), o), (std::vector<std::vector<int32_t>>{{4, 6}}));
  o.beam = 1;
  EXPECT_EQ(BeamSearch(m, OneSource(), o), (std::vector<std::vector<int32_t>>{{4, 6}}));
  o.beam = 2;
  EXPECT_EQ(BeamSearch(m, OneSource(), o), (std::vector<std::vector<int32_t>>{{5}}));
}

TEST(BeamSearchTest, LengthNormalizationFavoursLongerHypotheses) {
  // Finished: y (-1.02, |Y| 2), x z1 (-1.59, |Y| 3). lp = ((5 + |Y|) / 6)^alpha.
  // alpha 2: -0.75 vs -0.89 (y); alpha 5: -0.47 vs -0.38 (x z1).
  MarkovModel m;
  BeamSearchOptions o;
  o.beam = 2;
  o.length_alpha = 2;
  EXPECT_EQ(BeamSearch(m, OneSource(), o), (std::vector<std::vector<int32_t>>{{5}}));
  o.length_alpha = 5;
  EXPECT_EQ(BeamSearch(m, OneSource(), o), (std::vector<std::vector<int32_t>>{{4, 6}}));
}

TEST(BeamSearchTest, CoveragePenaltyFavoursHypothesesThatAttendEverywhere) {
  // y's steps attend (.5,.5) then (1,0): coverage (1.5, .5) -> beta * ln .5; x z1 attends
  // (.5,.5) three times: coverage (1.5, 1.5) -> 0. beta 1: -1.02 - 0.69 < -1.59.
  MarkovModel m;
  BeamSearchOptions o;
  o.beam = 2;
  o.length_alpha = 0;
  o.coverage_beta = 1.0;
  EXPECT_EQ(BeamSearch(m, OneSource(), o), (std::vector<std::vector<int32_t>>{{4, 6}}));
  o.coverage_beta = 0.1;
  EXPECT_EQ(BeamSearch(m, OneSource(), o), (std::vector<std::vector<int32_t>>{{5}}));
}

TEST(BeamSearchTest, LengthLimitEndsEverySentence) {
  MarkovModel m;
  BeamSearchOptions o;
  o.length_alpha = 0;
  o.max_len_a = 0;
  o.max_len_b = 1;
  EXPECT_EQ(BeamSearch(m, OneSource(), o), (std::vector<std::vector<int32_t>>{{4}}));
  EXPECT_EQ(GreedyDecode(m, OneSource(), o), (std::vector<std::vector<int32_t>>{{4}}));
}

TEST(BeamSearchTest, BeamOneEqualsGreedyOnARandomTransformer) {
  for (int seed = 0; seed < 3; ++seed) {
    torch::manual_seed(seed);
    Transformer t(
        TransformerOptions(30).d_model(16).heads(2).ffn_dim(32).encoder_layers(1).decoder_layers(
            2));
    t->eval();
    torch::Tensor src = torch::randint(4, 30, {6, 7}, torch::kInt64);
    src.select(1, 6).fill_(kEosId);
    src[0].slice(0, 3).fill_(kPadId);
    src[0][3] = kEosId;
    BeamSearchOptions o;
    o.beam = 1;
    EXPECT_EQ(BeamSearch(*t, src, o), GreedyDecode(*t, src, o)) << "seed " << seed;
  }
}

}  // namespace
}  // namespace trainbench::models

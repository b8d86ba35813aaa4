#include "models/transformer.h"

#include <gtest/gtest.h>

#include "models/beam_search.h"

namespace trainbench::models {
namespace {

TransformerOptions Tiny() {
  return TransformerOptions(20)
      .d_model(16)
      .heads(2)
      .ffn_dim(32)
      .encoder_layers(2)
      .decoder_layers(2)
      .dropout(0.1);
}

std::vector<std::vector<int32_t>> Seqs(std::initializer_list<std::vector<int32_t>> l) { return l; }
std::vector<const std::vector<int32_t>*> Ptrs(const std::vector<std::vector<int32_t>>& v) {
  std::vector<const std::vector<int32_t>*> p;
  for (const auto& x : v) p.push_back(&x);
  return p;
}

TEST(TransformerTest, IncrementalDecodingEqualsTeacherForcing) {
  torch::manual_seed(1);
  Transformer m(Tiny());
  m->eval();
  torch::NoGradGuard g;
  auto src = Seqs({{5, 6, 7, 8}, {9, 10}});
  auto tgt = Seqs({{11, 12, 13}, {14, 15, 16}});
  Seq2SeqBatch b = MakeSeq2SeqBatch(Ptrs(src), Ptrs(tgt));
  torch::Tensor logits = m->Logits(b.src, b.tgt_in);
  ASSERT_EQ(logits.sizes(), (std::vector<int64_t>{2, 4, 20}));
  torch::Tensor want = torch::log_softmax(logits, -1);
  auto state = m->StartDecoding(b.src, 1);
  for (int64_t t = 0; t < b.tgt_in.size(1); ++t) {
    DecodeStep s = m->Step(*state, b.tgt_in.select(1, t));
    EXPECT_LT((s.log_probs - want.select(1, t)).abs().max().item<double>(), 1e-5)
        << "position " << t;
  }
}

TEST(TransformerTest, PaddingDoesNotChangeASentence) {
  torch::manual_seed(2);
  Transformer m(Tiny());
  m->eval();
  torch::NoGradGuard g;
  auto src = Seqs({{5, 6}, {7, 8, 9, 10, 11, 12}});
  auto tgt = Seqs({{13, 14}, {15, 16, 17, 18, 19}});
  Seq2SeqBatch both = MakeSeq2SeqBatch(Ptrs(src), Ptrs(tgt));
  auto src1 = Seqs({{5, 6}});
  auto tgt1 = Seqs({{13, 14}});
  Seq2SeqBatch alone = MakeSeq2SeqBatch(Ptrs(src1), Ptrs(tgt1));
  torch::Tensor a = m->Logits(alone.src, alone.tgt_in)[0];
  torch::Tensor b = m->Logits(both.src, both.tgt_in)[0].slice(0, 0, a.size(0));
  EXPECT_LT((a - b).abs().max().item<double>(), 1e-5);
}

TEST(TransformerTest, SelectReordersTheCache) {
  torch::manual_seed(3);
  Transformer m(Tiny());
  m->eval();
  torch::NoGradGuard g;
  auto src = Seqs({{5, 6, 7}, {8, 9}});
  torch::Tensor s = MakeSourceBatch(Ptrs(src));
  torch::Tensor first = torch::tensor({2, 2, 2, 2}, torch::kInt64);  // rows: s0 s0 s1 s1
  torch::Tensor tok = torch::tensor({10, 11, 12, 13}, torch::kInt64);
  // Reference: the same second step on a fresh state without reordering.
  auto ref_state = m->StartDecoding(s, 2);
  m->Step(*ref_state, first);
  torch::Tensor ref = m->Step(*ref_state, tok).log_probs;
  // Within sentences (the encoder side is not copied), then across sentences, then a row
  // duplicated.
  for (auto perm_list : {std::vector<int64_t>{1, 0, 3, 2}, std::vector<int64_t>{2, 3, 0, 1},
                         std::vector<int64_t>{3, 3, 0, 1}}) {
    auto st = m->StartDecoding(s, 2);
    m->Step(*st, first);
    torch::Tensor perm = torch::tensor(perm_list, torch::kInt64);
    st->Select(perm);
    torch::Tensor got = m->Step(*st, tok.index_select(0, perm)).log_probs;
    EXPECT_LT((got - ref.index_select(0, perm)).abs().max().item<double>(), 1e-5) << perm;
  }
}

TEST(TransformerTest, LearnsATinyReversalTask) {
  torch::manual_seed(4);
  Transformer m(TransformerOptions(16)
                    .d_model(32)
                    .heads(4)
                    .ffn_dim(64)
                    .encoder_layers(1)
                    .decoder_layers(1)
                    .dropout(0.0)
                    .attention_dropout(0)
                    .relu_dropout(0));
  std::vector<std::vector<int32_t>> src, tgt;
  for (int i = 0; i < 12; ++i) {
    std::vector<int32_t> s;
    for (int j = 0; j < 3 + i % 3; ++j) s.push_back(4 + (i * 7 + j * 5) % 12);
    src.push_back(s);
    tgt.push_back(std::vector<int32_t>(s.rbegin(), s.rend()));
  }
  Seq2SeqBatch b = MakeSeq2SeqBatch(Ptrs(src), Ptrs(tgt));
  torch::optim::Adam opt(m->parameters(), torch::optim::AdamOptions(3e-3));
  double loss_value = 0;
  for (int step = 0; step < 600; ++step) {
    torch::Tensor logits = m->Logits(b.src, b.tgt_in);
    torch::Tensor loss = torch::nn::functional::cross_entropy(
        logits.reshape({-1, 16}), b.tgt_out.reshape({-1}),
        torch::nn::functional::CrossEntropyFuncOptions().ignore_index(kPadId));
    opt.zero_grad();
    loss.backward();
    opt.step();
    loss_value = loss.item<double>();
  }
  EXPECT_LT(loss_value, 0.01);
  m->eval();
  BeamSearchOptions o;
  EXPECT_EQ(GreedyDecode(*m, b.src, o), tgt);
  o.beam = 1;
  EXPECT_EQ(BeamSearch(*m, b.src, o), tgt);
  o.beam = 4;
  EXPECT_EQ(BeamSearch(*m, b.src, o), tgt);
}

TEST(TransformerTest, BadOptionsThrow) {
  EXPECT_THROW(Transformer(TransformerOptions(20).d_model(15).heads(2)), std::invalid_argument);
  EXPECT_THROW(Transformer(TransformerOptions(20).d_model(16).encoder_layers(0)),
               std::invalid_argument);
}

}  // namespace
}  // namespace trainbench::models

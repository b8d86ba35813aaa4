#include "models/gnmt.h"

#include <gtest/gtest.h>

#include <random>

#include "models/beam_search.h"

namespace trainbench::models {
namespace {

GNMTOptions Tiny() { return GNMTOptions(20).hidden_size(16).num_layers(3).dropout(0.2); }

std::vector<std::vector<int32_t>> Seqs(std::initializer_list<std::vector<int32_t>> l) { return l; }
std::vector<const std::vector<int32_t>*> Ptrs(const std::vector<std::vector<int32_t>>& v) {
  std::vector<const std::vector<int32_t>*> p;
  for (const auto& x : v) p.push_back(&x);
  return p;
}

double MaxDiff(const torch::Tensor& a, const torch::Tensor& b) {
  return (a - b).abs().max().item<double>();
}

TEST(GNMTTest, IncrementalDecodingEqualsTeacherForcing) {
  torch::manual_seed(1);
  GNMT m(Tiny());
  m->eval();
  torch::NoGradGuard g;
  auto src = Seqs({{5, 6, 7, 8}, {9, 10}, {11, 12, 13}});
  auto tgt = Seqs({{11, 12, 13}, {14, 15, 16, 17}, {18}});
  Seq2SeqBatch b = MakeSeq2SeqBatch(Ptrs(src), Ptrs(tgt));
  torch::Tensor logits = m->Logits(b.src, b.tgt_in);
  ASSERT_EQ(logits.sizes(), (std::vector<int64_t>{3, 5, 20}));
  EXPECT_EQ(logits.dtype(), torch::kFloat);
  torch::Tensor want = torch::log_softmax(logits, -1);
  auto state = m->StartDecoding(b.src, 1);
  for (int64_t t = 0; t < b.tgt_in.size(1); ++t) {
    DecodeStep s = m->Step(*state, b.tgt_in.select(1, t));
    ASSERT_EQ(s.log_probs.sizes(), (std::vector<int64_t>{3, 20}));
    EXPECT_LT(MaxDiff(s.log_probs, want.select(1, t)), 1e-5) << "position " << t;
  }
}

TEST(GNMTTest, DropoutOnlyInTraining) {
  torch::manual_seed(2);
  GNMT m(Tiny());
  auto src = Seqs({{5, 6, 7}});
  auto tgt = Seqs({{8, 9}});
  Seq2SeqBatch b = MakeSeq2SeqBatch(Ptrs(src), Ptrs(tgt));
  torch::NoGradGuard g;
  EXPECT_GT(MaxDiff(m->Logits(b.src, b.tgt_in), m->Logits(b.src, b.tgt_in)), 1e-6);
  m->eval();
  EXPECT_EQ(MaxDiff(m->Logits(b.src, b.tgt_in), m->Logits(b.src, b.tgt_in)), 0.0);
}

TEST(GNMTTest, PaddingDoesNotChangeASentence) {
  torch::manual_seed(3);
  GNMT m(Tiny());
  m->eval();
  torch::NoGradGuard g;
  auto src = Seqs({{5, 6}, {7, 8, 9, 10, 11, 12}, {13, 14, 15}});
  auto tgt = Seqs({{13, 14}, {15, 16, 17, 18, 19}, {4}});
  Seq2SeqBatch batch = MakeSeq2SeqBatch(Ptrs(src), Ptrs(tgt));
  torch::Tensor enc_batch = m->Encode(batch.src);
  torch::Tensor logits_batch = m->Logits(batch.src, batch.tgt_in);
  for (size_t i : {size_t{0}, size_t{2}}) {
    std::vector<std::vector<int32_t>> s1{src[i]}, t1{tgt[i]};
    Seq2SeqBatch alone = MakeSeq2SeqBatch(Ptrs(s1), Ptrs(t1));
    const int64_t row = static_cast<int64_t>(i);
    // The encoder outputs at the real positions (the bidirectional layer's backward direction
    // must start at the eos, not at the padding).
    torch::Tensor enc = m->Encode(alone.src)[0];
    EXPECT_LT(MaxDiff(enc, enc_batch[row].slice(0, 0, enc.size(0))), 1e-5) << "sentence " << i;
    torch::Tensor a = m->Logits(alone.src, alone.tgt_in)[0];
    EXPECT_LT(MaxDiff(a, logits_batch[row].slice(0, 0, a.size(0))), 1e-5) << "sentence " << i;
  }
}

TEST(GNMTTest, AttentionIsADistributionOverRealPositions) {
  torch::manual_seed(4);
  GNMT m(Tiny());
  m->eval();
  torch::NoGradGuard g;
  auto src = Seqs({{5, 6}, {7, 8, 9, 10, 11}, {12, 13, 14}});
  torch::Tensor s = MakeSourceBatch(Ptrs(src));  // [3, 6]
  torch::Tensor pad = s.eq(kPadId).repeat_interleave(2, 0);
  auto state = m->StartDecoding(s, 2);
  torch::Tensor tokens = torch::full({6}, kBosId, torch::kInt64);
  for (int t = 0; t < 3; ++t) {
    DecodeStep step = m->Step(*state, tokens);
    ASSERT_TRUE(step.attention.defined());
    ASSERT_EQ(step.attention.sizes(), (std::vector<int64_t>{6, 6}));
    EXPECT_EQ(step.attention.dtype(), torch::kFloat);
    EXPECT_LT(MaxDiff(step.attention.sum(1), torch::ones({6})), 1e-5);
    EXPECT_EQ(step.attention.masked_select(pad).abs().max().item<double>(), 0.0);
    EXPECT_GT(step.attention.masked_select(~pad).min().item<double>(), 0.0);
    EXPECT_LT(MaxDiff(step.log_probs.exp().sum(1), torch::ones({6})), 1e-5);
    tokens = step.log_probs.argmax(1);
  }
}

TEST(GNMTTest, SelectReordersTheState) {
  torch::manual_seed(5);
  GNMT m(Tiny());
  m->eval();
  torch::NoGradGuard g;
  auto src = Seqs({{5, 6, 7}, {8, 9}});
  torch::Tensor s = MakeSourceBatch(Ptrs(src));
  auto state = m->StartDecoding(s, 2);  // rows: s0 s0 s1 s1
  torch::Tensor first = torch::tensor({2, 2, 2, 2}, torch::kInt64);
  torch::Tensor tok = torch::tensor({10, 11, 12, 13}, torch::kInt64);
  m->Step(*state, first);
  m->Step(*state, tok);  // rows now differ in their LSTM states
  torch::Tensor tok2 = torch::tensor({14, 15, 16, 17}, torch::kInt64);
  // Reference: the same steps on a fresh state without reordering.
  auto ref_state = m->StartDecoding(s, 2);
  m->Step(*ref_state, first);
  m->Step(*ref_state, tok);
  DecodeStep ref = m->Step(*ref_state, tok2);
  // A permutation that also moves rows across sentences, and one that duplicates a row.
  for (const auto& p : {std::vector<int64_t>{1, 0, 3, 2}, std::vector<int64_t>{3, 0, 2, 1},
                        std::vector<int64_t>{1, 1, 2, 2}}) {
    auto st = m->StartDecoding(s, 2);
    m->Step(*st, first);
    m->Step(*st, tok);
    torch::Tensor perm = torch::tensor(p, torch::kInt64);
    st->Select(perm);
    DecodeStep got = m->Step(*st, tok2.index_select(0, perm));
    EXPECT_LT(MaxDiff(got.log_probs, ref.log_probs.index_select(0, perm)), 1e-5);
    EXPECT_LT(MaxDiff(got.attention, ref.attention.index_select(0, perm)), 1e-6);
  }
  // Rows of one sentence agree before they diverge.
  auto st = m->StartDecoding(s, 2);
  DecodeStep s0 = m->Step(*st, first);
  EXPECT_LT(MaxDiff(s0.log_probs[0], s0.log_probs[1]), 1e-6);
  EXPECT_GT(MaxDiff(s0.log_probs[1], s0.log_probs[2]), 1e-6);
}

TEST(GNMTTest, LearnsATinyCopyTask) {
  torch::manual_seed(6);
  GNMT m(GNMTOptions(20).hidden_size(32).num_layers(2).dropout(0.0));
  std::mt19937 rng(7);
  std::uniform_int_distribution<int32_t> tok(4, 19), len(3, 6);
  std::vector<std::vector<int32_t>> src;
  for (int i = 0; i < 10; ++i) {
    std::vector<int32_t> s(static_cast<size_t>(len(rng)));
    for (auto& x : s) x = tok(rng);
    src.push_back(s);
  }
  Seq2SeqBatch b = MakeSeq2SeqBatch(Ptrs(src), Ptrs(src));
  torch::optim::Adam opt(m->parameters(), torch::optim::AdamOptions(1e-2));
  double loss_value = 0;
  for (int step = 0; step < 400; ++step) {
    torch::Tensor logits = m->Logits(b.src, b.tgt_in);
    torch::Tensor loss = torch::nn::functional::cross_entropy(
        logits.reshape({-1, 20}), b.tgt_out.reshape({-1}),
        torch::nn::functional::CrossEntropyFuncOptions().ignore_index(kPadId));
    opt.zero_grad();
    loss.backward();
    opt.step();
    loss_value = loss.item<double>();
    if (loss_value < 0.02) break;
  }
  EXPECT_LT(loss_value, 0.1);
  m->eval();
  BeamSearchOptions o;
  EXPECT_EQ(GreedyDecode(*m, b.src, o), src);
  o.beam = 3;
  EXPECT_EQ(BeamSearch(*m, b.src, o), src);
}

TEST(GNMTTest, SharedEmbeddingIsOneParameter) {
  GNMT shared(Tiny());
  GNMT separate(Tiny().share_embedding(false));
  auto count = [](const torch::nn::Module& m) {
    int64_t n = 0;
    for (const auto& p : m.parameters()) n += p.numel();
    return n;
  };
  EXPECT_EQ(count(*separate) - count(*shared), 20 * 16);
  EXPECT_EQ(shared->encoder_embedder.get(), shared->decoder_embedder.get());
  EXPECT_NE(separate->encoder_embedder.get(), separate->decoder_embedder.get());
  // Initialisation: the attention's scalar and bias as the reference, the rest in range.
  EXPECT_NEAR(shared->decoder->attn->normalize_scalar.item<double>(), 0.25, 1e-7);
  EXPECT_EQ(shared->decoder->attn->normalize_bias.abs().max().item<double>(), 0.0);
  for (const auto& p : shared->named_parameters()) {
    EXPECT_LE(p.value().abs().max().item<double>(), 0.25 + 1e-7) << p.key();
  }
}

TEST(GNMTTest, AttentionScaleInit) {
  GNMT m(Tiny().attention_scale_init(1.5));
  EXPECT_DOUBLE_EQ(m->decoder->attn->normalize_scalar.item<double>(), 1.5);
  EXPECT_THROW(GNMT(Tiny().attention_scale_init(-1)), std::invalid_argument);
}

TEST(GNMTTest, ReferenceOptions) {
  GNMTOptions o = GNMTReferenceOptions(32000);
  EXPECT_EQ(o.vocab_size(), 32000);
  EXPECT_EQ(o.hidden_size(), 1024);
  EXPECT_EQ(o.num_layers(), 4);
  EXPECT_DOUBLE_EQ(o.dropout(), 0.2);
  EXPECT_TRUE(o.share_embedding());
  EXPECT_DOUBLE_EQ(o.init_weight(), 0.1);
  EXPECT_DOUBLE_EQ(o.attention_scale_init(), 0.0);  // 1 / sqrt(hidden)
}

// fused_lstm changes how the LSTMs are computed, not what: the same parameters give the same
// logits, gradients and beam search, with sentences of different lengths (the packed layer 1).
TEST(GNMTTest, FusedLstmComputesTheSameModel) {
  auto src = Seqs({{5, 6}, {7, 8, 9, 10, 11, 12}, {13, 14, 15}, {16}});
  auto tgt = Seqs({{11, 12, 13}, {14, 15}, {18, 4, 9, 10, 7}, {6}});
  Seq2SeqBatch b = MakeSeq2SeqBatch(Ptrs(src), Ptrs(tgt));
  torch::manual_seed(7);
  GNMT plain(Tiny().dropout(0.0));
  torch::manual_seed(7);
  GNMT fused(Tiny().dropout(0.0).fused_lstm(true));
  ASSERT_EQ(plain->parameters().size(), fused->parameters().size());
  for (size_t i = 0; i < plain->parameters().size(); ++i) {
    ASSERT_TRUE(
        plain->parameters()[i].equal(fused->parameters()[i]));  // same construction, same draws
  }
  std::vector<torch::Tensor> logits, grads[2];
  int k = 0;
  for (GNMT* m : {&plain, &fused}) {
    torch::Tensor l = (*m)->Logits(b.src, b.tgt_in);
    torch::nn::functional::cross_entropy(
        l.reshape({-1, 20}), b.tgt_out.reshape({-1}),
        torch::nn::functional::CrossEntropyFuncOptions().ignore_index(kPadId))
        .backward();
    logits.push_back(l.detach());
    for (const auto& p : (*m)->parameters())
      grads[k].push_back(p.grad().defined() ? p.grad().clone() : torch::zeros_like(p));
    ++k;
  }
  EXPECT_LT(MaxDiff(logits[0], logits[1]), 1e-5);
  const auto names = plain->named_parameters();
  for (size_t i = 0; i < grads[0].size(); ++i) {
    EXPECT_LT(MaxDiff(grads[0][i], grads[1][i]),
              1e-5 * (1 + grads[0][i].abs().max().item<double>()))
        << names[i].key();
  }
  plain->eval();
  fused->eval();
  torch::NoGradGuard g;
  BeamSearchOptions o;
  o.beam = 3;
  auto want = BeamSearch(*plain, b.src, o);
  auto got = BeamSearch(*fused, b.src, o);
  EXPECT_EQ(want, got);
}

TEST(GNMTTest, BadOptionsThrow) {
  EXPECT_THROW(GNMT(GNMTOptions(20).hidden_size(16).num_layers(1)), std::invalid_argument);
  EXPECT_THROW(GNMT(GNMTOptions(20).hidden_size(0)), std::invalid_argument);
  EXPECT_THROW(GNMT(GNMTOptions(2).hidden_size(16)), std::invalid_argument);
  EXPECT_THROW(GNMT(GNMTOptions(20).hidden_size(16).dropout(1.0)), std::invalid_argument);
}

}  // namespace
}  // namespace trainbench::models

// BLEU on hand-computed cases (each expected value is worked out in a comment), the three
// tokenizers on tricky inputs, and the differences between sacreBLEU and t2t's compute_bleu.
#include "metrics/bleu.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/error.h"
#include "metrics/unicode.h"

namespace trainbench::metrics {
namespace {

BleuOptions Opts(BleuTokenize t, bool lowercase = false) {
  BleuOptions o;
  o.tokenize = t;
  o.lowercase = lowercase;
  return o;
}

// Tokens of a UTF-8 line with the tokenizer alone, joined by " | " so a wrong split shows.
std::string Toks(std::vector<std::u32string> (*tokenizer)(std::u32string_view),
                 const std::string& utf8) {
  std::u32string line;
  std::size_t bad = 0;
  EXPECT_TRUE(DecodeUtf8(utf8, &line, &bad));
  std::string out;
  for (const auto& t : tokenizer(line)) {
    if (!out.empty()) out += " | ";
    out += EncodeUtf8(t);
  }
  return out;
}

BleuScore Sacre(const std::vector<std::string>& hyps, const std::vector<std::string>& refs,
                BleuTokenize t = BleuTokenize::k13a, bool lowercase = false) {
  return ComputeCorpusBleu(hyps, refs, Opts(t, lowercase));
}

TEST(BleuTest, PerfectMatchIs100) {
  BleuScore s = Sacre({"The cat sat on the mat."}, {"The cat sat on the mat."});
  EXPECT_DOUBLE_EQ(s.score, 100.0);
  for (double p : s.precisions) EXPECT_DOUBLE_EQ(p, 100.0);
  EXPECT_DOUBLE_EQ(s.bp, 1.0);
  EXPECT_EQ(s.stats.hyp_len, 7);  // "." is a token with 13a
  EXPECT_EQ(s.stats.ref_len, 7);
  EXPECT_EQ(FormatBleuLine(s),
            "BLEU = 100.00 100.0/100.0/100.0/100.0 (BP = 1.000 ratio = 1.000 hyp_len = 7 "
            "ref_len = 7)");
}

TEST(BleuTest, NoOverlapIsZero) {
  BleuScore s = Sacre({"a b c d"}, {"e f g h"});
  EXPECT_EQ(s.score, 0.0);
  for (double p : s.precisions) EXPECT_EQ(p, 0.0);  // sacreBLEU 2.x: no smoothing then
  EXPECT_EQ(s.stats.totals[0], 4);
  EXPECT_EQ(s.stats.matches[0], 0);
}

TEST(BleuTest, ShortHypothesisGetsBrevityPenalty) {
  // ref: 6 tokens; hyp: its first 4. Every hypothesis n-gram matches (4/4, 3/3, 2/2, 1/1), so
  // the precisions are 100 and BLEU = BP = exp(1 - r/c) = exp(1 - 6/4) = exp(-0.5)
  // = 0.6065306597..., i.e. 60.65.
  BleuScore s = Sacre({"the cat sat on"}, {"the cat sat on the mat"});
  for (double p : s.precisions) EXPECT_DOUBLE_EQ(p, 100.0);
  EXPECT_NEAR(s.bp, 0.6065306597126334, 1e-12);
  EXPECT_NEAR(s.score, 60.65306597126334, 1e-9);
  EXPECT_NEAR(s.ratio, 4.0 / 6.0, 1e-12);
  EXPECT_EQ(FormatBleuLine(s),
            "BLEU = 60.65 100.0/100.0/100.0/100.0 (BP = 0.607 ratio = 0.667 hyp_len = 4 "
            "ref_len = 6)");
  // A longer hypothesis is not penalized: 7 tokens against 6, BP = 1.
  BleuScore longer = Sacre({"the cat sat on the mat ."}, {"the cat sat on the mat"});
  EXPECT_DOUBLE_EQ(longer.bp, 1.0);
}

TEST(BleuTest, ClipsRepeatedWords) {
  // Papineni et al.'s example: "the" 7 times against a reference with "the" twice.
  // Unigrams: 7 in the hypothesis, matches clipped to 2 -> p1 = 2/7 = 28.571%. No bigram
  // ("the the" x6), trigram (x5) or 4-gram (x4) matches; sacreBLEU's 'exp' smoothing gives
  // the k-th such order 100 / (2^k * total): p2 = 100/12, p3 = 100/20, p4 = 100/32.
  // hyp_len 7 >= ref_len 6, BP = 1. BLEU = (28.571 * 8.333 * 5 * 3.125)^(1/4) = 7.810.
  BleuScore s = Sacre({"the the the the the the the"}, {"the cat is on the mat"});
  EXPECT_EQ(s.stats.matches[0], 2);
  EXPECT_EQ(s.stats.totals[0], 7);
  EXPECT_EQ(s.stats.matches[1], 0);
  EXPECT_EQ(s.stats.totals[1], 6);
  EXPECT_NEAR(s.precisions[0], 200.0 / 7.0, 1e-12);
  EXPECT_NEAR(s.precisions[1], 100.0 / 12.0, 1e-12);
  EXPECT_NEAR(s.precisions[2], 100.0 / 20.0, 1e-12);
  EXPECT_NEAR(s.precisions[3], 100.0 / 32.0, 1e-12);
  const double expected =
      std::exp((std::log(200.0 / 7) + std::log(100.0 / 12) + std::log(5.0) + std::log(3.125)) / 4);
  EXPECT_NEAR(s.score, expected, 1e-9);
  EXPECT_NEAR(s.score, 7.810, 1e-3);
}

TEST(BleuTest, CorpusSumsAreNotTheMeanOfSentenceScores) {
  // Sentence 1 matches its reference (6 tokens, sentence BLEU 100), sentence 2 has no overlap
  // (4 tokens, sentence BLEU 0): the mean of sentence scores is 50. The corpus sums are
  // matches 6+0, 5+0, 4+0, 3+0 of totals 6+4, 5+3, 4+2, 3+1, lengths 10 and 10 (BP 1):
  // BLEU = (6/10 * 5/8 * 4/6 * 3/4)^(1/4) = 0.1875^(1/4) = 0.658037 -> 65.80.
  const std::vector<std::string> hyps = {"the cat sat on the mat", "a b c d"};
  const std::vector<std::string> refs = {"the cat sat on the mat", "e f g h"};
  BleuScore corpus = Sacre(hyps, refs);
  EXPECT_NEAR(corpus.score, 100.0 * std::pow(0.1875, 0.25), 1e-9);
  EXPECT_NEAR(corpus.score, 65.80, 5e-3);
  EXPECT_EQ(corpus.stats.matches, (std::array<long long, 4>{6, 5, 4, 3}));
  EXPECT_EQ(corpus.stats.totals, (std::array<long long, 4>{10, 8, 6, 4}));
  double mean = 0;
  for (std::size_t i = 0; i < hyps.size(); ++i) mean += Sacre({hyps[i]}, {refs[i]}).score / 2;
  EXPECT_DOUBLE_EQ(mean, 50.0);
  EXPECT_GT(std::abs(corpus.score - mean), 15.0);
}

TEST(BleuTest, StatsAddUpOverSegments) {
  BleuStats a = SegmentStats({"a", "b", "a"}, {"a", "b"});
  EXPECT_EQ(a.matches, (std::array<long long, 4>{2, 1, 0, 0}));  // "a" clipped to 1, "b"; "a b"
  EXPECT_EQ(a.totals, (std::array<long long, 4>{3, 2, 1, 0}));
  a += SegmentStats({"c"}, {"c", "d"});
  EXPECT_EQ(a.matches, (std::array<long long, 4>{3, 1, 0, 0}));
  EXPECT_EQ(a.totals, (std::array<long long, 4>{4, 2, 1, 0}));
  EXPECT_EQ(a.hyp_len, 4);
  EXPECT_EQ(a.ref_len, 4);
}

TEST(BleuTest, LowercaseMakesCaseDifferencesMatch) {
  // Cased: "The" and "Cat" miss; matches 4/6, 3/5, 2/4, 1/3 -> (1/15)^(1/4) = 50.81.
  BleuScore cased = Sacre({"The Cat sat on the mat"}, {"the cat sat on the mat"});
  EXPECT_NEAR(cased.score, 100.0 * std::pow(1.0 / 15.0, 0.25), 1e-9);
  BleuScore uncased =
      Sacre({"The Cat sat on the mat"}, {"the cat sat on the mat"}, BleuTokenize::k13a, true);
  EXPECT_DOUBLE_EQ(uncased.score, 100.0);
  // Python's str.lower() beyond ASCII: É -> é, and capital sigma at a word end -> ς.
  EXPECT_DOUBLE_EQ(
      Sacre({"ÉCOLE ΟΔΟΣ ET ÉTÉ"}, {"école οδος et été"}, BleuTokenize::k13a, true).score, 100.0);
  EXPECT_DOUBLE_EQ(Sacre({"ÉCOLE ΟΔΟΣ ET ÉTÉ"}, {"école οδος et été"}).score, 0.0);
  EXPECT_EQ(TokenizeForBleu("ÉCOLE ΟΔΟΣ", Opts(BleuTokenize::k13a, true)), "école οδος");
}

TEST(BleuTest, Tokenizer13a) {
  EXPECT_EQ(Toks(Tokenize13a, "Hello, world!"), "Hello | , | world | !");
  // Period and comma stay inside numbers, split elsewhere (the line is padded with spaces, so
  // a final period after a number is split too).
  EXPECT_EQ(Toks(Tokenize13a, "It costs 3.14 or 1,000 dollars."),
            "It | costs | 3.14 | or | 1,000 | dollars | .");
  EXPECT_EQ(Toks(Tokenize13a, "in 1990."), "in | 1990 | .");
  EXPECT_EQ(Toks(Tokenize13a, "U.S.A."), "U | . | S | . | A | .");
  // A hyphen is split after a digit only; apostrophes stay.
  EXPECT_EQ(Toks(Tokenize13a, "a 5-year-old well-known don't -5"),
            "a | 5 | - | year-old | well-known | don't | -5");
  // ASCII quotes, symbols and brackets are split.
  EXPECT_EQ(
      Toks(Tokenize13a, "He said \"hi\" (twice) & paid $5 = 10% {ok}"),
      "He | said | \" | hi | \" | ( | twice | ) | & | paid | $ | 5 | = | 10 | % | { | ok | }");
  // The entities are unescaped in order (&amp;lt; becomes <), <skipped> goes.
  EXPECT_EQ(Toks(Tokenize13a, "a &quot;b&quot; &amp;lt; <skipped>c &gt;"),
            "a | \" | b | \" | < | c | >");
  // Non-ASCII punctuation and symbols are left alone by 13a.
  EXPECT_EQ(Toks(Tokenize13a, "¿Qué? «Sí» — 50€ ¡Hola!"), "¿Qué | ? | «Sí» | — | 50€ | ¡Hola | !");
  // Unicode whitespace separates tokens as in Python's str.split().
  EXPECT_EQ(Toks(Tokenize13a, "a\u00a0b\u3000c\td"), "a | b | c | d");
}

TEST(BleuTest, TokenizerIntl) {
  EXPECT_EQ(Toks(TokenizeIntl, "Hello, world!"), "Hello | , | world | !");
  // Unicode punctuation and symbols are split.
  EXPECT_EQ(Toks(TokenizeIntl, "¿Qué? «Sí» — 50€ ¡Hola!"),
            "¿ | Qué | ? | « | Sí | » | — | 50 | € | ¡ | Hola | !");
  EXPECT_EQ(Toks(TokenizeIntl, "$5, 10% and 3^2"), "$ | 5 | , | 10 | % | and | 3 | ^ | 2");
  // Punctuation between digits stays; mteval-v14's quirk: a period after a number at the end
  // of the line stays with it (nothing follows it).
  EXPECT_EQ(Toks(TokenizeIntl, "It costs 3.14 or 1,000."), "It | costs | 3.14 | or | 1,000.");
  EXPECT_EQ(Toks(TokenizeIntl, "in 1990. Then"), "in | 1990 | . | Then");
  EXPECT_EQ(Toks(TokenizeIntl, "well-known 5-year"), "well | - | known | 5 | - | year");
  EXPECT_EQ(Toks(TokenizeIntl, "a\\b \"q\""), "a | \\ | b | \" | q | \"");
  // \P{N}: a superscript two (No) counts as a number, like a digit.
  EXPECT_EQ(Toks(TokenizeIntl, "It is x²."), "It | is | x².");
}

TEST(BleuTest, TokenizerT2t) {
  EXPECT_EQ(Toks(TokenizeT2t, "¿Qué? «Sí» — 50€ ¡Hola!"),
            "¿ | Qué | ? | « | Sí | » | — | 50 | € | ¡ | Hola | !");
  EXPECT_EQ(Toks(TokenizeT2t, "It costs 3.14 or 1,000."), "It | costs | 3.14 | or | 1,000.");
  // [^\d] is "not a decimal digit" (Nd): a superscript two is not one, so the period splits.
  EXPECT_EQ(Toks(TokenizeT2t, "It is x²."), "It | is | x² | .");
  // t2t's punctuation class is built without escaping, so the backslash is not in it.
  EXPECT_EQ(Toks(TokenizeT2t, "a\\b \"q\""), "a\\b | \" | q | \"");
}

TEST(BleuTest, TokenizerNoneSplitsOnWhitespaceOnly) {
  EXPECT_EQ(Toks(TokenizeNone, "  Hello, world!  3.14 "), "Hello, | world! | 3.14");
}

TEST(BleuTest, SacreBleuStripsLineEndsT2tDoesNot) {
  // sacreBLEU rstrips each line before tokenizing, so mteval-v14's end-of-line quirk applies;
  // t2t's compute_bleu.py tokenizes the line as it is.
  EXPECT_EQ(TokenizeForBleu("in 1990. ", Opts(BleuTokenize::kIntl)), "in 1990.");
  EXPECT_EQ(TokenizeForBleu("in 1990. ", Opts(BleuTokenize::kT2t)), "in 1990 .");
  EXPECT_EQ(TokenizeForBleu("in 1990.", Opts(BleuTokenize::kT2t)), "in 1990.");
}

TEST(BleuTest, T2tAndSacreBleuDiffer) {
  // Three tokens, matching: no 4-gram at all. sacreBLEU: the 4-gram precision is 0, BLEU 0.
  // t2t: an order without n-grams is left out of the log sum but the sum is still divided by
  // 4, so BLEU = exp((0 + 0 + 0) / 4) = 1 -> 100.
  BleuScore sacre = Sacre({"the cat sat"}, {"the cat sat"});
  BleuScore t2t = Sacre({"the cat sat"}, {"the cat sat"}, BleuTokenize::kT2t, true);
  EXPECT_EQ(sacre.score, 0.0);
  EXPECT_DOUBLE_EQ(t2t.score, 100.0);

  // No overlap: sacreBLEU 0; t2t smooths every order: p = 1/(2*4), 1/(4*3), 1/(8*2), 1/(16*1),
  // product 1/24576, BLEU = 24576^(-1/4) = 0.0798679 -> 7.99 (float32, as the reference).
  BleuScore t2t_none = Sacre({"a b c d"}, {"e f g h"}, BleuTokenize::kT2t, true);
  EXPECT_NEAR(t2t_none.score, 100.0 * std::pow(24576.0, -0.25), 1e-5);
  EXPECT_EQ(t2t_none.score,
            static_cast<double>(static_cast<float>(std::pow(24576.0, -0.25)) * 100.0f));
  EXPECT_NEAR(t2t_none.precisions[3], 100.0 / 16.0, 1e-12);

  // Brevity: t2t's BP = exp(1 - 1/ratio) with ratio = 4/6, the same exp(-0.5).
  BleuScore t2t_short = Sacre({"the cat sat on"}, {"the cat sat on the mat"}, BleuTokenize::kT2t);
  EXPECT_NEAR(t2t_short.score, 60.65306597, 1e-4);
  EXPECT_NEAR(t2t_short.bp, std::exp(-0.5), 1e-12);
}

TEST(BleuTest, T2tFormulaOnStats) {
  // matches 3/4, 1/3, 0/2, 0/1: p = 0.75, 1/3, 1/(2*2) = 0.25, 1/(4*1) = 0.25; hyp 4, ref 5,
  // ratio 0.8, BP = exp(1 - 1/0.8) = exp(-0.25).
  BleuStats s;
  s.matches = {3, 1, 0, 0};
  s.totals = {4, 3, 2, 1};
  s.hyp_len = 4;
  s.ref_len = 5;
  BleuScore t = T2tBleuFromStats(s);
  const double geo = std::pow(0.75 / 3 * 0.25 * 0.25, 0.25);
  EXPECT_NEAR(t.score, 100.0 * geo * std::exp(-0.25), 1e-4);
  // sacreBLEU on the same sums: p = 75, 33.3, 100/(2*2) = 25, 100/(4*1) = 25, BP exp(1 - 5/4).
  BleuScore sacre = SacreBleuFromStats(s);
  EXPECT_NEAR(sacre.score, 100.0 * geo * std::exp(-0.25), 1e-9);
  // They differ once an order has no n-grams: drop the 4-grams.
  s.totals[3] = 0;
  EXPECT_EQ(SacreBleuFromStats(s).score, 0.0);
  EXPECT_NEAR(T2tBleuFromStats(s).score, 100.0 * std::pow(0.75 / 3 * 0.25, 0.25) * std::exp(-0.25),
              1e-4);
}

TEST(BleuTest, EmptyHypothesisAndEmptyCorpus) {
  BleuScore empty_hyp = Sacre({""}, {"a b"});
  EXPECT_EQ(empty_hyp.score, 0.0);
  EXPECT_EQ(empty_hyp.bp, 0.0);
  BleuScore nothing = Sacre({}, {});
  EXPECT_EQ(nothing.score, 0.0);
  EXPECT_EQ(nothing.ratio, 0.0);
  EXPECT_EQ(Sacre({""}, {"a b"}, BleuTokenize::kT2t).score, 0.0);
}

TEST(BleuTest, ComputeCorpusBleuRejectsBadInput) {
  EXPECT_THROW(Sacre({"a"}, {"a", "b"}), core::Error);
  try {
    Sacre({"ok", "bad \xff"}, {"ok", "ok"});
    FAIL() << "invalid UTF-8 accepted";
  } catch (const core::Error& e) {
    EXPECT_NE(std::string(e.what()).find("hypothesis:2:"), std::string::npos) << e.what();
  }
  EXPECT_THROW(ParseBleuTokenize("moses"), core::Error);
  EXPECT_EQ(ParseBleuTokenize("intl"), BleuTokenize::kIntl);
}

TEST(BleuTest, Signature) {
  EXPECT_EQ(BleuSignature(Opts(BleuTokenize::kIntl, true)),
            "nrefs:1|case:lc|eff:no|tok:intl|smooth:exp");
  EXPECT_EQ(BleuSignature(Opts(BleuTokenize::kT2t, true)), "nrefs:1|case:lc|tok:t2t|bleu:t2t");
}

}  // namespace
}  // namespace trainbench::metrics

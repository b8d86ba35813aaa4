// Corpus BLEU as the translation references publish it (docs/bleu.md):
//  - sacreBLEU 2.x corpus_bleu with its defaults (one reference, n-grams up to 4, smoothing
//    'exp', no effective order) and its tokenizers 13a (mteval-v13a), intl (mteval-v14
//    international) and none; optional lowercasing. GNMT's target: intl, lowercased.
//  - tensor2tensor's compute_bleu with bleu_tokenize, as the MLPerf Transformer reference's
//    compute_bleu.py runs it (its own smoothing and brevity penalty, float32 result). The
//    Transformer target: t2t, lowercased.
// Both variants share the sufficient statistics (clipped n-gram matches and hypothesis n-gram
// totals per order, hypothesis and reference lengths), summed over the corpus; they differ in
// tokenization and in the formula applied to the sums. Text is Unicode (UTF-8 outside, UTF-32
// inside). Everything here is pure and thread-compatible.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

namespace trainbench::metrics {

inline constexpr int kBleuMaxOrder = 4;

// How lines are tokenized; kT2t also selects t2t's compute_bleu formula.
enum class BleuTokenize { k13a, kIntl, kNone, kT2t };

// "13a", "intl", "none", "t2t".
const char* BleuTokenizeName(BleuTokenize t);
// Parses a name above; an unknown one is a core::Error that lists the known names.
BleuTokenize ParseBleuTokenize(std::string_view name);

struct BleuOptions {
  BleuTokenize tokenize = BleuTokenize::k13a;  // sacreBLEU's default
  bool lowercase = false;  // Python str.lower() of each line before tokenizing (uncased BLEU)
};

// The tokenizers, on one line (no '\n' expected except where 13a handles it), returning the
// tokens. These are the reference functions alone: Tokenize13a is sacreBLEU's Tokenizer13a
// followed by str.split(); TokenizeIntl is TokenizerV14International then split();
// TokenizeT2t is t2t's bleu_tokenize; TokenizeNone is str.split().
std::vector<std::u32string> Tokenize13a(std::u32string_view line);
std::vector<std::u32string> TokenizeIntl(std::u32string_view line);
std::vector<std::u32string> TokenizeT2t(std::u32string_view line);
std::vector<std::u32string> TokenizeNone(std::u32string_view line);

// One line prepared as the variant's scorer does it: lowercase (if asked), then for the
// sacreBLEU variants str.rstrip(), then the tokenizer. Tokens are UTF-8.
std::vector<std::string> BleuTokens(std::u32string_view line, const BleuOptions& o);
// The same from UTF-8 text, tokens joined by one space (for tests and tools); invalid UTF-8 is
// a core::Error.
std::string TokenizeForBleu(std::string_view utf8_line, const BleuOptions& o);

// Sufficient statistics of BLEU against one reference.
struct BleuStats {
  std::array<long long, kBleuMaxOrder> matches{};  // clipped matches of n-grams of order n+1
  std::array<long long, kBleuMaxOrder> totals{};   // hypothesis n-grams of order n+1
  long long hyp_len = 0;                           // hypothesis tokens
  long long ref_len = 0;                           // reference tokens
  BleuStats& operator+=(const BleuStats& o);
};

// Statistics of one segment: each hypothesis n-gram counts at most as often as it occurs in
// the reference (clipping).
BleuStats SegmentStats(const std::vector<std::string>& hyp, const std::vector<std::string>& ref);

struct BleuScore {
  double score = 0;                                // BLEU in 0..100
  std::array<double, kBleuMaxOrder> precisions{};  // percent, after the variant's smoothing
  double bp = 0;                                   // brevity penalty
  double ratio = 0;                                // hyp_len / ref_len (0 when ref_len is 0)
  BleuStats stats;
};

// sacreBLEU's BLEU.compute_bleu with smooth_method 'exp' (its corpus default), effective order
// off: BP = exp(1 - r/c) when c < r (0 when c = 0); 0 when no n-gram matches at all; an order
// with no match gets precision 100 / (2^k * total) for the k-th such order; an order with no
// n-grams at all makes BLEU 0; BLEU = BP * exp(mean of the 4 log precisions).
BleuScore SacreBleuFromStats(const BleuStats& s);
// t2t's compute_bleu (MLPerf Transformer reference): precisions in 0..1 with the same
// 1 / (2^k * total) for orders without a match, an order without n-grams skipped in the log
// sum but still counted in the divisor 4, BP = exp(1 - 1/ratio) when ratio < 1, the product
// rounded to float32 and multiplied by 100 in float32 as the reference returns it.
BleuScore T2tBleuFromStats(const BleuStats& s);
// The variant's formula for these options.
BleuScore BleuFromStats(const BleuStats& s, const BleuOptions& o);

// Accumulates a corpus segment by segment.
class CorpusBleu {
 public:
  explicit CorpusBleu(BleuOptions o = {}) : options_(o) {}
  // One hypothesis line and its reference line (decoded).
  void Add(std::u32string_view hyp, std::u32string_view ref);
  const BleuStats& stats() const { return stats_; }
  long long segments() const { return segments_; }
  BleuScore Score() const { return BleuFromStats(stats_, options_); }

 private:
  BleuOptions options_;
  BleuStats stats_;
  long long segments_ = 0;
};

// Corpus BLEU of line-aligned UTF-8 hypotheses and references. Different sizes or invalid
// UTF-8 are a core::Error naming the side and the line (1-based).
BleuScore ComputeCorpusBleu(const std::vector<std::string>& hyps,
                            const std::vector<std::string>& refs, const BleuOptions& o = {});

// sacreBLEU's text line, e.g.
// "BLEU = 25.31 60.1/32.0/19.5/12.4 (BP = 0.981 ratio = 0.981 hyp_len = 100 ref_len = 102)".
std::string FormatBleuLine(const BleuScore& s);
// What was computed, in sacreBLEU's signature style, e.g.
// "nrefs:1|case:lc|eff:no|tok:intl|smooth:exp" or "nrefs:1|case:lc|tok:t2t|bleu:t2t".
std::string BleuSignature(const BleuOptions& o);

}  // namespace trainbench::metrics

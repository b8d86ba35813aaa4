#include "metrics/bleu.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <unordered_map>

#include "core/error.h"
#include "metrics/unicode.h"

namespace trainbench::metrics {
namespace {

// Python's str.replace(from, to): every non-overlapping occurrence, left to right.
void ReplaceAll(std::u32string* s, std::u32string_view from, std::u32string_view to) {
  if (s->find(from) == std::u32string::npos) return;
  std::u32string out;
  out.reserve(s->size());
  std::size_t pos = 0;
  while (true) {
    const std::size_t hit = s->find(from, pos);
    if (hit == std::u32string::npos) break;
    out.append(*s, pos, hit - pos);
    out.append(to);
    pos = hit + from.size();
  }
  out.append(*s, pos, std::u32string::npos);
  s->swap(out);
}

// re.sub(r"(X)", r" \1 ", s) for a one-character class X.
template <typename Pred>
std::u32string PadChar(std::u32string_view s, Pred x) {
  std::u32string out;
  out.reserve(s.size() + s.size() / 2);
  for (char32_t c : s) {
    if (x(c)) {
      out.push_back(U' ');
      out.push_back(c);
      out.push_back(U' ');
    } else {
      out.push_back(c);
    }
  }
  return out;
}

// re.sub(r"(A)(B)", r"\1 \2 " or r" \1 \2", s) for one-character classes A and B: the regex
// engine tries each position left to right, and a match consumes both characters.
enum class Pad { kAfterBoth, kBeforeBoth };  // "\1 \2 " / " \1 \2"
template <typename PredA, typename PredB>
std::u32string SubPair(std::u32string_view s, PredA a, PredB b, Pad pad) {
  std::u32string out;
  out.reserve(s.size() + s.size() / 2);
  std::size_t i = 0;
  while (i < s.size()) {
    if (i + 1 < s.size() && a(s[i]) && b(s[i + 1])) {
      if (pad == Pad::kBeforeBoth) out.push_back(U' ');
      out.push_back(s[i]);
      out.push_back(U' ');
      out.push_back(s[i + 1]);
      if (pad == Pad::kAfterBoth) out.push_back(U' ');
      i += 2;
    } else {
      out.push_back(s[i]);
      ++i;
    }
  }
  return out;
}

// Python's str.split() with no argument.
std::vector<std::u32string> PythonSplit(std::u32string_view s) {
  std::vector<std::u32string> tokens;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && IsPythonSpace(s[i])) ++i;
    const std::size_t start = i;
    while (i < s.size() && !IsPythonSpace(s[i])) ++i;
    if (i > start) tokens.emplace_back(s.substr(start, i - start));
  }
  return tokens;
}

bool IsAsciiDigit(char32_t c) { return c >= U'0' && c <= U'9'; }

// The first regex of sacreBLEU's TokenizerRegexp: [\{-\~\[-\` -\&\(-\+\:-\@\/], i.e. the ASCII
// punctuation and symbols except apostrophe, comma, hyphen and period (and the space).
bool Is13aSplitChar(char32_t c) {
  return (c >= 0x7B && c <= 0x7E) || (c >= 0x5B && c <= 0x60) || (c >= 0x20 && c <= 0x26) ||
         (c >= 0x28 && c <= 0x2B) || (c >= 0x3A && c <= 0x40) || c == 0x2F;
}

// t2t builds its punctuation class as "[" + every P* character + "]" without escaping, so the
// backslash (U+005C, Po) escapes the following "]" and is itself not in the class.
bool IsT2tPunctuation(char32_t c) { return c != U'\\' && IsPunctuation(c); }

double MyLog(double x) { return x == 0.0 ? -9999999999.0 : std::log(x); }  // sacreBLEU my_log

}  // namespace

const char* BleuTokenizeName(BleuTokenize t) {
  switch (t) {
    case BleuTokenize::k13a:
      return "13a";
    case BleuTokenize::kIntl:
      return "intl";
    case BleuTokenize::kNone:
      return "none";
    case BleuTokenize::kT2t:
      return "t2t";
  }
  return "?";
}

BleuTokenize ParseBleuTokenize(std::string_view name) {
  for (BleuTokenize t :
       {BleuTokenize::k13a, BleuTokenize::kIntl, BleuTokenize::kNone, BleuTokenize::kT2t}) {
    if (name == BleuTokenizeName(t)) return t;
  }
  throw core::Error("unknown BLEU tokenizer \"" + std::string(name) +
                    "\" (known: 13a, intl, t2t, none)");
}

std::vector<std::u32string> Tokenize13a(std::u32string_view line) {
  // Language-independent part (sacreBLEU Tokenizer13a).
  std::u32string s(line);
  ReplaceAll(&s, U"<skipped>", U"");
  ReplaceAll(&s, U"-\n", U"");
  ReplaceAll(&s, U"\n", U" ");
  ReplaceAll(&s, U"&quot;", U"\"");
  ReplaceAll(&s, U"&amp;", U"&");
  ReplaceAll(&s, U"&lt;", U"<");
  ReplaceAll(&s, U"&gt;", U">");
  s = U" " + s + U" ";
  // TokenizerRegexp, in order.
  s = PadChar(s, Is13aSplitChar);
  auto not_digit = [](char32_t c) { return !IsAsciiDigit(c); };
  auto period_comma = [](char32_t c) { return c == U'.' || c == U','; };
  s = SubPair(s, not_digit, period_comma, Pad::kAfterBoth);   // ([^0-9])([\.,]) -> \1 \2
  s = SubPair(s, period_comma, not_digit, Pad::kBeforeBoth);  // ([\.,])([^0-9]) ->  \1 \2
  s = SubPair(
      s, IsAsciiDigit, [](char32_t c) { return c == U'-'; },
      Pad::kAfterBoth);  // ([0-9])(-) -> \1 \2
  return PythonSplit(s);
}

std::vector<std::u32string> TokenizeIntl(std::u32string_view line) {
  auto not_number = [](char32_t c) { return !IsNumber(c); };
  std::u32string s = SubPair(line, not_number, IsPunctuation, Pad::kAfterBoth);  // (\P{N})(\p{P})
  s = SubPair(s, IsPunctuation, not_number, Pad::kBeforeBoth);                   // (\p{P})(\P{N})
  s = PadChar(s, IsSymbol);                                                      // (\p{S})
  return PythonSplit(s);
}

std::vector<std::u32string> TokenizeT2t(std::u32string_view line) {
  auto not_digit = [](char32_t c) { return !IsDecimalDigit(c); };
  std::u32string s = SubPair(line, not_digit, IsT2tPunctuation, Pad::kAfterBoth);  // ([^\d])([P])
  s = SubPair(s, IsT2tPunctuation, not_digit, Pad::kBeforeBoth);                   // ([P])([^\d])
  s = PadChar(s, IsSymbol);                                                        // ([S])
  return PythonSplit(s);
}

std::vector<std::u32string> TokenizeNone(std::u32string_view line) { return PythonSplit(line); }

std::vector<std::string> BleuTokens(std::u32string_view line, const BleuOptions& o) {
  std::u32string lowered;
  if (o.lowercase) {
    lowered = PythonLower(line);
    line = lowered;
  }
  std::vector<std::u32string> tokens;
  switch (o.tokenize) {
    case BleuTokenize::k13a:
      tokens = Tokenize13a(PythonRstrip(line));
      break;
    case BleuTokenize::kIntl:
      tokens = TokenizeIntl(PythonRstrip(line));
      break;
    case BleuTokenize::kNone:
      tokens = TokenizeNone(PythonRstrip(line));
      break;
    case BleuTokenize::kT2t:
      tokens = TokenizeT2t(line);  // compute_bleu.py does not strip lines
      break;
  }
  std::vector<std::string> out;
  out.reserve(tokens.size());
  for (const auto& t : tokens) out.push_back(EncodeUtf8(t));
  return out;
}

std::string TokenizeForBleu(std::string_view utf8_line, const BleuOptions& o) {
  std::u32string line;
  std::size_t bad = 0;
  if (!DecodeUtf8(utf8_line, &line, &bad)) {
    throw core::Error("invalid UTF-8 at byte " + std::to_string(bad + 1));
  }
  std::string joined;
  for (const auto& t : BleuTokens(line, o)) {
    if (!joined.empty()) joined.push_back(' ');
    joined += t;
  }
  return joined;
}

BleuStats& BleuStats::operator+=(const BleuStats& o) {
  for (int n = 0; n < kBleuMaxOrder; ++n) {
    matches[n] += o.matches[n];
    totals[n] += o.totals[n];
  }
  hyp_len += o.hyp_len;
  ref_len += o.ref_len;
  return *this;
}

BleuStats SegmentStats(const std::vector<std::string>& hyp, const std::vector<std::string>& ref) {
  // Tokens never contain whitespace, so n-grams joined by a space are distinct keys (the order
  // is the number of spaces plus one).
  auto count = [](const std::vector<std::string>& tokens) {
    std::unordered_map<std::string, long long> counts;
    for (int n = 1; n <= kBleuMaxOrder; ++n) {
      for (std::size_t i = 0; i + n <= tokens.size(); ++i) {
        std::string key = tokens[i];
        for (int k = 1; k < n; ++k) {
          key.push_back(' ');
          key += tokens[i + k];
        }
        ++counts[key];
      }
    }
    return counts;
  };
  BleuStats s;
  s.hyp_len = static_cast<long long>(hyp.size());
  s.ref_len = static_cast<long long>(ref.size());
  for (int n = 1; n <= kBleuMaxOrder; ++n) {
    s.totals[n - 1] = std::max<long long>(0, s.hyp_len - n + 1);
  }
  const auto hyp_counts = count(hyp);
  const auto ref_counts = count(ref);
  for (const auto& [ngram, c] : hyp_counts) {
    auto it = ref_counts.find(ngram);
    if (it == ref_counts.end()) continue;
    const int order = 1 + static_cast<int>(std::count(ngram.begin(), ngram.end(), ' '));
    s.matches[order - 1] += std::min(c, it->second);
  }
  return s;
}

BleuScore SacreBleuFromStats(const BleuStats& s) {
  BleuScore r;
  r.stats = s;
  const double sys = static_cast<double>(s.hyp_len), ref = static_cast<double>(s.ref_len);
  r.ratio = s.ref_len ? sys / ref : 0.0;
  if (s.hyp_len < s.ref_len) {
    r.bp = s.hyp_len > 0 ? std::exp(1.0 - ref / sys) : 0.0;
  } else {
    r.bp = 1.0;
  }
  // No match of any order: 0, precisions 0 (sacreBLEU 2.x, issue #141).
  if (std::all_of(s.matches.begin(), s.matches.end(), [](long long m) { return m == 0; })) {
    r.score = 0.0;
    return r;
  }
  double smooth = 1.0;
  for (int n = 0; n < kBleuMaxOrder; ++n) {
    if (s.totals[n] == 0) break;  // this and higher orders stay 0, so BLEU is 0
    if (s.matches[n] == 0) {
      smooth *= 2;
      r.precisions[n] = 100.0 / (smooth * static_cast<double>(s.totals[n]));
    } else {
      r.precisions[n] =
          100.0 * static_cast<double>(s.matches[n]) / static_cast<double>(s.totals[n]);
    }
  }
  double log_sum = 0.0;
  for (double p : r.precisions) log_sum += MyLog(p);
  r.score = r.bp * std::exp(log_sum / kBleuMaxOrder);
  return r;
}

BleuScore T2tBleuFromStats(const BleuStats& s) {
  BleuScore r;
  r.stats = s;
  std::array<double, kBleuMaxOrder> p{};
  double smooth = 1.0;
  for (int n = 0; n < kBleuMaxOrder; ++n) {
    if (s.totals[n] > 0) {
      if (s.matches[n] > 0) {
        p[n] = static_cast<double>(s.matches[n]) / static_cast<double>(s.totals[n]);
      } else {
        smooth *= 2;
        p[n] = 1.0 / (smooth * static_cast<double>(s.totals[n]));
      }
    } else {
      p[n] = 0.0;
    }
    r.precisions[n] = 100.0 * p[n];
  }
  double geo_mean = 0.0;
  if (*std::max_element(p.begin(), p.end()) > 0) {
    double log_sum = 0.0;
    for (double x : p) {
      if (x != 0.0) log_sum += std::log(x);
    }
    geo_mean = std::exp(log_sum / kBleuMaxOrder);
  }
  // compute_bleu.py divides by the reference length unguarded; later t2t versions answer BP 1
  // for an empty reference and 0 for an empty translation, which is what this does.
  r.ratio = s.ref_len ? static_cast<double>(s.hyp_len) / static_cast<double>(s.ref_len) : 0.0;
  if (s.ref_len == 0) {
    r.bp = 1.0;
  } else if (r.ratio <= 0.0) {
    r.bp = 0.0;
  } else {
    r.bp = r.ratio < 1.0 ? std::exp(1.0 - 1.0 / r.ratio) : 1.0;
  }
  // np.float32(bleu) * 100, in float32.
  const float bleu32 = static_cast<float>(geo_mean * r.bp);
  const float score32 = bleu32 * 100.0f;
  r.score = static_cast<double>(score32);
  return r;
}

BleuScore BleuFromStats(const BleuStats& s, const BleuOptions& o) {
  return o.tokenize == BleuTokenize::kT2t ? T2tBleuFromStats(s) : SacreBleuFromStats(s);
}

void CorpusBleu::Add(std::u32string_view hyp, std::u32string_view ref) {
  stats_ += SegmentStats(BleuTokens(hyp, options_), BleuTokens(ref, options_));
  ++segments_;
}

BleuScore ComputeCorpusBleu(const std::vector<std::string>& hyps,
                            const std::vector<std::string>& refs, const BleuOptions& o) {
  if (hyps.size() != refs.size()) {
    throw core::Error("BLEU: " + std::to_string(hyps.size()) + " hypotheses but " +
                      std::to_string(refs.size()) + " references");
  }
  CorpusBleu corpus(o);
  std::u32string hyp, ref;
  for (std::size_t i = 0; i < hyps.size(); ++i) {
    std::size_t bad = 0;
    if (!DecodeUtf8(hyps[i], &hyp, &bad)) {
      throw core::FileError("hypothesis", static_cast<long>(i + 1),
                            "invalid UTF-8 at byte " + std::to_string(bad + 1));
    }
    if (!DecodeUtf8(refs[i], &ref, &bad)) {
      throw core::FileError("reference", static_cast<long>(i + 1),
                            "invalid UTF-8 at byte " + std::to_string(bad + 1));
    }
    corpus.Add(hyp, ref);
  }
  return corpus.Score();
}

std::string FormatBleuLine(const BleuScore& s) {
  char buf[256];
  std::snprintf(buf, sizeof(buf),
                "BLEU = %.2f %.1f/%.1f/%.1f/%.1f (BP = %.3f ratio = %.3f hyp_len = %lld "
                "ref_len = %lld)",
                s.score, s.precisions[0], s.precisions[1], s.precisions[2], s.precisions[3], s.bp,
                s.ratio, s.stats.hyp_len, s.stats.ref_len);
  return buf;
}

std::string BleuSignature(const BleuOptions& o) {
  std::string sig = "nrefs:1|case:";
  sig += o.lowercase ? "lc" : "mixed";
  if (o.tokenize == BleuTokenize::kT2t) return sig + "|tok:t2t|bleu:t2t";
  return sig + "|eff:no|tok:" + BleuTokenizeName(o.tokenize) + "|smooth:exp";
}

}  // namespace trainbench::metrics

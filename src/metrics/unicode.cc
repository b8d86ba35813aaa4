#include "metrics/unicode.h"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <optional>

#include "core/utf8.h"

namespace trainbench::metrics {
namespace {

struct CodePointRange {
  char32_t lo;
  char32_t hi;  // inclusive
};
struct CaseMapping {
  char32_t from;
  char32_t to;
};
struct SpecialLower {
  char32_t from;
  char32_t to[3];
  int size;
};

#include "metrics/unicode_tables.inc"

template <std::size_t N>
bool InRanges(const CodePointRange (&table)[N], char32_t c) {
  const CodePointRange* end = table + N;
  // First range whose hi >= c.
  const CodePointRange* it =
      std::lower_bound(table, end, c, [](const CodePointRange& r, char32_t v) { return r.hi < v; });
  return it != end && it->lo <= c;
}

char32_t SimpleLower(char32_t c) {
  if (c < 0x80) return (c >= 'A' && c <= 'Z') ? c + 32 : c;
  const CaseMapping* end = std::end(kLowerSimple);
  const CaseMapping* it =
      std::lower_bound(std::begin(kLowerSimple), end, c,
                       [](const CaseMapping& m, char32_t v) { return m.from < v; });
  return (it != end && it->from == c) ? it->to : c;
}

bool IsCased(char32_t c) { return InRanges(kCased, c); }
bool IsCaseIgnorable(char32_t c) { return InRanges(kCaseIgnorable, c); }

// CPython's handle_capital_sigma: U+03A3 at position i is final when a cased letter precedes
// it (skipping case-ignorable ones) and no cased letter follows it (same skipping).
bool IsFinalSigma(std::u32string_view s, std::size_t i) {
  std::size_t j = i;
  char32_t c = 0;
  bool found = false;
  while (j > 0) {
    c = s[--j];
    if (!IsCaseIgnorable(c)) {
      found = true;
      break;
    }
  }
  if (!found || !IsCased(c)) return false;
  for (j = i + 1; j < s.size(); ++j) {
    if (!IsCaseIgnorable(s[j])) return !IsCased(s[j]);
  }
  return true;
}

}  // namespace

const char* UnicodeVersion() { return kUnicodeVersion; }

// Strict UTF-8 is core's (core/utf8.h); these keep the scorers' out-parameter interface.
bool DecodeUtf8(std::string_view bytes, std::u32string* out, std::size_t* error_offset) {
  out->clear();
  out->reserve(bytes.size());
  std::size_t pos = 0;
  core::Utf8Error e;
  while (pos < bytes.size()) {
    const std::optional<char32_t> cp = core::DecodeUtf8At(bytes, &pos, &e);
    if (!cp) {
      *error_offset = e.offset;
      return false;
    }
    out->push_back(*cp);
  }
  return true;
}

void AppendUtf8(std::u32string_view text, std::string* out) {
  for (char32_t c : text) core::AppendUtf8(c, out);
}

std::string EncodeUtf8(std::u32string_view text) { return core::EncodeUtf8(text); }

bool IsPunctuation(char32_t c) { return InRanges(kPunctuation, c); }
bool IsSymbol(char32_t c) { return InRanges(kSymbol, c); }
bool IsNumber(char32_t c) { return InRanges(kNumber, c); }
bool IsDecimalDigit(char32_t c) {
  if (c < 0x80) return c >= '0' && c <= '9';
  return InRanges(kDecimalDigit, c);
}

bool IsPythonSpace(char32_t c) {
  if (c < 0x80) return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20);
  return InRanges(kPythonSpace, c);
}

std::u32string PythonLower(std::u32string_view text) {
  std::u32string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char32_t c = text[i];
    if (c == 0x3A3) {  // GREEK CAPITAL LETTER SIGMA
      out.push_back(IsFinalSigma(text, i) ? 0x3C2 : 0x3C3);
      continue;
    }
    if (c >= 0x80) {
      const SpecialLower* end = std::end(kLowerSpecial);
      const SpecialLower* it = std::find_if(std::begin(kLowerSpecial), end,
                                            [c](const SpecialLower& s) { return s.from == c; });
      if (it != end) {
        out.append(it->to, it->to + it->size);
        continue;
      }
    }
    out.push_back(SimpleLower(c));
  }
  return out;
}

std::u32string_view PythonRstrip(std::u32string_view text) {
  std::size_t n = text.size();
  while (n > 0 && IsPythonSpace(text[n - 1])) --n;
  return text.substr(0, n);
}

}  // namespace trainbench::metrics

#include "text/mini_corpus.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <unordered_set>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/random.h"
#include "core/strings.h"
#include "core/utf8.h"

namespace trainbench::text {

namespace fs = std::filesystem;

core::Json MiniCorpusOptionsJson(const MiniCorpusOptions& o) {
  core::Json j;
  j["fortunes_dir"] = o.fortunes_dir;
  j["min_words"] = o.min_words;
  j["max_words"] = o.max_words;
  j["max_sentences"] = o.max_sentences;
  j["test_size"] = o.test_size;
  j["seed"] = o.seed;
  j["apertium_pair"] = o.apertium.pair;
  return j;
}

namespace {

using core::EndsWith;
bool IsAsciiSpace(unsigned char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}
bool IsUpper(unsigned char c) { return c >= 'A' && c <= 'Z'; }
bool IsLower(unsigned char c) { return c >= 'a' && c <= 'z'; }
bool IsDigit(unsigned char c) { return c >= '0' && c <= '9'; }

std::vector<std::string_view> Lines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    start = end + 1;
  }
  return lines;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsAsciiSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsAsciiSpace(s.back())) s.remove_suffix(1);
  return s;
}

}  // namespace

std::vector<std::string> ListFortuneFiles(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    throw core::FileError(
        dir, 0, "no such folder (the fortune files come with the Debian package fortunes)");
  }
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (e.is_symlink() || !e.is_regular_file()) continue;
    if (EndsWith(name, ".dat") || EndsWith(name, ".u8") || name.empty() || name[0] == '.') continue;
    names.push_back(name);
  }
  if (ec) throw core::FileError(dir, 0, "cannot list: " + ec.message());
  if (names.empty())
    throw core::FileError(dir, 0, "holds no fortune files (install the Debian package fortunes)");
  std::sort(names.begin(), names.end());
  std::vector<std::string> paths;
  for (const auto& n : names) paths.push_back((fs::path(dir) / n).string());
  return paths;
}

std::string StripOverstrike(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '\b') {
      // Remove the previous character (all of its UTF-8 bytes).
      while (!out.empty() && (static_cast<unsigned char>(out.back()) & 0xC0) == 0x80)
        out.pop_back();
      if (!out.empty()) out.pop_back();
      continue;
    }
    out += c;
  }
  return out;
}

std::vector<std::string> SplitFortunes(std::string_view file_text) {
  std::vector<std::string> fortunes;
  std::string cur;
  bool any = false;
  auto flush = [&] {
    if (any && !Trim(cur).empty()) fortunes.push_back(cur);
    cur.clear();
    any = false;
  };
  for (std::string_view line : Lines(file_text)) {
    if (line == "%") {
      flush();
      continue;
    }
    if (any) cur += '\n';
    cur += line;
    any = true;
  }
  flush();
  return fortunes;
}

std::string CollapseWhitespace(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  bool space = false;
  for (char c : s) {
    if (IsAsciiSpace(static_cast<unsigned char>(c))) {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

std::vector<std::string> FortuneParagraphs(std::string_view fortune) {
  std::vector<std::string> paragraphs;
  std::string cur;
  auto flush = [&] {
    std::string p = CollapseWhitespace(cur);
    if (!p.empty()) paragraphs.push_back(std::move(p));
    cur.clear();
  };
  for (std::string_view line : Lines(fortune)) {
    const std::string_view t = Trim(line);
    if (t.substr(0, 2) == "--" || t.substr(0, 3) == "\xE2\x80\x94" ||
        t.substr(0, 3) == "\xE2\x80\x95")
      break;
    if (t.empty()) {
      flush();
      continue;
    }
    cur += ' ';
    cur += line;
  }
  flush();
  return paragraphs;
}

namespace {

bool IsAbbreviation(std::string_view word) {
  // word: the token before the period, without the period, leading punctuation removed.
  static const std::unordered_set<std::string> kAbbrev = {
      "mr",  "mrs", "ms",     "dr",   "st",   "jr",  "sr",   "prof", "vs",   "etc",
      "e.g", "i.e", "no",     "mt",   "gen",  "col", "lt",   "sgt",  "capt", "rev",
      "inc", "ltd", "co",     "corp", "u.s",  "u.k", "ph.d", "a.m",  "p.m",  "fig",
      "vol", "cf",  "approx", "dept", "univ", "ave", "gov",  "sen",  "rep"};
  while (!word.empty() && !IsUpper(word.front()) && !IsLower(word.front())) word.remove_prefix(1);
  if (word.size() == 1 && IsUpper(word[0])) return true;  // an initial: "J. R. R. Tolkien"
  std::string lower(word);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return kAbbrev.count(lower) > 0;
}

bool IsClosing(char c) { return c == '"' || c == '\'' || c == ')' || c == ']'; }
bool CanStartSentence(char c) {
  const auto u = static_cast<unsigned char>(c);
  return IsUpper(u) || IsDigit(u) || c == '"' || c == '\'' || c == '(' || c == '[';
}

}  // namespace

std::vector<std::string> SplitSentences(std::string_view p) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t i = 0; i < p.size(); ++i) {
    const char c = p[i];
    if (c != '.' && c != '!' && c != '?') continue;
    size_t j = i + 1;
    while (j < p.size() && (p[j] == '.' || p[j] == '!' || p[j] == '?')) ++j;
    while (j < p.size() && IsClosing(p[j])) ++j;
    if (j >= p.size() || p[j] != ' ' || j + 1 >= p.size() || !CanStartSentence(p[j + 1])) continue;
    if (c == '.' && j == i + 1) {
      size_t w = i;
      while (w > start && p[w - 1] != ' ') --w;
      if (IsAbbreviation(p.substr(w, i - w))) continue;
    }
    std::string s(Trim(p.substr(start, j - start)));
    if (!s.empty()) out.push_back(std::move(s));
    start = j + 1;
    i = j;
  }
  std::string s(Trim(p.substr(start)));
  if (!s.empty()) out.push_back(std::move(s));
  return out;
}

const char* SentenceFilterName(SentenceFilter f) {
  switch (f) {
    case SentenceFilter::kKeep:
      return "kept";
    case SentenceFilter::kLength:
      return "length";
    case SentenceFilter::kControl:
      return "control_characters";
    case SentenceFilter::kNonAscii:
      return "non_ascii";
    case SentenceFilter::kMarkup:
      return "markup_characters";
    case SentenceFilter::kFewLetters:
      return "few_letters";
    case SentenceFilter::kNoLowercase:
      return "no_lowercase";
  }
  return "?";
}

SentenceFilter FilterSentence(std::string_view s, int min_words, int max_words) {
  int words = 0;
  bool in_word = false;
  for (char c : s) {
    const bool sp = c == ' ';
    if (!sp && !in_word) ++words;
    in_word = !sp;
  }
  if (words < min_words || words > max_words) return SentenceFilter::kLength;
  std::u32string cps;
  try {
    cps = core::DecodeUtf8(s);
  } catch (const core::Error&) {
    return SentenceFilter::kControl;  // not reached: invalid fortunes are dropped before
  }
  size_t non_ascii = 0, letters = 0, non_space = 0;
  bool lower = false;
  for (char32_t cp : cps) {
    if (cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp < 0xA0)) return SentenceFilter::kControl;
  }
  for (char32_t cp : cps) {
    if (cp >= 0x80) ++non_ascii;
  }
  if (non_ascii * 10 > cps.size()) return SentenceFilter::kNonAscii;
  for (char32_t cp : cps) {
    if (cp < 0x80 && std::string_view("{}[]<>|\\_=~^#@*").find(static_cast<char>(cp)) !=
                         std::string_view::npos) {
      return SentenceFilter::kMarkup;
    }
  }
  for (char32_t cp : cps) {
    if (cp == ' ') continue;
    ++non_space;
    const bool is_lower = cp < 0x80 && IsLower(static_cast<unsigned char>(cp));
    if (is_lower || (cp < 0x80 && IsUpper(static_cast<unsigned char>(cp))) ||
        (cp >= 0xC0 && cp < 0x250 && cp != 0xD7 && cp != 0xF7))
      ++letters;
    if (is_lower || (cp >= 0xDF && cp < 0x100 && cp != 0xF7)) lower = true;
  }
  if (letters * 10 < non_space * 6) return SentenceFilter::kFewLetters;
  if (!lower) return SentenceFilter::kNoLowercase;
  return SentenceFilter::kKeep;
}

std::vector<std::string> Dedupe(const std::vector<std::string>& v) {
  std::unordered_set<std::string_view> seen;
  seen.reserve(v.size());
  std::vector<std::string> out;
  for (const auto& s : v) {
    if (seen.insert(s).second) out.push_back(s);
  }
  return out;
}

SplitIndices SplitTrainTest(size_t n, size_t test_size, uint64_t seed) {
  TB_CHECK(test_size <= n, "test_size " << test_size << " > " << n);
  std::vector<size_t> perm(n);
  for (size_t i = 0; i < n; ++i) perm[i] = i;
  // Fisher-Yates over a counter-based stream with rejection sampling: no standard-library
  // distribution, so the split is the same everywhere.
  core::CounterRng rng(core::SeedFor(seed, "translation_split"));
  for (size_t i = n; i > 1; --i) std::swap(perm[i - 1], perm[rng.Below(i)]);
  SplitIndices s;
  s.test.assign(perm.begin(), perm.begin() + static_cast<std::ptrdiff_t>(test_size));
  s.train.assign(perm.begin() + static_cast<std::ptrdiff_t>(test_size), perm.end());
  std::sort(s.test.begin(), s.test.end());
  std::sort(s.train.begin(), s.train.end());
  return s;
}

std::string SentencesHash(const std::vector<std::string>& sentences) {
  return Fnv1a64Hex(JoinLines(sentences));
}

EnglishSentences ExtractEnglishSentences(const MiniCorpusOptions& o) {
  EnglishSentences r;
  r.sources = core::Json::array();
  long long fortunes = 0, invalid = 0, candidates = 0;
  std::vector<long long> dropped(7, 0);
  std::vector<std::string> kept;
  for (const std::string& path : ListFortuneFiles(o.fortunes_dir)) {
    const std::string bytes = core::ReadFile(path);
    core::Json src;
    src["file"] = fs::path(path).filename().string();
    src["bytes"] = bytes.size();
    src["fnv1a64"] = Fnv1a64Hex(bytes);
    r.sources.push_back(src);
    for (const std::string& f : SplitFortunes(StripOverstrike(bytes))) {
      ++fortunes;
      if (!core::IsValidUtf8(f)) {
        ++invalid;
        continue;
      }
      for (const std::string& p : FortuneParagraphs(f)) {
        for (std::string& s : SplitSentences(p)) {
          ++candidates;
          const SentenceFilter why = FilterSentence(s, o.min_words, o.max_words);
          ++dropped[static_cast<size_t>(why)];
          if (why == SentenceFilter::kKeep) kept.push_back(std::move(s));
        }
      }
    }
  }
  r.sentences = Dedupe(kept);
  const long long duplicates = static_cast<long long>(kept.size() - r.sentences.size());
  const long long unique = static_cast<long long>(r.sentences.size());
  if (o.max_sentences > 0 && static_cast<long long>(r.sentences.size()) > o.max_sentences) {
    r.sentences.resize(static_cast<size_t>(o.max_sentences));
  }
  core::Json& c = r.counts;
  c["fortune_files"] = r.sources.size();
  c["fortunes"] = fortunes;
  c["fortunes_invalid_utf8"] = invalid;
  c["candidate_sentences"] = candidates;
  core::Json d;
  for (int f = 1; f < 7; ++f)
    d[SentenceFilterName(static_cast<SentenceFilter>(f))] = dropped[static_cast<size_t>(f)];
  c["dropped_by_filter"] = d;
  c["kept_sentences"] = kept.size();
  c["duplicates"] = duplicates;
  c["unique_sentences"] = unique;
  c["selected_sentences"] = r.sentences.size();
  return r;
}

MiniCorpus BuildMiniCorpus(const MiniCorpusOptions& o) {
  MiniCorpus m;
  m.english = ExtractEnglishSentences(o);
  const std::vector<std::string>& en = m.english.sentences;
  const std::vector<std::string> es = TranslateLines(en, o.apertium, &m.translation);
  ParallelCorpus all;
  for (size_t i = 0; i < en.size(); ++i) {
    bool ok = true;
    try {
      CheckCorpusLine(es[i], "apertium output", static_cast<long>(i + 1));
    } catch (const core::Error&) {
      ok = false;
    }
    if (!ok) {
      ++m.dropped_translations;
      continue;
    }
    all.source.push_back(en[i]);
    all.target.push_back(es[i]);
  }
  if (o.test_size < 1 || static_cast<long long>(all.size()) <= o.test_size) {
    throw core::Error("translation corpus: " + std::to_string(all.size()) +
                      " sentence pairs, too few for test_size " + std::to_string(o.test_size) +
                      " (the test split needs at least 1 pair and train at least 1)");
  }
  const SplitIndices split = SplitTrainTest(all.size(), static_cast<size_t>(o.test_size), o.seed);
  for (size_t i : split.train) {
    m.train.source.push_back(all.source[i]);
    m.train.target.push_back(all.target[i]);
  }
  for (size_t i : split.test) {
    m.test.source.push_back(all.source[i]);
    m.test.target.push_back(all.target[i]);
  }
  return m;
}

}  // namespace trainbench::text

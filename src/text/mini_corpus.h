// The mini English->Spanish corpus of the translation benchmarks (docs/datasets/
// translation_mini.md): English sentences from the Debian `fortunes` package, translated by
// Apertium, split into train and test with a seed. This file holds the deterministic steps
// (reading fortune files, normalising, sentence splitting, filtering, deduplication, the
// split) as pure functions, so that they are tested on hand-made text, and BuildMiniCorpus,
// which runs them end to end. Same options and same input files give the same bytes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/hash.h"
#include "core/json.h"
#include "text/apertium.h"
#include "text/parallel_corpus.h"

namespace trainbench::text {

struct MiniCorpusOptions {
  std::string fortunes_dir = "/usr/share/games/fortunes";  // plain fortune files (not .dat/.u8)
  int min_words = 4;  // sentence length bounds, whitespace-separated words
  int max_words = 25;
  long long max_sentences = 0;  // keep the first N deduplicated sentences (0: all; for tests)
  long long test_size = 1000;   // sentence pairs in the test split
  uint64_t seed = 20181212;     // the train/test split
  ApertiumOptions apertium;     // how to call the translator (not part of what is built)
};

// The options that determine the corpus, as dataset.json records them.
core::Json MiniCorpusOptionsJson(const MiniCorpusOptions& o);

// ---- The steps ----

// Plain fortune files in dir, sorted by name: regular files that are not symlinks and whose
// names do not end in ".dat" (strfile indexes) or ".u8". Throws core::FileError naming dir
// when it is missing or holds none (with a hint to install the package `fortunes`).
std::vector<std::string> ListFortuneFiles(const std::string& dir);

// Removes overstriking: "X\bY" (bold, underline in old fortune files) becomes "Y".
std::string StripOverstrike(std::string_view text);

// Splits a fortune file into fortunes: a line holding only "%" ends one. Empty fortunes are
// dropped. Each fortune keeps its lines, joined by "\n".
std::vector<std::string> SplitFortunes(std::string_view file_text);

// The paragraphs of one fortune, normalised: an attribution line (its first non-blank
// characters are "--" or an em dash) and all lines after it are dropped; blank lines separate
// paragraphs; a paragraph's lines are joined and every run of whitespace becomes one space.
std::vector<std::string> FortuneParagraphs(std::string_view fortune);

// Collapses runs of ASCII whitespace to one space and trims both ends.
std::string CollapseWhitespace(std::string_view s);

// Splits a normalised paragraph into sentences after ".", "!" or "?" (and any closing quotes
// or brackets) when a space and an uppercase letter, digit or opening quote follow, except
// after common abbreviations ("Mr.", "e.g.", "etc.") and single-letter initials.
std::vector<std::string> SplitSentences(std::string_view paragraph);

// Why a sentence is not kept; kKeep when it is.
enum class SentenceFilter {
  kKeep,
  kLength,
  kControl,
  kNonAscii,
  kMarkup,
  kFewLetters,
  kNoLowercase
};
const char* SentenceFilterName(SentenceFilter f);
// kLength: outside [min_words, max_words]; kControl: control characters; kNonAscii: more than
// 10% of the code points are not ASCII; kMarkup: one of {}[]<>|\_=~^#@* (code, ASCII art,
// markup; also Apertium's stream-format characters); kFewLetters: under 60% of the non-space
// characters are letters; kNoLowercase: no lowercase letter (headings, shouting, art).
SentenceFilter FilterSentence(std::string_view sentence, int min_words, int max_words);

// Keeps the first occurrence of each string, in order.
std::vector<std::string> Dedupe(const std::vector<std::string>& v);

// The seeded split of n items: `test_size` indices for test, the others for train, both in
// increasing order. Same (n, test_size, seed) gives the same split on every platform.
struct SplitIndices {
  std::vector<size_t> train;
  std::vector<size_t> test;
};
SplitIndices SplitTrainTest(size_t n, size_t test_size, uint64_t seed);

// ---- End to end ----

struct EnglishSentences {
  std::vector<std::string> sentences;  // normalised, filtered, deduplicated, in file order
  core::Json sources;                  // [{"file", "bytes", "fnv1a64"}] of the fortune files read
  core::Json counts;  // fortunes, dropped fortunes, sentences, drops by filter, duplicates
};
// Reads every fortune file (throws core::FileError naming an unreadable one). A fortune with
// invalid UTF-8 is dropped whole (counted). Then applies options.max_sentences.
EnglishSentences ExtractEnglishSentences(const MiniCorpusOptions& options);

// FNV-1a 64 of bytes: core::Fnv1a64Hex (core/hash.h).
using core::Fnv1a64Hex;
// FNV-1a 64 of the sentences joined as lines (JoinLines): identifies the English side.
std::string SentencesHash(const std::vector<std::string>& sentences);

struct MiniCorpus {
  ParallelCorpus train;
  ParallelCorpus test;
  EnglishSentences english;
  TranslationStats translation;
  long long dropped_translations = 0;  // pairs dropped: empty or invalid translation
};
// Extracts, translates (Apertium), drops pairs whose translation is empty or not a valid
// corpus line, and splits. Throws core::Error when fewer than test_size + 1 pairs remain.
MiniCorpus BuildMiniCorpus(const MiniCorpusOptions& options);

}  // namespace trainbench::text

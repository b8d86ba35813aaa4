// The dataset folders of the translation benchmarks, as `trainbench prepare translation`
// makes or checks them.
//
// mini (docs/datasets/translation_mini.md): train.en, train.es, test.en, test.es (the
// BuildMiniCorpus split), spm.model and spm.vocab (SentencePiece trained on train.en and
// train.es together; the corpora are then stored as SentencePiece normalises them, so that
// Decode(Encode(line)) == line for every line), train.ids and test.ids (both splits encoded,
// text/id_corpus.h: what the workloads read) and dataset.json (options, counts, FNV-1a 64 of
// every file), written last: a folder without dataset.json is built (again); one with it is
// verified instead: same options, every file's size and hash, both corpora read back, the model
// loads with its vocabulary size, and (when the fortune files are there) the English sentences the
// fortunes give today are those the folder was built from. full: a WMT English-German folder
// (train.en/train.de, newstest2014.en/newstest2014.de), checked line by line with the parallel
// reader.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "core/json.h"
#include "text/mini_corpus.h"
#include "text/subword.h"

namespace trainbench::text {

struct MiniTranslationOptions {
  MiniCorpusOptions corpus;
  SubwordOptions subword;
};

// The files of a mini folder, in the order dataset.json lists them.
inline constexpr const char* kMiniTranslationFiles[] = {"train.en",  "train.es",  "test.en",
                                                        "test.es",   "spm.model", "spm.vocab",
                                                        "train.ids", "test.ids"};

struct PrepareResult {
  bool generated = false;  // false: an existing folder was verified
  core::Json dataset;      // dataset.json's content
};

// Builds the mini folder in dir, or verifies it when dir/dataset.json exists. Progress goes to
// `progress` (one line per step; nullptr: silent). Throws core::Error / core::FileError naming
// the file on any mismatch or failure.
PrepareResult PrepareMiniTranslation(const std::string& dir, const MiniTranslationOptions& options,
                                     std::FILE* progress);

struct WmtSplit {
  std::string source_path, target_path;
  long long pairs = 0;
  long long source_bytes = 0, target_bytes = 0;
};
// Checks train.{en,de} and newstest2014.{en,de} in dir; returns {train, test}.
std::vector<WmtSplit> VerifyWmtFolder(const std::string& dir);

struct FullTranslationOptions {
  SubwordOptions subword;  // vocab_size 32768 by default (set by the caller)
  long long spm_max_sentences =
      2000000;  // SentencePiece trains on every k-th pair, at most this many sentences
  double character_coverage = 0.9999;  // WMT has rare characters; the rest become <unk>
};

// The full folder: checks the WMT text (VerifyWmtFolder), then, unless dataset.json is there,
// trains one SentencePiece model with a vocabulary shared by English and German on every k-th
// training pair (k chosen so that at most spm_max_sentences sentences are used; deterministic),
// and writes spm.model, spm.vocab, train.ids and newstest2014.ids (streamed, each written to a
// temporary file renamed into place) and dataset.json (options, counts, sizes and FNV-1a 64 of
// the files it wrote), last. With dataset.json it verifies instead: same options, and every
// file with its recorded size and hash.
PrepareResult PrepareFullTranslation(const std::string& dir, const FullTranslationOptions& options,
                                     std::FILE* progress);

}  // namespace trainbench::text

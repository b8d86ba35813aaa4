// `trainbench score bleu REF_FILE HYP_FILE [--tokenize 13a|intl|t2t|none] [--lowercase]
// [--json]`: the corpus BLEU of a hypothesis file against a line-aligned reference file
// (bleu.h, docs/bleu.md), printed as sacreBLEU's line or as one JSON object.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "core/json.h"
#include "metrics/bleu.h"

namespace trainbench::metrics {

// Bumped whenever a field of the JSON output changes meaning or goes away.
inline constexpr int kScoreBleuSchemaVersion = 1;

struct ScoreBleuOptions {
  std::string ref_file;
  std::string hyp_file;
  std::string tokenize = "13a";  // 13a, intl, t2t or none
  bool lowercase = false;
  bool json = false;
};

// The longest line ReadUtf8Lines reads by default: 1 MiB. A line is one segment, a sentence or
// a paragraph (the longest in WMT test sets are a few KB); a file with a longer one is most
// likely not a line-aligned text file, and it is refused before it fills memory.
inline constexpr std::size_t kMaxLineBytes = std::size_t{1} << 20;

// The lines of a UTF-8 text file, decoded: split at '\n' (a final '\n' ends the last line, it
// does not start a new one), one trailing '\r' of a line dropped. A file that cannot be read,
// is not a regular file (a directory, FIFO or device), has a line longer than max_line_bytes or
// a line that is not valid UTF-8 is a core::Error naming the file (and the line, 1-based).
std::vector<std::u32string> ReadUtf8Lines(const std::string& path,
                                          std::size_t max_line_bytes = kMaxLineBytes);

// {"schema_version", "name": "BLEU", "score", "precisions", "bp", "ratio", "hyp_len",
// "ref_len", "counts", "totals", "segments", "tokenize", "lowercase", "signature",
// "verbose_score"} (docs/bleu.md).
core::Json BleuScoreToJson(const BleuScore& s, const BleuOptions& o, long long segments);

// Reads both files, checks they have the same number of lines, scores, writes the result to
// `out`. Returns 0; bad input (unreadable file, different line counts, invalid UTF-8, unknown
// tokenizer) throws core::Error, which the CLI maps to exit code 2.
int RunScoreBleuCommand(const ScoreBleuOptions& o, std::ostream& out);

}  // namespace trainbench::metrics

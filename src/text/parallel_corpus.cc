#include "text/parallel_corpus.h"

#include <cerrno>
#include <cstring>
#include <fstream>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/utf8.h"

namespace trainbench::text {

namespace {

bool IsSpaceByte(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

// A file read line by line; the "\r" of a CRLF ending is dropped.
class LineReader {
 public:
  explicit LineReader(const std::string& path) : path_(path), in_(path, std::ios::binary) {
    if (!in_) throw core::FileError(path, 0, std::string("cannot open: ") + std::strerror(errno));
  }
  bool Next(std::string* line) {
    if (!std::getline(in_, *line)) {
      if (in_.bad()) throw core::FileError(path_, 0, "read error");
      return false;
    }
    if (!line->empty() && line->back() == '\r') line->pop_back();
    return true;
  }
  long long CountRest() {
    long long n = 0;
    std::string line;
    while (Next(&line)) ++n;
    return n;
  }

 private:
  std::string path_;
  std::ifstream in_;
};

}  // namespace

void CheckCorpusLine(std::string_view line, const std::string& file, long line_number) {
  if (line.empty())
    throw core::FileError(file, line_number, "empty line (every line must hold a sentence)");
  if (line.find('\n') != std::string_view::npos)
    throw core::FileError(file, line_number, "line contains a newline");
  bool blank = true;
  for (char c : line) {
    if (!IsSpaceByte(c)) {
      blank = false;
      break;
    }
  }
  if (blank)
    throw core::FileError(file, line_number,
                          "line holds only whitespace (every line must hold a sentence)");
  if (auto e = core::FindInvalidUtf8(line))
    throw core::FileError(file, line_number, e->Message() + " of the line");
}

long long ForEachParallelLine(
    const std::string& source_path, const std::string& target_path,
    const std::function<void(long long, std::string_view, std::string_view)>& fn) {
  LineReader src(source_path);
  LineReader tgt(target_path);
  std::string s, t;
  long long n = 0;
  for (;;) {
    const bool has_s = src.Next(&s);
    const bool has_t = tgt.Next(&t);
    if (!has_s && !has_t) break;
    if (has_s != has_t) {
      // Count both files to the end so that the message names both lengths.
      const long long n_src = n + (has_s ? 1 + src.CountRest() : 0);
      const long long n_tgt = n + (has_t ? 1 + tgt.CountRest() : 0);
      const std::string& shorter = has_s ? target_path : source_path;
      const std::string& longer = has_s ? source_path : target_path;
      throw core::FileError(shorter, n + 1,
                            "ends here: " + shorter + " has " +
                                std::to_string(has_s ? n_tgt : n_src) + " lines but " + longer +
                                " has " + std::to_string(has_s ? n_src : n_tgt) +
                                " (the files must be line-aligned)");
    }
    ++n;
    CheckCorpusLine(s, source_path, static_cast<long>(n));
    CheckCorpusLine(t, target_path, static_cast<long>(n));
    if (fn) fn(n, s, t);
  }
  if (n == 0)
    throw core::FileError(source_path, 0, "empty corpus (no lines; so is " + target_path + ")");
  return n;
}

ParallelCorpus ReadParallelCorpus(const std::string& source_path, const std::string& target_path) {
  ParallelCorpus c;
  ForEachParallelLine(source_path, target_path,
                      [&](long long, std::string_view s, std::string_view t) {
                        c.source.emplace_back(s);
                        c.target.emplace_back(t);
                      });
  return c;
}

std::string JoinLines(const std::vector<std::string>& lines) {
  size_t bytes = 0;
  for (const auto& l : lines) bytes += l.size() + 1;
  std::string out;
  out.reserve(bytes);
  for (const auto& l : lines) {
    out += l;
    out += '\n';
  }
  return out;
}

void WriteParallelCorpus(const ParallelCorpus& corpus, const std::string& source_path,
                         const std::string& target_path) {
  if (corpus.source.size() != corpus.target.size()) {
    throw core::Error("parallel corpus for " + source_path + " / " + target_path + ": " +
                      std::to_string(corpus.source.size()) + " source lines but " +
                      std::to_string(corpus.target.size()) + " target lines");
  }
  if (corpus.source.empty())
    throw core::FileError(source_path, 0, "refusing to write an empty corpus");
  for (size_t i = 0; i < corpus.size(); ++i) {
    CheckCorpusLine(corpus.source[i], source_path, static_cast<long>(i + 1));
    CheckCorpusLine(corpus.target[i], target_path, static_cast<long>(i + 1));
    // A trailing "\r" would be dropped on reading: refuse it so that what is written reads back.
    if (corpus.source[i].back() == '\r')
      throw core::FileError(source_path, static_cast<long>(i + 1),
                            "line ends with a carriage return");
    if (corpus.target[i].back() == '\r')
      throw core::FileError(target_path, static_cast<long>(i + 1),
                            "line ends with a carriage return");
  }
  core::WriteFileAtomically(source_path, JoinLines(corpus.source));
  core::WriteFileAtomically(target_path, JoinLines(corpus.target));
}

}  // namespace trainbench::text

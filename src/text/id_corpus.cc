#include "text/id_corpus.h"

#include <string_view>

#include "core/atomic_file.h"
#include "core/error.h"
#include "text/vocab.h"

namespace trainbench::text {

namespace {

void AppendIds(std::string& out, const std::vector<int32_t>& ids) {
  for (size_t i = 0; i < ids.size(); ++i) {
    if (i) out += ' ';
    out += std::to_string(ids[i]);
  }
}

std::vector<int32_t> ParseIds(std::string_view s, const std::string& path, long line,
                              const char* side, int vocab_size) {
  std::vector<int32_t> ids;
  if (s.empty()) throw core::FileError(path, line, std::string("empty ") + side + " side");
  size_t pos = 0;
  while (pos <= s.size()) {
    size_t end = s.find(' ', pos);
    if (end == std::string_view::npos) end = s.size();
    std::string_view tok = s.substr(pos, end - pos);
    if (tok.empty() || tok.size() > 9) {
      throw core::FileError(path, line,
                            std::string(side) + " token " + std::to_string(ids.size() + 1) +
                                ": \"" + std::string(tok) + "\" is not an id");
    }
    int64_t v = 0;
    for (char c : tok) {
      if (c < '0' || c > '9') {
        throw core::FileError(path, line,
                              std::string(side) + " token " + std::to_string(ids.size() + 1) +
                                  ": \"" + std::string(tok) + "\" is not an id");
      }
      v = v * 10 + (c - '0');
    }
    if (v >= vocab_size) {
      throw core::FileError(path, line,
                            std::string(side) + " id " + std::to_string(v) +
                                " is outside the vocabulary of " + std::to_string(vocab_size));
    }
    if (v == PieceVocabulary::kPad || v == PieceVocabulary::kBos || v == PieceVocabulary::kEos) {
      throw core::FileError(path, line,
                            std::string(side) + " holds the special id " + std::to_string(v));
    }
    ids.push_back(static_cast<int32_t>(v));
    pos = end + 1;
  }
  return ids;
}

}  // namespace

std::string FormatIdCorpus(const IdCorpus& c) {
  if (c.source.size() != c.target.size())
    throw core::Error("FormatIdCorpus: sides differ in length");
  std::string out;
  for (size_t i = 0; i < c.size(); ++i) {
    if (c.source[i].empty() || c.target[i].empty()) {
      throw core::Error("FormatIdCorpus: pair " + std::to_string(i + 1) + " has an empty side");
    }
    AppendIds(out, c.source[i]);
    out += '\t';
    AppendIds(out, c.target[i]);
    out += '\n';
  }
  return out;
}

IdCorpus ReadIdCorpus(const std::string& path, int vocab_size) {
  const std::string bytes = core::ReadFile(path);
  IdCorpus c;
  size_t pos = 0;
  long line = 0;
  while (pos < bytes.size()) {
    size_t end = bytes.find('\n', pos);
    if (end == std::string::npos) end = bytes.size();
    std::string_view l(bytes.data() + pos, end - pos);
    pos = end + 1;
    ++line;
    const size_t tab = l.find('\t');
    if (tab == std::string_view::npos || l.find('\t', tab + 1) != std::string_view::npos) {
      throw core::FileError(path, line, "expected \"<source ids>\\t<target ids>\"");
    }
    c.source.push_back(ParseIds(l.substr(0, tab), path, line, "source", vocab_size));
    c.target.push_back(ParseIds(l.substr(tab + 1), path, line, "target", vocab_size));
  }
  if (c.size() == 0) throw core::FileError(path, 0, "holds no sentence pairs");
  return c;
}

}  // namespace trainbench::text

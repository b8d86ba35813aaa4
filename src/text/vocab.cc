#include "text/vocab.h"

#include <unordered_set>

#include "core/atomic_file.h"
#include "core/error.h"

namespace trainbench::text {

namespace {
constexpr std::string_view kSpaceSymbol = "\xE2\x96\x81";  // U+2581 LOWER ONE EIGHTH BLOCK
}

PieceVocabulary::PieceVocabulary(std::vector<std::string> pieces) : pieces_(std::move(pieces)) {
  if (pieces_.size() < 4)
    throw core::Error("a piece vocabulary needs at least the 4 special pieces");
}

PieceVocabulary PieceVocabulary::Load(const std::string& path) {
  const std::string bytes = core::ReadFile(path);
  std::vector<std::string> pieces;
  std::unordered_set<std::string> seen;
  size_t pos = 0;
  long line_no = 0;
  while (pos < bytes.size()) {
    size_t end = bytes.find('\n', pos);
    if (end == std::string::npos) end = bytes.size();
    const std::string_view line(bytes.data() + pos, end - pos);
    pos = end + 1;
    ++line_no;
    const size_t tab = line.find('\t');
    if (tab == std::string_view::npos)
      throw core::FileError(path, line_no, "no tab between piece and score");
    std::string piece(line.substr(0, tab));
    if (piece.empty()) throw core::FileError(path, line_no, "empty piece");
    if (!seen.insert(piece).second)
      throw core::FileError(path, line_no, "duplicate piece \"" + piece + "\"");
    pieces.push_back(std::move(piece));
  }
  static const char* kSpecial[] = {"<pad>", "<unk>", "<s>", "</s>"};
  for (int i = 0; i < 4; ++i) {
    if (static_cast<int>(pieces.size()) <= i || pieces[static_cast<size_t>(i)] != kSpecial[i]) {
      throw core::FileError(
          path, i + 1,
          std::string("id ") + std::to_string(i) + " must be " + kSpecial[i] +
              " (trainbench's SentencePiece special ids: pad 0, unk 1, bos 2, eos 3)");
    }
  }
  return PieceVocabulary(std::move(pieces));
}

std::string PieceVocabulary::Decode(const std::vector<int32_t>& ids) const {
  std::string out;
  bool first = true;
  for (int32_t id : ids) {
    if (id < 0 || id >= size()) {
      throw core::Error("piece id " + std::to_string(id) + " outside the vocabulary of " +
                        std::to_string(size()));
    }
    if (id == kPad || id == kBos || id == kEos) continue;
    std::string_view p = id == kUnk ? std::string_view(" \xE2\x81\x87 ")
                                    : std::string_view(pieces_[static_cast<size_t>(id)]);
    std::string text;
    size_t i = 0;
    while (i < p.size()) {
      if (p.compare(i, kSpaceSymbol.size(), kSpaceSymbol) == 0) {
        text += ' ';
        i += kSpaceSymbol.size();
      } else {
        text += p[i++];
      }
    }
    // SentencePiece drops the dummy-prefix space of a normal piece until some piece has given
    // text (so "▁" then "▁cat" decodes to "cat"); <unk>'s surface keeps its spaces.
    if (first && id != kUnk && !text.empty() && text[0] == ' ') text.erase(0, 1);
    if (!text.empty()) first = false;
    out += text;
  }
  return out;
}

}  // namespace trainbench::text

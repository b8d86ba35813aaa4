// A SentencePiece vocabulary read from its .vocab file ("<piece>\t<score>" per id, as spm_train
// and `trainbench prepare translation` write it), for decoding model output to text without
// SentencePiece itself (which must stay out of the LibTorch binary: docs/design.md). Decoding
// follows SentencePiece's for models without byte fallback: control pieces (<pad>, <s>, </s>)
// decode to nothing, <unk> to " \u2047 ", the other pieces are concatenated with U+2581 ("▁")
// turned into a space, and the leading space of normal pieces is dropped until one gives text
// (the dummy prefix). Tested against SentencePiece's Decode on random id sequences. Immutable
// after loading; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace trainbench::text {

class PieceVocabulary {
 public:
  // Reads a .vocab file; a line without a tab, an empty piece or a duplicate piece is a
  // core::FileError naming the file and line. Special ids are SentencePiece's defaults in
  // trainbench (pad 0, unk 1, bos 2, eos 3) and must read "<pad>", "<unk>", "<s>", "</s>".
  static PieceVocabulary Load(const std::string& path);
  // From the pieces in id order (for tests).
  explicit PieceVocabulary(std::vector<std::string> pieces);

  int size() const { return static_cast<int>(pieces_.size()); }
  static constexpr int kPad = 0, kUnk = 1, kBos = 2, kEos = 3;
  const std::string& piece(int id) const { return pieces_.at(static_cast<size_t>(id)); }

  // Text of the ids (see above); an id outside [0, size) is a core::Error.
  std::string Decode(const std::vector<int32_t>& ids) const;

 private:
  std::vector<std::string> pieces_;
};

}  // namespace trainbench::text

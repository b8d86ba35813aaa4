// Subword tokenization with SentencePiece (libsentencepiece, Debian libsentencepiece-dev):
// training a model from sentences in memory, loading one, encoding text to ids and decoding
// ids to text. The translation benchmarks train one model with a vocabulary shared by both
// languages on the training split only (`trainbench prepare translation`).
//
// Determinism: with input_sentence_size = 0 (all sentences, no sampling) and a fixed seed,
// training the same sentences with the same num_threads gives the same model bytes (tested
// with 1; also measured with 2), but 1 and 2 threads give different models: keep 1. Special ids:
// pad 0, unk 1, bos 2, eos 3. Text is normalised with SentencePiece's nmt_nfkc rule, so
// Decode(Encode(s)) == s holds for text that is NFKC-normal with single spaces and no
// leading or trailing space, made only of characters seen in training (character_coverage 1).
// Threading: a SubwordModel is immutable after construction; Encode/Decode are thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace sentencepiece {
class SentencePieceProcessor;
}

namespace trainbench::text {

struct SubwordOptions {
  int vocab_size = 4000;
  std::string model_type = "unigram";  // unigram or bpe
  double character_coverage = 1.0;     // every character of the training text gets a piece
  int num_threads = 1;                 // 1: deterministic
  uint32_t seed = 1;                   // SentencePiece's random generator seed
};

class SubwordModel {
 public:
  SubwordModel(SubwordModel&&) noexcept;
  SubwordModel& operator=(SubwordModel&&) noexcept;
  ~SubwordModel();

  // Trains on `sentences` (each one line, no "\n"). Throws core::Error with SentencePiece's
  // message when training fails (e.g. a vocabulary larger than the text allows).
  static SubwordModel Train(const std::vector<std::string>& sentences,
                            const SubwordOptions& options);
  // Loads a serialized model (the bytes of a .model file); `what` names it in errors.
  static SubwordModel FromSerialized(std::string bytes,
                                     const std::string& what = "sentencepiece model");
  // Loads a .model file; throws core::Error naming the path.
  static SubwordModel Load(const std::string& path);

  // The model as SentencePiece's .model file holds it.
  const std::string& serialized() const { return serialized_; }
  // The vocabulary as spm_train's .vocab file: "<piece>\t<score>\n" for every id in order.
  std::string VocabText() const;

  int vocab_size() const;
  int pad_id() const;
  int unk_id() const;
  int bos_id() const;
  int eos_id() const;
  std::string IdToPiece(int id) const;

  std::vector<int> Encode(std::string_view text) const;
  std::vector<std::string> EncodePieces(std::string_view text) const;
  std::string Decode(const std::vector<int>& ids) const;

 private:
  SubwordModel();
  std::unique_ptr<sentencepiece::SentencePieceProcessor> sp_;
  std::string serialized_;
};

}  // namespace trainbench::text

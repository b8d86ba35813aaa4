#include "text/subword.h"

#include <sentencepiece_processor.h>
#include <sentencepiece_trainer.h>

#include <sstream>
#include <unordered_map>

#include "core/atomic_file.h"
#include "core/error.h"

namespace trainbench::text {

namespace {

class VectorIterator : public sentencepiece::SentenceIterator {
 public:
  explicit VectorIterator(const std::vector<std::string>& v) : v_(v) {}
  bool done() const override { return i_ >= v_.size(); }
  void Next() override { ++i_; }
  const std::string& value() const override { return v_[i_]; }
  sentencepiece::util::Status status() const override { return {}; }

 private:
  const std::vector<std::string>& v_;
  size_t i_ = 0;
};

std::string FormatDouble(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

}  // namespace

SubwordModel::SubwordModel() : sp_(std::make_unique<sentencepiece::SentencePieceProcessor>()) {}
SubwordModel::SubwordModel(SubwordModel&&) noexcept = default;
SubwordModel& SubwordModel::operator=(SubwordModel&&) noexcept = default;
SubwordModel::~SubwordModel() = default;

SubwordModel SubwordModel::Train(const std::vector<std::string>& sentences,
                                 const SubwordOptions& o) {
  for (const auto& s : sentences)
    TB_CHECK(s.find('\n') == std::string::npos, "training sentence holds a newline");
  const std::unordered_map<std::string, std::string> args = {
      {"model_type", o.model_type},
      {"vocab_size", std::to_string(o.vocab_size)},
      {"character_coverage", FormatDouble(o.character_coverage)},
      {"num_threads", std::to_string(o.num_threads)},
      {"input_sentence_size", "0"},
      {"shuffle_input_sentence", "false"},
      {"pad_id", "0"},
      {"unk_id", "1"},
      {"bos_id", "2"},
      {"eos_id", "3"},
      {"normalization_rule_name", "nmt_nfkc"},
      {"minloglevel", "2"},
  };
  sentencepiece::SetRandomGeneratorSeed(o.seed);
  VectorIterator it(sentences);
  std::string model;
  const auto status = sentencepiece::SentencePieceTrainer::Train(args, &it, &model);
  if (!status.ok())
    throw core::Error("sentencepiece training (vocab_size " + std::to_string(o.vocab_size) + ", " +
                      std::to_string(sentences.size()) + " sentences): " + status.ToString());
  return FromSerialized(std::move(model), "trained sentencepiece model");
}

SubwordModel SubwordModel::FromSerialized(std::string bytes, const std::string& what) {
  SubwordModel m;
  const auto status = m.sp_->LoadFromSerializedProto(bytes);
  if (!status.ok()) throw core::Error(what + ": not a sentencepiece model: " + status.ToString());
  m.serialized_ = std::move(bytes);
  return m;
}

SubwordModel SubwordModel::Load(const std::string& path) {
  return FromSerialized(core::ReadFile(path), path);
}

std::string SubwordModel::VocabText() const {
  std::ostringstream os;
  for (int i = 0; i < sp_->GetPieceSize(); ++i)
    os << sp_->IdToPiece(i) << "\t" << sp_->GetScore(i) << "\n";
  return os.str();
}

int SubwordModel::vocab_size() const { return sp_->GetPieceSize(); }
int SubwordModel::pad_id() const { return sp_->pad_id(); }
int SubwordModel::unk_id() const { return sp_->unk_id(); }
int SubwordModel::bos_id() const { return sp_->bos_id(); }
int SubwordModel::eos_id() const { return sp_->eos_id(); }
std::string SubwordModel::IdToPiece(int id) const { return sp_->IdToPiece(id); }

std::vector<int> SubwordModel::Encode(std::string_view text) const {
  std::vector<int> ids;
  const auto status = sp_->Encode(text, &ids);
  if (!status.ok()) throw core::Error("sentencepiece encode: " + status.ToString());
  return ids;
}

std::vector<std::string> SubwordModel::EncodePieces(std::string_view text) const {
  std::vector<std::string> pieces;
  const auto status = sp_->Encode(text, &pieces);
  if (!status.ok()) throw core::Error("sentencepiece encode: " + status.ToString());
  return pieces;
}

std::string SubwordModel::Decode(const std::vector<int>& ids) const {
  std::string text;
  const auto status = sp_->Decode(ids, &text);
  if (!status.ok()) throw core::Error("sentencepiece decode: " + status.ToString());
  return text;
}

}  // namespace trainbench::text

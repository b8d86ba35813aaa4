#include "text/translation_dataset.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/progress.h"
#include "text/id_corpus.h"
#include "text/parallel_corpus.h"
#include "text/vocab.h"

namespace trainbench::text {

namespace fs = std::filesystem;

namespace {

using core::Say;
using core::SecondsSince;

core::Json SubwordOptionsJson(const SubwordOptions& o) {
  core::Json j;
  j["vocab_size"] = o.vocab_size;
  j["model_type"] = o.model_type;
  j["character_coverage"] = o.character_coverage;
  j["num_threads"] = o.num_threads;
  j["seed"] = o.seed;
  j["normalization_rule_name"] = "nmt_nfkc";
  j["special_ids"] = {{"pad", 0}, {"unk", 1}, {"bos", 2}, {"eos", 3}};
  j["trained_on"] = "train.en + train.es";
  return j;
}

core::Json OptionsJson(const MiniTranslationOptions& o) {
  core::Json j;
  j["corpus"] = MiniCorpusOptionsJson(o.corpus);
  j["subword"] = SubwordOptionsJson(o.subword);
  return j;
}

void Verify(const std::string& dir, const MiniTranslationOptions& o, const core::Json& dataset,
            std::FILE* progress) {
  const std::string json_path = dir + "/dataset.json";
  const core::Json want = OptionsJson(o);
  if (dataset.value("schema_version", 0) != 2)
    throw core::FileError(
        json_path, 0,
        "schema_version " + dataset.value("schema_version", core::Json(0)).dump() +
            ": built by an older trainbench (this one writes 2, with train.ids and "
            "test.ids); remove the folder to rebuild it");
  if (!dataset.contains("options"))
    throw core::FileError(json_path, 0, "no \"options\"; remove the folder to rebuild it");
  const std::string diff = core::JsonFirstDifference(want, dataset["options"]);
  if (!diff.empty()) {
    throw core::FileError(json_path, 0,
                          "the folder was built with other options: " + diff + " is " +
                              core::JsonValueAt(dataset["options"], diff) + ", requested " +
                              core::JsonValueAt(want, diff) + "; remove the folder to rebuild it");
  }
  const core::Json& files = dataset.value("files", core::Json::object());
  for (const char* name : kMiniTranslationFiles) {
    const std::string path = dir + "/" + name;
    if (!files.contains(name)) throw core::FileError(json_path, 0, std::string("lists no ") + name);
    if (!fs::exists(path))
      throw core::FileError(
          path, 0, "missing (listed in " + json_path + "); remove the folder to rebuild it");
    const std::string bytes = core::ReadFile(path);
    const core::Json& f = files[name];
    if (f.value("bytes", -1LL) != static_cast<long long>(bytes.size()) ||
        f.value("fnv1a64", "") != Fnv1a64Hex(bytes)) {
      throw core::FileError(path, 0,
                            "differs from what " + json_path + " records (" +
                                std::to_string(bytes.size()) + " bytes, fnv1a64 " +
                                Fnv1a64Hex(bytes) + "; recorded " +
                                std::to_string(f.value("bytes", -1LL)) + " bytes, " +
                                f.value("fnv1a64", "?") + "); remove the folder to rebuild it");
    }
  }
  const core::Json& counts = dataset.value("counts", core::Json::object());
  for (const char* split : {"train", "test"}) {
    const std::string en = dir + "/" + split + ".en", es = dir + "/" + split + ".es";
    const long long n = ForEachParallelLine(en, es, nullptr);
    const long long want_n = counts.value(std::string(split) + "_pairs", -1LL);
    if (n != want_n)
      throw core::FileError(en, 0,
                            "holds " + std::to_string(n) + " pairs; " + json_path + " says " +
                                std::to_string(want_n));
    const IdCorpus ids =
        ReadIdCorpus(dir + "/" + split + ".ids", static_cast<int>(counts.value("spm_pieces", 0LL)));
    if (static_cast<long long>(ids.size()) != n)
      throw core::FileError(
          dir + "/" + split + ".ids", 0,
          "holds " + std::to_string(ids.size()) + " pairs; " + en + " holds " + std::to_string(n));
    Say(progress, "  %s/%s.{en,es,ids}: %lld sentence pairs, ok\n", dir.c_str(), split, n);
  }
  PieceVocabulary::Load(dir + "/spm.vocab");
  const SubwordModel spm = SubwordModel::Load(dir + "/spm.model");
  if (spm.vocab_size() != counts.value("spm_pieces", -1LL)) {
    throw core::FileError(dir + "/spm.model", 0,
                          "has " + std::to_string(spm.vocab_size()) + " pieces; " + json_path +
                              " says " + std::to_string(counts.value("spm_pieces", -1LL)));
  }
  Say(progress, "  %s/spm.model: loads, %d pieces\n", dir.c_str(), spm.vocab_size());
  if (std::error_code ec; fs::is_directory(o.corpus.fortunes_dir, ec)) {
    const EnglishSentences en = ExtractEnglishSentences(o.corpus);
    const std::string h = SentencesHash(en.sentences);
    const std::string recorded = dataset.value("english_sentences_fnv1a64", "");
    if (h != recorded) {
      throw core::FileError(
          json_path, 0,
          "the fortunes in " + o.corpus.fortunes_dir + " give other English sentences (fnv1a64 " +
              h + ") than those the folder was built from (" + recorded +
              "): another version of the fortunes package? remove the folder to rebuild it");
    }
    Say(progress, "  %s: gives the same English sentences\n", o.corpus.fortunes_dir.c_str());
  } else {
    Say(progress, "  %s: not there, the English side is not checked against it\n",
        o.corpus.fortunes_dir.c_str());
  }
}

}  // namespace

PrepareResult PrepareMiniTranslation(const std::string& dir, const MiniTranslationOptions& o,
                                     std::FILE* progress) {
  PrepareResult r;
  const std::string json_path = dir + "/dataset.json";
  if (fs::exists(json_path)) {
    try {
      r.dataset = core::ParseJson(core::ReadFile(json_path));
    } catch (const core::JsonError& e) {
      throw core::FileError(
          json_path, 0,
          std::string("not valid JSON (") + e.what() + "); remove the folder to rebuild it");
    }
    if (!r.dataset.is_object()) {
      throw core::FileError(json_path, 0, "not a JSON object; remove the folder to rebuild it");
    }
    Verify(dir, o, r.dataset, progress);
    return r;
  }
  const auto t0 = std::chrono::steady_clock::now();
  Say(progress, "  reading the fortunes in %s, translating with %s %s\n",
      o.corpus.fortunes_dir.c_str(), o.corpus.apertium.command.c_str(),
      o.corpus.apertium.pair.c_str());
  auto t = std::chrono::steady_clock::now();
  MiniCorpus m = BuildMiniCorpus(o.corpus);
  const double build_s = SecondsSince(t);
  Say(progress, "  %zu English sentences, %lld apertium calls, %.1f s\n",
      m.english.sentences.size(), m.translation.calls, build_s);

  t = std::chrono::steady_clock::now();
  std::vector<std::string> spm_input = m.train.source;
  spm_input.insert(spm_input.end(), m.train.target.begin(), m.train.target.end());
  const SubwordModel spm = SubwordModel::Train(spm_input, o.subword);
  const double spm_s = SecondsSince(t);
  Say(progress, "  sentencepiece: %d pieces trained on %zu sentences in %.1f s\n", spm.vocab_size(),
      spm_input.size(), spm_s);

  // The files hold the text as SentencePiece normalises it (nmt_nfkc: e.g. Apertium's ordinal
  // indicators "11.\u00BA" become "11.o"), so that Decode(Encode(line)) == line for every line.
  // Training normalises its input the same way, so the model does not change. A line with a piece
  // unknown to the model (only possible in test) stays as it is and is counted.
  long long normalised_train = 0, normalised_test = 0, unk_test = 0;
  for (ParallelCorpus* c : {&m.train, &m.test}) {
    for (auto* side : {&c->source, &c->target}) {
      for (std::string& line : *side) {
        const std::vector<int> ids = spm.Encode(line);
        if (std::find(ids.begin(), ids.end(), spm.unk_id()) != ids.end()) {
          ++unk_test;
          continue;
        }
        std::string back = spm.Decode(ids);
        if (back != line) {
          ++(c == &m.train ? normalised_train : normalised_test);
          line = std::move(back);
        }
      }
    }
  }

  core::MakeDirs(dir);
  WriteParallelCorpus(m.train, dir + "/train.en", dir + "/train.es");
  WriteParallelCorpus(m.test, dir + "/test.en", dir + "/test.es");
  core::WriteFileAtomically(dir + "/spm.model", spm.serialized());
  core::WriteFileAtomically(dir + "/spm.vocab", spm.VocabText());
  long long train_tokens = 0;
  for (const char* split : {"train", "test"}) {
    const ParallelCorpus& c = std::string(split) == "train" ? m.train : m.test;
    IdCorpus ids;
    for (size_t i = 0; i < c.size(); ++i) {
      auto enc = [&](const std::string& line) {
        std::vector<int> v = spm.Encode(line);
        return std::vector<int32_t>(v.begin(), v.end());
      };
      ids.source.push_back(enc(c.source[i]));
      ids.target.push_back(enc(c.target[i]));
      if (&c == &m.train) {
        train_tokens += static_cast<long long>(ids.source.back().size() + ids.target.back().size());
      }
    }
    core::WriteFileAtomically(dir + "/" + split + ".ids", FormatIdCorpus(ids));
  }

  core::Json& d = r.dataset;
  d["schema_version"] = 2;  // 2: train.ids and test.ids
  d["dataset"] = "translation_mini";
  d["languages"] = {{"source", "en"}, {"target", "es"}};
  d["options"] = OptionsJson(o);
  core::Json counts = m.english.counts;
  counts["translation_calls"] = m.translation.calls;
  counts["translation_misaligned_calls"] = m.translation.misaligned;
  counts["translation_split_lines"] = m.translation.split_lines;
  counts["dropped_translations"] = m.dropped_translations;
  counts["pairs"] = m.train.size() + m.test.size();
  counts["train_pairs"] = m.train.size();
  counts["test_pairs"] = m.test.size();
  counts["spm_pieces"] = spm.vocab_size();
  counts["spm_normalised_train_lines"] = normalised_train;
  counts["spm_normalised_test_lines"] = normalised_test;
  counts["spm_lines_with_unk"] = unk_test;
  counts["train_pieces"] = train_tokens;
  d["counts"] = counts;
  d["english_sentences_fnv1a64"] = SentencesHash(m.english.sentences);
  d["sources"] = m.english.sources;
  core::Json files;
  for (const char* name : kMiniTranslationFiles) {
    const std::string bytes = core::ReadFile(dir + "/" + name);
    files[name] = {{"bytes", bytes.size()}, {"fnv1a64", Fnv1a64Hex(bytes)}};
  }
  d["files"] = files;
  core::WriteFileAtomically(json_path, d.dump(2) + "\n");
  Say(progress, "  %zu train and %zu test pairs written in %.1f s\n", m.train.size(), m.test.size(),
      SecondsSince(t0));
  r.generated = true;
  return r;
}

std::vector<WmtSplit> VerifyWmtFolder(const std::string& dir) {
  std::vector<WmtSplit> out;
  for (const char* split : {"train", "newstest2014"}) {
    WmtSplit s;
    s.source_path = dir + "/" + split + ".en";
    s.target_path = dir + "/" + split + ".de";
    s.pairs = ForEachParallelLine(s.source_path, s.target_path,
                                  [&](long long, std::string_view a, std::string_view b) {
                                    s.source_bytes += static_cast<long long>(a.size()) + 1;
                                    s.target_bytes += static_cast<long long>(b.size()) + 1;
                                  });
    out.push_back(s);
  }
  return out;
}

namespace {

// Streams lines to path + ".part", renamed to path by Commit(); a failure leaves no file at path.
class StreamingFile {
 public:
  explicit StreamingFile(std::string path)
      : path_(std::move(path)),
        tmp_(path_ + ".part"),
        out_(tmp_, std::ios::binary | std::ios::trunc) {
    if (!out_) throw core::FileError(tmp_, 0, "cannot create");
  }
  void Write(const std::string& bytes) {
    out_.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    for (char c : bytes) hash_ = (hash_ ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
    size_ += static_cast<long long>(bytes.size());
  }
  core::Json Commit() {
    out_.close();
    if (!out_) throw core::FileError(tmp_, 0, "write failed");
    fs::rename(tmp_, path_);
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(hash_));
    return {{"bytes", size_}, {"fnv1a64", std::string(buf)}};
  }

 private:
  std::string path_, tmp_;
  std::ofstream out_;
  uint64_t hash_ = 0xcbf29ce484222325ull;
  long long size_ = 0;
};

// FNV-1a 64 of a file read in chunks.
core::Json FileFacts(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw core::FileError(path, 0, "cannot open");
  uint64_t h = 0xcbf29ce484222325ull;
  long long n = 0;
  std::vector<char> buf(1 << 20);
  while (in) {
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    const std::streamsize got = in.gcount();
    for (std::streamsize i = 0; i < got; ++i)
      h = (h ^ static_cast<unsigned char>(buf[static_cast<size_t>(i)])) * 0x100000001b3ull;
    n += got;
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return {{"bytes", n}, {"fnv1a64", std::string(hex)}};
}

constexpr const char* kFullFiles[] = {"spm.model", "spm.vocab", "train.ids", "newstest2014.ids"};

}  // namespace

PrepareResult PrepareFullTranslation(const std::string& dir, const FullTranslationOptions& o,
                                     std::FILE* progress) {
  PrepareResult r;
  const std::vector<WmtSplit> splits = VerifyWmtFolder(dir);
  for (const WmtSplit& sp : splits)
    Say(progress, "  %s / %s: %lld sentence pairs, ok\n", sp.source_path.c_str(),
        sp.target_path.c_str(), sp.pairs);
  SubwordOptions so = o.subword;
  so.character_coverage = o.character_coverage;
  core::Json options = {{"subword", SubwordOptionsJson(so)},
                        {"spm_max_sentences", o.spm_max_sentences}};
  options["subword"]["trained_on"] = "every k-th pair of train.en + train.de";
  const std::string json_path = dir + "/dataset.json";
  if (fs::exists(json_path)) {
    try {
      r.dataset = core::ParseJson(core::ReadFile(json_path));
    } catch (const core::JsonError& e) {
      throw core::FileError(
          json_path, 0,
          std::string("not valid JSON (") + e.what() + "); remove it to rebuild the ids");
    }
    if (!r.dataset.is_object())
      throw core::FileError(json_path, 0, "not a JSON object; remove it to rebuild the ids");
    const std::string diff =
        core::JsonFirstDifference(options, r.dataset.value("options", core::Json::object()));
    if (!diff.empty()) {
      throw core::FileError(json_path, 0,
                            "built with other options: " + diff + " is " +
                                core::JsonValueAt(r.dataset["options"], diff) + ", requested " +
                                core::JsonValueAt(options, diff) +
                                "; remove it to rebuild the ids");
    }
    for (const char* name : kFullFiles) {
      const core::Json want = r.dataset["files"].value(name, core::Json::object());
      const core::Json got = FileFacts(dir + "/" + name);
      if (got != want) {
        throw core::FileError(dir + "/" + name, 0,
                              "differs from what " + json_path + " records (" + got.dump() +
                                  ", recorded " + want.dump() +
                                  "); remove dataset.json to rebuild the ids");
      }
    }
    Say(progress, "  spm.model, spm.vocab, train.ids, newstest2014.ids: as dataset.json records\n");
    return r;
  }
  // SentencePiece input: every k-th training pair, both sides.
  const long long pairs = splits[0].pairs;
  const long long k =
      std::max(1LL, (2 * pairs + o.spm_max_sentences - 1) / std::max(1LL, o.spm_max_sentences));
  std::vector<std::string> sample;
  ForEachParallelLine(splits[0].source_path, splits[0].target_path,
                      [&](long long line, std::string_view a, std::string_view b) {
                        if ((line - 1) % k != 0) return;
                        sample.emplace_back(a);
                        sample.emplace_back(b);
                      });
  auto t = std::chrono::steady_clock::now();
  const SubwordModel spm = SubwordModel::Train(sample, so);
  Say(progress,
      "  sentencepiece: %d pieces trained on %zu sentences (every %lld-th pair) in %.1f s\n",
      spm.vocab_size(), sample.size(), k, SecondsSince(t));
  sample.clear();
  core::MakeDirs(dir);
  core::Json files;
  {
    StreamingFile f(dir + "/spm.model");
    f.Write(spm.serialized());
    files["spm.model"] = f.Commit();
  }
  {
    StreamingFile f(dir + "/spm.vocab");
    f.Write(spm.VocabText());
    files["spm.vocab"] = f.Commit();
  }
  core::Json counts = {{"spm_pieces", spm.vocab_size()},
                       {"spm_sentences", 2 * ((pairs + k - 1) / k)}};
  const char* ids_names[] = {"train.ids", "newstest2014.ids"};
  for (size_t i = 0; i < splits.size(); ++i) {
    t = std::chrono::steady_clock::now();
    StreamingFile f(dir + "/" + ids_names[i]);
    long long unk = 0, n = 0;
    std::string buf;
    ForEachParallelLine(splits[i].source_path, splits[i].target_path,
                        [&](long long, std::string_view a, std::string_view b) {
                          IdCorpus one;
                          for (auto* side : {&a, &b}) {
                            std::vector<int> v = spm.Encode(*side);
                            unk += std::count(v.begin(), v.end(), spm.unk_id());
                            (side == &a ? one.source : one.target).emplace_back(v.begin(), v.end());
                          }
                          buf += FormatIdCorpus(one);
                          if (buf.size() > (1u << 22)) {
                            f.Write(buf);
                            buf.clear();
                          }
                          ++n;
                        });
    f.Write(buf);
    files[ids_names[i]] = f.Commit();
    counts[std::string(ids_names[i]) + "_pairs"] = n;
    counts[std::string(ids_names[i]) + "_unk_pieces"] = unk;
    Say(progress, "  %s: %lld pairs encoded (%lld <unk> pieces) in %.1f s\n", ids_names[i], n, unk,
        SecondsSince(t));
  }
  r.dataset = {{"schema_version", 2},
               {"dataset", "wmt_en_de"},
               {"languages", {{"source", "en"}, {"target", "de"}}},
               {"options", options},
               {"counts", counts},
               {"files", files}};
  core::WriteFileAtomically(json_path, r.dataset.dump(2) + "\n");
  r.generated = true;
  return r;
}

}  // namespace trainbench::text

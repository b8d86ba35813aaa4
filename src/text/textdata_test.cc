#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <random>
#include <set>

#include "core/atomic_file.h"
#include "core/error.h"
#include "text/id_corpus.h"
#include "text/subword.h"
#include "text/token_batching.h"
#include "text/vocab.h"

namespace trainbench::text {
namespace {

namespace fs = std::filesystem;

std::string TempPath(const std::string& name) {
  fs::path d = fs::temp_directory_path() / ("textdata_test_" + std::to_string(::getpid()));
  fs::create_directories(d);
  return (d / name).string();
}

std::vector<std::string> Sentences() {
  return {"The cat sat on the mat.",
          "A dog is not a cat.",
          "Time flies like an arrow.",
          "El gato es en la mesa.",
          "Un perro no es un gato.",
          "El tiempo vuela como una flecha.",
          "Fruit flies like a banana.",
          "Las moscas de fruta gustan un plátano.",
          "Never put off till tomorrow what you can do today.",
          "Nunca dejes para mañana lo que puedes hacer hoy."};
}

TEST(PieceVocabularyTest, DecodesAsSentencePieceDoes) {
  SubwordOptions o;
  o.vocab_size = 60;
  const SubwordModel spm = SubwordModel::Train(Sentences(), o);
  const std::string path = TempPath("spm.vocab");
  core::WriteFileAtomically(path, spm.VocabText());
  const PieceVocabulary v = PieceVocabulary::Load(path);
  ASSERT_EQ(v.size(), spm.vocab_size());
  // Round trips of real sentences, then random id sequences with the special ids in them.
  for (const std::string& s : Sentences()) {
    std::vector<int> ids = spm.Encode(s);
    EXPECT_EQ(v.Decode(std::vector<int32_t>(ids.begin(), ids.end())), s);
  }
  std::mt19937 rng(7);
  for (int t = 0; t < 500; ++t) {
    std::vector<int> ids(1 + rng() % 12);
    for (int& id : ids) id = static_cast<int>(rng() % static_cast<unsigned>(v.size()));
    EXPECT_EQ(v.Decode(std::vector<int32_t>(ids.begin(), ids.end())), spm.Decode(ids))
        << "case " << t;
  }
  EXPECT_THROW(v.Decode({v.size()}), core::Error);
}

TEST(PieceVocabularyTest, BadFilesNameTheLine) {
  const std::string path = TempPath("bad.vocab");
  core::WriteFileAtomically(path, "<pad>\t0\n<unk>\t0\n<s>\t0\n</s>\t0\nab 1\n");
  try {
    PieceVocabulary::Load(path);
    FAIL();
  } catch (const core::Error& e) {
    EXPECT_NE(std::string(e.what()).find(path + ":5: no tab"), std::string::npos) << e.what();
  }
  core::WriteFileAtomically(path, "<pad>\t0\n<s>\t0\n");
  try {
    PieceVocabulary::Load(path);
    FAIL();
  } catch (const core::Error& e) {
    EXPECT_NE(std::string(e.what()).find(path + ":2: id 1 must be <unk>"), std::string::npos)
        << e.what();
  }
}

TEST(IdCorpusTest, RoundTripAndErrors) {
  IdCorpus c;
  c.source = {{4, 5, 6}, {7}};
  c.target = {{8, 9}, {10, 11, 12, 13}};
  const std::string path = TempPath("a.ids");
  core::WriteFileAtomically(path, FormatIdCorpus(c));
  EXPECT_EQ(core::ReadFile(path), "4 5 6\t8 9\n7\t10 11 12 13\n");
  IdCorpus back = ReadIdCorpus(path, 14);
  EXPECT_EQ(back.source, c.source);
  EXPECT_EQ(back.target, c.target);
  auto error_of = [&](const std::string& bytes, int vocab) {
    core::WriteFileAtomically(path, bytes);
    try {
      ReadIdCorpus(path, vocab);
    } catch (const core::Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error_of("4 5\t6\n7 8\n", 14).find(path + ":2: expected"), std::string::npos);
  EXPECT_NE(error_of("4 5\t6\n7\t\n", 14).find(path + ":2: empty target side"), std::string::npos);
  EXPECT_NE(error_of("4 x\t6\n", 14).find(path + ":1: source token 2: \"x\" is not an id"),
            std::string::npos);
  EXPECT_NE(error_of("4  5\t6\n", 14).find(path + ":1: source token 2"), std::string::npos);
  EXPECT_NE(error_of("4\t6 14\n", 14).find(path + ":1: target id 14 is outside"),
            std::string::npos);
  EXPECT_NE(error_of("4\t3\n", 14).find(path + ":1: target holds the special id 3"),
            std::string::npos);
  EXPECT_NE(error_of("", 14).find("holds no sentence pairs"), std::string::npos);
}

std::vector<LengthPair> RandomLengths(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<LengthPair> l(n);
  for (auto& p : l) {
    p.source = 1 + static_cast<int32_t>(rng() % 40);
    p.target = 1 + static_cast<int32_t>(rng() % 40);
  }
  return l;
}

TEST(TokenBatchingTest, EveryPairExactlyOncePerEpochWithinBudget) {
  const auto lengths = RandomLengths(2000, 3);
  TokenBatchingOptions o;
  o.max_tokens = 500;
  o.seed = 11;
  std::vector<std::vector<int32_t>> previous;
  for (int epoch = 1; epoch <= 3; ++epoch) {
    auto batches = MakeTokenBatches(lengths, o, epoch);
    std::vector<int> seen(lengths.size(), 0);
    for (const auto& b : batches) {
      ASSERT_FALSE(b.empty());
      int64_t longest = 0;
      for (int32_t i : b) {
        ++seen[static_cast<size_t>(i)];
        longest = std::max<int64_t>(longest, std::max(lengths[static_cast<size_t>(i)].source,
                                                      lengths[static_cast<size_t>(i)].target));
      }
      EXPECT_LE(static_cast<int64_t>(b.size()) * longest, o.max_tokens);
    }
    EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int s) { return s == 1; }))
        << "epoch " << epoch;
    EXPECT_EQ(MakeTokenBatches(lengths, o, epoch), batches) << "deterministic";
    EXPECT_NE(batches, previous) << "each epoch its own order";
    previous = batches;
  }
}

TEST(TokenBatchingTest, LimitsAndUnshuffledOrder) {
  std::vector<LengthPair> lengths = {{3, 4}, {10, 2}, {1, 1}, {600, 3}, {4, 3}};
  TokenBatchingOptions o;
  o.max_tokens = 20;
  o.max_sentences = 2;
  o.shuffle = false;
  auto b = MakeTokenBatches(lengths, o, 1);
  // By (source, target) length: 2 (1,1), 0 (3,4), 4 (4,3), 1 (10,2), 3 (600: alone).
  ASSERT_EQ(b.size(), 3u);
  EXPECT_EQ(b[0], (std::vector<int32_t>{2, 0}));
  EXPECT_EQ(b[1], (std::vector<int32_t>{4, 1}));
  EXPECT_EQ(b[2], (std::vector<int32_t>{3}));
  o.max_tokens = 0;
  EXPECT_THROW(MakeTokenBatches(lengths, o, 1), core::Error);
}

TEST(TokenBatchingTest, ShardsAreDisjointAndEqualInCount) {
  const auto lengths = RandomLengths(999, 5);
  TokenBatchingOptions o;
  o.max_tokens = 300;
  auto all = MakeTokenBatches(lengths, o, 2);
  std::set<int32_t> seen;
  size_t count = 0;
  for (int r = 0; r < 3; ++r) {
    auto s = ShardBatches(all, r, 3);
    EXPECT_EQ(s.size(), all.size() / 3);
    for (const auto& b : s)
      for (int32_t i : b) {
        EXPECT_TRUE(seen.insert(i).second);
        ++count;
      }
  }
  EXPECT_EQ(seen.size(), count);
  EXPECT_EQ(ShardBatches(all, 0, 1), all);
}

}  // namespace
}  // namespace trainbench::text

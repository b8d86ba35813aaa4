#include "text/subword.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "core/error.h"

namespace trainbench::text {
namespace {

// A small two-language corpus: every combination of a few subjects, verbs and objects.
std::vector<std::string> SmallCorpus() {
  const char* en_s[] = {"The cat",     "A dog",      "My friend",
                        "The old man", "Her sister", "Our teacher"};
  const char* en_v[] = {"sees", "likes", "wants", "finds", "paints"};
  const char* en_o[] = {"the house.", "a red apple.", "the big tree.", "many books.",
                        "the little boat."};
  const char* es_s[] = {"El gato",  "Un perro",   "Mi amigo",
                        "El viejo", "Su hermana", "Nuestro profesor"};
  const char* es_v[] = {"ve", "quiere", "desea", "encuentra", "pinta"};
  const char* es_o[] = {"la casa.", "una manzana roja.", "el \xC3\xA1rbol grande.",
                        "muchos libros.", "el barco peque\xC3\xB1o."};
  std::vector<std::string> v;
  for (int s = 0; s < 6; ++s)
    for (int b = 0; b < 5; ++b)
      for (int o = 0; o < 5; ++o) {
        v.push_back(std::string(en_s[s]) + " " + en_v[b] + " " + en_o[o]);
        v.push_back(std::string(es_s[s]) + " " + es_v[b] + " " + es_o[o]);
      }
  return v;
}

TEST(Subword, TrainsDeterministicallyAndRoundTrips) {
  SubwordOptions o;
  o.vocab_size = 90;
  const std::vector<std::string> corpus = SmallCorpus();
  const SubwordModel a = SubwordModel::Train(corpus, o);
  const SubwordModel b = SubwordModel::Train(corpus, o);
  EXPECT_EQ(a.serialized(), b.serialized()) << "num_threads=1 training is not deterministic";
  EXPECT_EQ(a.vocab_size(), 90);
  EXPECT_EQ(a.pad_id(), 0);
  EXPECT_EQ(a.unk_id(), 1);
  EXPECT_EQ(a.bos_id(), 2);
  EXPECT_EQ(a.eos_id(), 3);
  for (const std::string& s : corpus) {
    const std::vector<int> ids = a.Encode(s);
    ASSERT_FALSE(ids.empty());
    EXPECT_EQ(a.Decode(ids), s);
  }
  // A sentence not in the corpus, made of its characters.
  const std::string unseen = "El perro grande pinta una casa roja.";
  EXPECT_EQ(a.Decode(a.Encode(unseen)), unseen);
  // The vocabulary file lists every piece with its score, in id order.
  const std::string vocab = a.VocabText();
  EXPECT_EQ(vocab.substr(0, 8), "<pad>\t0\n");
  EXPECT_EQ(std::count(vocab.begin(), vocab.end(), '\n'), 90);
  // Loading the serialized model gives the same encoder.
  const SubwordModel c = SubwordModel::FromSerialized(a.serialized());
  EXPECT_EQ(c.Encode(unseen), a.Encode(unseen));
}

TEST(Subword, ErrorsAreCoreErrors) {
  SubwordOptions o;
  o.vocab_size = 100000;  // far more than the text allows
  EXPECT_THROW(SubwordModel::Train(SmallCorpus(), o), core::Error);
  EXPECT_THROW(SubwordModel::FromSerialized("not a model", "x.model"), core::Error);
  EXPECT_THROW(SubwordModel::Load("/nonexistent/spm.model"), core::Error);
}

}  // namespace
}  // namespace trainbench::text

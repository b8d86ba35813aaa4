// Parallel corpora as SentencePiece ids, the form the translation workloads read (they cannot
// link SentencePiece: docs/design.md). `trainbench prepare translation` writes one file per
// split (train.ids, test.ids): line i holds pair i as "<source ids>\t<target ids>", ids in
// decimal separated by single spaces, no bos/eos (the workloads add eos). Reading checks every
// line and names the file and 1-based line of the first problem: no tab, an empty side, a
// token that is not a decimal id, an id outside [0, vocab_size), a special id (pad, bos, eos).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace trainbench::text {

struct IdCorpus {
  std::vector<std::vector<int32_t>> source, target;
  size_t size() const { return source.size(); }
};

// The bytes of an ids file (each line ended by "\n").
std::string FormatIdCorpus(const IdCorpus& corpus);
// Reads an ids file; vocab_size bounds the ids. An empty file is an error.
IdCorpus ReadIdCorpus(const std::string& path, int vocab_size);

}  // namespace trainbench::text

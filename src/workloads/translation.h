// The translation benchmarks on the harness: `translation` (the MLPerf `transformer`:
// Transformer, non-recurrent) and `rnn_translation` (the MLPerf `gnmt`: GNMT, recurrent). Both
// read the folder `trainbench prepare translation` makes (text/translation_dataset.h:
// train.ids, test.ids, test.<target language>, spm.vocab), batch training pairs by tokens
// (text/token_batching.h), train with label-smoothed cross-entropy and Adam, and evaluate by
// decoding the whole test set with batched beam search (models/beam_search.h) and scoring
// corpus BLEU against the test references (metrics/bleu.h). docs/benchmarks/translation.md.
#pragma once

#include <memory>
#include <string>

#include "core/benchmark_def.h"
#include "train/workload.h"

namespace trainbench::workloads {

// arch: "transformer" or "gnmt"; scale: the definition's scale (its preset names the data files).
std::unique_ptr<train::Workload> MakeTranslation(const std::string& arch,
                                                 const core::ScaleDef& scale);

}  // namespace trainbench::workloads

// What every rank of a data-parallel job over several machines must agree on. Rank 0's launcher
// publishes its job's fingerprint; every other launcher compares its own before any run starts,
// so that a rank started with other flags is refused with the first setting that differs
// instead of training a different model in lockstep.
#pragma once

#include <string>

#include "core/json.h"

namespace trainbench::runner {

struct JobSpec {
  std::string benchmark;
  std::string scale;
  std::string division;
  int runs = 0;
  core::Json config;  // the effective configuration
  long long max_steps = -1;
  int max_epochs = -1;
  int world_size = 1;
};

// A JSON text of the spec; two launchers run the same job iff their fingerprints are equal.
std::string JobFingerprint(const JobSpec& job);

// The first setting that differs between two fingerprints, with both values:
// "config.batch_size (rank 0: 2048, here: 1024)" (`mine` is "here", `theirs` rank 0's).
// "(no single key)" when no top-level key differs.
std::string FirstDifference(const std::string& mine, const std::string& theirs);

}  // namespace trainbench::runner

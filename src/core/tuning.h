// Tunings: named sets of configuration overrides for the system under test, kept as data in
// configs/tunings/<name>.yaml (docs/performance.md). A tuning lists, per benchmark and scale,
// key: value pairs that `trainbench run --tuning NAME` applies before any --set (a --set of the
// same key wins). They are ordinary overrides: ResolveConfig checks each against the benchmark
// definition and the division's rules, so a tuning cannot do what --set could not.
//
//   name: optimized
//   description: ...
//   benchmarks:
//     recommendation:
//       mini: {blas_threads: 1, eval_batch_pairs: 16384}
//     instance_segmentation:
//       mini:
//         precision: bf16
//         launch: {nproc: 2}     # how the run is started, not a key of the definition
//
// A scale's settings may also be a list of alternatives, each with the CPU features it needs
// (Linux's /proc/cpuinfo names, all of them required); the first entry this machine has every
// feature of is used, so the list ends with an entry that needs nothing:
//
//     image_classification:
//       mini:
//         - requires: [avx512_bf16]  # bf16 is native here (AVX-512 BF16; AMX machines have it)
//           precision: bf16
//           malloc_reuse: true
//         - malloc_reuse: true       # elsewhere bf16 is emulated and slow: fp32
//
// `launch` (optional) is the process layout the settings were measured with: `nproc` local
// worker processes (data-parallel over Gloo, as --nproc) and `threads` intra-op threads per
// process (as --threads). The command's own flags win, and a job started on several machines
// ignores the tuning's nproc.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace trainbench::core {

struct Tuning {
  std::string name;
  std::string path;  // the file it was read from
  std::string description;
  std::map<std::string, std::string> overrides;  // for the benchmark and scale asked
  std::optional<int> nproc;                      // launch.nproc (>= 1)
  std::optional<int> threads;                    // launch.threads (>= 1)
  // The entry used: its 1-based place among the scale's `entries` (1 of 1 for a plain map),
  // the CPU features it requires, and why (which entries before it this CPU cannot run);
  // `choice` is "" for a plain map.
  int entry = 1, entries = 1;
  std::vector<std::string>
  requires;
  std::string choice;
};

// NAME: a file path (contains '/' or ends in .yaml), or a name under <data root>/configs/tunings.
// The file is read with LoadYamlFile (yaml_json.h): a directory, FIFO or device, invalid YAML,
// an alias bomb or a key that is not a string is a FileError naming the path (and line:column).
// Throws FileError naming the file and line for a value that is not a scalar, or
// a tuning without settings for `benchmark` at `scale` (it lists the ones it has), and for a
// `launch` that is not a map of nproc / threads to positive integers.
// The entry is chosen for `cpu_flags` (CpuFlags(), core/provenance.h, when not given); no entry
// this CPU can run is a FileError naming the file, the line and what each entry needs.
Tuning LoadTuning(const std::string& name, const std::string& benchmark, const std::string& scale);
Tuning LoadTuning(const std::string& name, const std::string& benchmark, const std::string& scale,
                  const std::set<std::string>& cpu_flags);

// Where named tunings live: <data root>/configs/tunings.
std::string TuningsDir();

}  // namespace trainbench::core

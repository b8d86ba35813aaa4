#!/usr/bin/env bash
# Runs one libFuzzer target for CTest: run_fuzzer.sh FUZZER WORKDIR [flags...] -- SEED_DIR...
# New inputs go to WORKDIR/corpus (libFuzzer writes to its first corpus folder, so the seed
# folders in the source tree stay untouched), crash / timeout / leak inputs to
# WORKDIR/artifacts/. Exit status: the fuzzer's (0 when it found nothing).
set -euo pipefail
fuzzer=$1 work=$2
shift 2
flags=()
while [[ $# -gt 0 && $1 != -- ]]; do flags+=("$1"); shift; done
[[ $# -gt 0 ]] && shift
mkdir -p "$work/corpus" "$work/artifacts"
# -timeout: one input taking over 10 s is a hang; -rss_limit_mb: the default 2 GB, said aloud.
exec "$fuzzer" -print_final_stats=1 -timeout=10 -rss_limit_mb=2048 \
  -artifact_prefix="$work/artifacts/" "${flags[@]}" "$work/corpus" "$@"

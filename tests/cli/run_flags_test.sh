#!/usr/bin/env bash
# Hostile `run` and `gtp` flags (issue #41): every numeric flag and every tuning `launch` value is
# range-checked, and process counts and batch splits are checked before anything is forked; a
# refused command exits 2, says why, and creates nothing under --results.
set -u
TB=$1; W=$2
. "$(dirname "$0")/lib.sh"
rm -rf "$W"; mkdir -p "$W"
R=$W/results
CPUS=$(nproc)
refused() {  # refused <what> <pattern> <trainbench args...>
  local what=$1 pattern=$2; shift 2
  "$TB" "$@" >"$W/out" 2>&1
  expect_rc 2 $? "$what"
  expect_grep "$pattern" "$W/out" "$what: says why"
  [ ! -e "$R" ] || fail "$what: created $R"
}
IC=(run image_classification --results "$R" --no-progress)
refused "--runs 0 (ran 5)" "--runs: Value 0 not in range 1 to 1000" "${IC[@]}" --runs 0
refused "--seed -5 (meant random)" "a seed is an integer in 0..9223372036854775807, got \"-5\"" "${IC[@]}" --seed -5
refused "--seed 2^66 (clamped)" "got \"99999999999999999999\"" "${IC[@]}" --seed 99999999999999999999
refused "--seed 12x" "got \"12x\"" "${IC[@]}" --seed 12x
refused "--threads 0" "--threads: Value 0 not in range" "${IC[@]}" --threads 0
refused "--threads above the CPUs" "--threads $((CPUS + 1)) is more threads than this machine's $CPUS logical CPUs" \
  "${IC[@]}" --threads $((CPUS + 1))
refused "--nproc 1000 (forked 1000 workers)" \
  "--nproc 1000 is more worker processes than this machine's $CPUS logical CPUs \(--oversubscribe" "${IC[@]}" --nproc 1000
printf 'name: big\nbenchmarks:\n  image_classification:\n    mini:\n      launch: {nproc: 1000}\n' >"$W/t.yaml"
refused "a tuning's launch.nproc 1000" "launch.nproc 1000 \(tuning $W/t.yaml\) is more worker processes" \
  "${IC[@]}" --tuning "$W/t.yaml"
# The batch split is checked in the launcher, not in each forked worker.
refused "--nproc 3: 128 images do not split" \
  'configuration key "batch_size": 128 is not a multiple of the world size 3' "${IC[@]}" --nproc 3 --oversubscribe
refused "data-parallel Go" "reinforcement_learning: data-parallel training is not supported yet" \
  run reinforcement_learning --results "$R" --nproc 2 --oversubscribe
refused "--device cudafoo (a LibTorch backtrace)" 'expected cpu, cuda or cuda:N' "${IC[@]}" --device cudafoo
if ! command -v nvidia-smi >/dev/null; then
  refused "--device cuda without CUDA" "no CUDA device is visible" "${IC[@]}" --device cuda
fi
refused "--system ../../escaped (wrote outside --results)" \
  '--system "../../escaped": expected a name that is one path component' "${IC[@]}" --system ../../escaped
refused "--system .." 'one path component' "${IC[@]}" --system ..
refused "--org a/b" '--org "a/b": expected a name that is one path component' "${IC[@]}" --org a/b
[ ! -e "$W/../escaped" ] || fail "something escaped"
# gtp: CLI11 alone took --komi nan/inf/0x10 and --filters 0 (a LibTorch backtrace).
for k in nan inf 0x10 1e400; do
  refused "gtp --komi $k" "komi is a finite decimal number within \+-1000, got \"$k\"" gtp --komi $k
done
refused "gtp --filters 0" "--filters: Value 0 not in range 1 to 1024" gtp --filters 0
refused "gtp --size 25" "--size: Value 25 not in range 2 to 19" gtp --size 25
echo "run flags: all checks passed"

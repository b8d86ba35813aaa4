#!/usr/bin/env bash
# Behaviour check for refactors: runs each of the seven mini benchmarks (and a few variants that
# take other code paths: LARS, lazy and fused Adam) for one seed on small data, then reduces
# each log to what must not change (timestamps, timings and provenance removed).
#
#   scripts/log_identity.sh run TRAINBENCH OUT     # the runs, into OUT (OUT/logs/<name>.txt)
#   scripts/log_identity.sh diff OUT_A OUT_B       # exit 0 iff the reduced logs are identical
#
# Run it before a change with the old binary and after with the new one, then diff. The
# datasets are small and generated (Fashion-MNIST from Debian's package, shortened test split;
# detection, translation, recommendation and Go data from `trainbench prepare`); a whole `run`
# takes about 5 minutes on 2 cores. GNU Go (/usr/games/gnugo) is needed for the Go dataset.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

# What varies between two runs of the same binary: the clock, measured speeds and CPU shares,
# the machine and build facts, where the data lives, and the source line an event was logged
# from (metadata "lineno": code that moves changes it). Everything else (hyperparameters, sample counts, losses,
# evaluation results, the order of events) must be identical.
reduce() {
  sed -E -e 's/"time_ms": [0-9.e+]+/"time_ms": 0/' \
      -e 's/"throughput": [0-9.e+-]+/"throughput": 0/' -e 's/"lineno": [0-9]+/"lineno": 0/' \
      -e 's#"/[^"]*/data/#"DATA/#g' \
      -e 's/"(seconds|eval_seconds|train_seconds|elapsed_s|wall_s|selfplay_seconds)": [0-9.e+-]+/"\1": 0/g' "$1" |
    grep -v -E '"key": "(trainbench_provenance|trainbench_cpu_share|trainbench_runtime|submission_platform)"'
}

if [ "${1:-}" = diff ]; then
  a=$2; b=$3; rc=0
  for f in "$a"/logs/*.txt; do
    n=$(basename "$f")
    [ -f "$b/logs/$n" ] || { echo "only in $a: $n"; rc=1; continue; }
    if ! diff <(reduce "$f") <(reduce "$b/logs/$n") >"/tmp/log_identity_$n.diff"; then
      echo "DIFFERENT: $n (/tmp/log_identity_$n.diff)"; rc=1
    else
      echo "identical: $n ($(reduce "$f" | wc -l) lines)"
    fi
  done
  exit $rc
fi

[ "${1:-}" = run ] || { echo "usage: $0 run TRAINBENCH OUT | diff OUT_A OUT_B" >&2; exit 2; }
TB=$(realpath "$2"); OUT=$3
. "$here/../tests/cli/lib.sh"
mkdir -p "$OUT/data" "$OUT/logs"
D=$OUT/data
FM=/usr/share/datasets/fashion-mnist
[ -d "$D/fmnist" ] || (set +o pipefail; make_short_fashion_mnist "$FM" "$D/fmnist" 500)
[ -d "$D/det" ] || "$TB" prepare detection --data "$D/det" --set train_images=48 --set val_images=12 >/dev/null
[ -d "$D/rec" ] || "$TB" prepare recommendation --data "$D/rec" --set num_users=300 --set num_items=1500 \
  --set max_ratings_per_user=300 >/dev/null
[ -d "$D/tr" ] || "$TB" prepare translation --data "$D/tr" --set max_sentences=200 --set test_size=20 \
  --set vocab_size=300 >/dev/null
[ -d "$D/go" ] || "$TB" prepare go --data "$D/go" --set games=4 --set level=0 >/dev/null

one() {  # one NAME BENCHMARK ARGS...
  local name=$1 bench=$2; shift 2
  rm -rf "$OUT/r_$name"
  "$TB" run "$bench" --runs 1 --threads 2 --results "$OUT/r_$name" --system s --no-progress "$@" \
    >"$OUT/r_$name.out" 2>&1 || true
  cp "$OUT/r_$name/s/$bench/result_1.txt" "$OUT/logs/$name.txt"
  echo "$name: $(grep -c MLLOG "$OUT/logs/$name.txt") events"
}
one ic image_classification --data "$D/fmnist" --seed 1 --max-steps 6
one ic_lars image_classification --division open --data "$D/fmnist" --seed 2 --max-steps 4 --set opt_name=lars
one ssd object_detection --division open --data "$D/det" --seed 3 --max-steps 3 \
  --set width=4 --set eval_batch_size=6 --set batch_size=8
one maskrcnn instance_segmentation --division open --data "$D/det" --seed 4 --max-steps 2 \
  --set width=4 --set fpn_channels=8 --set mask_head_channels=8 --set eval_batch_size=6 --set batch_size=8
one ncf recommendation --data "$D/rec" --seed 5 --max-steps 20
one ncf_lazy recommendation --division open --data "$D/rec" --seed 6 --max-steps 10 --set opt_name=lazy_adam
one transformer translation --division open --data "$D/tr" --seed 7 --max-steps 3 --set vocab_size=300 \
  --set d_model=32 --set heads=2 --set ffn_dim=64 --set layers=1 --set eval_batch_sentences=8 --set batch_tokens=512
one transformer_fused translation --division open --data "$D/tr" --seed 8 --max-steps 3 --set vocab_size=300 \
  --set d_model=32 --set heads=2 --set ffn_dim=64 --set layers=1 --set eval_batch_sentences=8 --set batch_tokens=512 \
  --set fused_optimizer=true
one gnmt rnn_translation --division open --data "$D/tr" --seed 9 --max-steps 3 --set vocab_size=300 \
  --set hidden_size=32 --set eval_batch_sentences=8 --set batch_tokens=512
one minigo reinforcement_learning --division open --data "$D/go" --seed 10 --max-epochs 1 \
  --set games_per_generation=2 --set train_steps=4 --set readouts=16 --set eval_readouts=16 --set gnugo_level=0

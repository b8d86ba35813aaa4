#!/usr/bin/env bash
# Full-scale, closed-division smoke runs of the seven benchmarks on small generated data, for
# the official MLPerf compliance checker (issue #37; the logs and their verdicts are in
# src/compliance/testdata/conformance/full/).
#
#   bash scripts/full_scale_smoke.sh TRAINBENCH WORKDIR [BENCH...]
#
# TRAINBENCH is the built CLI (build/src/cli/trainbench), WORKDIR a scratch folder (data under
# WORKDIR/data, logs under WORKDIR/results/full-cpu/<bench>/result_<i>.txt). BENCH... picks
# benchmarks (default: all seven). Each benchmark gets a tiny dataset in its FULL-scale format:
#   image_classification   an ImageNet folder (train/<wnid>/*.JPEG, val/<wnid>/*.JPEG), 3 classes,
#                          written by build/tests/make_image_folder (MAKE_IMAGE_FOLDER overrides)
#   object_detection,      the COCO 2017 layout: the rendered shapes (prepare detection, 320x240)
#   instance_segmentation  with the categories list padded to COCO's 80 (num_classes 81 is fixed)
#   translation,           a WMT-style folder (train.{en,de}, newstest2014.{en,de}) of synthetic
#   rnn_translation        sentences over 2 x 24000 made-up words, so that SentencePiece can train
#                          the fixed 32768-piece vocabulary; then prepare translation --scale full
#   recommendation         a MovieLens-format ratings.csv (the mini generator, 300 users)
#   reinforcement_learning an SGF collection (GNU Go level-0 games recorded by prepare go)
# and runs `run BENCH --scale full --division closed --max-steps 2 --runs 1 --seed 1 --threads 2`
# with only closed-free settings changed (batch sizes), except reinforcement_learning: the
# closed full definition plays 1000 self-play games of 200 readouts before its first training
# step, hours on a CPU, so it runs in the OPEN division with games_per_generation=2 and every
# other setting as the closed definition has it (see conformance/full/README.md).
# One trainbench process at a time. Prints each log's path. DATA_ONLY=1: make the data only.
set -u
TB=$(readlink -f "$1"); W=$2; shift 2
BENCHES=("$@")
[ ${#BENCHES[@]} -gt 0 ] || BENCHES=(image_classification object_detection instance_segmentation translation rnn_translation recommendation reinforcement_learning)
MAKE=${MAKE_IMAGE_FOLDER:-$(dirname "$TB")/../../tests/make_image_folder}
D=$W/data; R=$W/results; SYS=full-cpu
mkdir -p "$D" "$R"
die() { echo "full_scale_smoke: $*" >&2; exit 2; }

data_image_classification() {
  [ -d "$D/imagenet/train" ] && return 0
  "$MAKE" "$D/imagenet" 3 4 2 || die "make_image_folder failed ($MAKE)"
  "$TB" prepare image_classification --scale full --data "$D/imagenet" || die "prepare image_classification"
}

# The rendered shapes in the COCO layout, categories padded to COCO's 80.
data_coco() {
  [ -f "$D/coco/annotations/instances_val2017.json" ] && return 0
  "$TB" prepare detection --data "$D/coco" --set train_images=8 --set val_images=4 --set width=320 --set height=240 \
    || die "prepare detection (shapes)"
  python3 - "$D/coco/annotations/instances_train2017.json" "$D/coco/annotations/instances_val2017.json" <<'EOF' || die "padding the categories"
import json, sys
for p in sys.argv[1:]:
    d = json.load(open(p))
    have = {c["id"] for c in d["categories"]}
    nid = max(have) + 1
    while len(d["categories"]) < 80:
        d["categories"].append({"id": nid, "name": "unused_%d" % nid, "supercategory": "unused"})
        nid += 1
    json.dump(d, open(p, "w"))
EOF
  rm -f "$D/coco/dataset.json"  # the mini generator's record; these files are no longer its output
  "$TB" prepare detection --scale full --data "$D/coco" || die "prepare detection --scale full"
}
data_object_detection() { data_coco; }
data_instance_segmentation() { data_coco; }

# A WMT-style folder: made-up words (24000 per language, a fixed word-for-word mapping), 9000
# training pairs of 6-14 words, 3 short test pairs; enough distinct text for 32768 pieces.
data_wmt() {
  [ -f "$D/wmt/dataset.json" ] && return 0
  mkdir -p "$D/wmt"
  python3 - "$D/wmt" <<'EOF' || die "writing the WMT-style folder"
import random, sys
out = sys.argv[1]
rng = random.Random(37)
letters = "abcdefghijklmnopqrstuvwxyz"
def words(n):
    s = set()
    while len(s) < n:
        s.add("".join(rng.choice(letters) for _ in range(rng.randint(4, 10))))
    return sorted(s)
en, de = words(24000), words(24000)
rng.shuffle(de)
def pair(lo, hi):
    idx = [rng.randrange(len(en)) for _ in range(rng.randint(lo, hi))]
    e = " ".join(en[i] for i in idx).capitalize() + "."
    g = " ".join(de[i] for i in idx).capitalize() + "."
    return e, g
for name, n, lo, hi in (("train", 9000, 6, 14), ("newstest2014", 3, 3, 5)):
    with open("%s/%s.en" % (out, name), "w") as fe, open("%s/%s.de" % (out, name), "w") as fg:
        for _ in range(n):
            e, g = pair(lo, hi)
            fe.write(e + "\n"); fg.write(g + "\n")
EOF
  "$TB" prepare translation --scale full --data "$D/wmt" || die "prepare translation --scale full"
}
data_translation() { data_wmt; }
data_rnn_translation() { data_wmt; }

data_recommendation() {
  [ -f "$D/ml/ratings.csv" ] && return 0
  "$TB" prepare recommendation --data "$D/ml" --set num_users=300 --set num_items=1500 --set max_ratings_per_user=300 \
    || die "prepare recommendation (generator)"
  "$TB" prepare recommendation --scale full --data "$D/ml" || die "prepare recommendation --scale full"
}

data_reinforcement_learning() {
  [ -d "$D/sgf/games" ] && return 0
  "$TB" prepare go --data "$D/go_record" --set games=4 --set level=0 || die "prepare go (GNU Go games)"
  mkdir -p "$D/sgf/games"
  cp "$D"/go_record/test/*.sgf "$D/sgf/games/"
  "$TB" prepare go --scale full --data "$D/sgf" || die "prepare go --scale full"
}

COMMON=(--scale full --runs 1 --seed 1 --threads 2 --max-steps 2 --results "$R" --system "$SYS" --no-progress)
run_args() {  # the data folder and the closed-free settings per benchmark
  case $1 in
    image_classification)   echo "--division closed --data $D/imagenet --set batch_size=4" ;;
    object_detection)       echo "--division closed --data $D/coco --set batch_size=2 --set eval_batch_size=2" ;;
    instance_segmentation)  echo "--division closed --data $D/coco --set batch_size=1 --set eval_batch_size=1" ;;
    translation)            echo "--division closed --data $D/wmt --set batch_tokens=256 --set eval_batch_sentences=3" ;;
    rnn_translation)        echo "--division closed --data $D/wmt --set batch_tokens=256 --set eval_batch_sentences=3" ;;
    recommendation)         echo "--division closed --data $D/ml --set batch_size=2048" ;;
    reinforcement_learning) echo "--division open --data $D/sgf --set games_per_generation=2 --set gnugo_games=0" ;;
  esac
}

for b in "${BENCHES[@]}"; do
  "data_$b" || exit 2
done
[ "${DATA_ONLY:-0}" = 1 ] && exit 0
for b in "${BENCHES[@]}"; do
  # shellcheck disable=SC2046
  args=($(run_args "$b"))
  echo "== $TB run $b ${COMMON[*]} ${args[*]}"
  t0=$(date +%s.%N)
  "$TB" run "$b" "${COMMON[@]}" "${args[@]}" >"$W/$b.out" 2>&1
  rc=$?
  t1=$(date +%s.%N)
  log=$(ls -t "$R/$SYS/$b"/result_*.txt 2>/dev/null | head -1)
  printf '%s: exit %s, %.1f s, log %s\n' "$b" "$rc" "$(echo "$t1 - $t0" | bc)" "${log:-NONE (see $W/$b.out)}"
done
# SSD once more with the v0.7 reference's schedule shape, closed-free settings all: a warmup
# (full's definition has none: opt_learning_rate_warmup_steps 0, which the official 0.7.0
# closed_ssd.yaml refuses, >= 1) and decay boundaries at 40 and 50 epochs (full's 43 and 54
# are v0.5's 160k and 200k iterations of 32; 0.7.0 wants 50 x (1 + k/10) for the second).
for b in "${BENCHES[@]}"; do
  [ "$b" = object_detection ] || continue
  args=(--scale full --runs 1 --seed 1 --threads 2 --max-steps 2 --results "$R" --system "$SYS-v07schedule" --no-progress
        --division closed --data "$D/coco" --set batch_size=2 --set eval_batch_size=2
        --set warmup_epochs=1 --set lr_decay_epoch_1=40 --set lr_decay_epoch_2=50)
  echo "== $TB run $b ${args[*]}"
  t0=$(date +%s.%N)
  "$TB" run "$b" "${args[@]}" >"$W/$b-v07schedule.out" 2>&1
  rc=$?
  t1=$(date +%s.%N)
  log=$(ls -t "$R/$SYS-v07schedule/$b"/result_*.txt 2>/dev/null | head -1)
  printf '%s (v0.7 schedule): exit %s, %.1f s, log %s\n' "$b" "$rc" "$(echo "$t1 - $t0" | bc)" "${log:-NONE (see $W/$b-v07schedule.out)}"
done

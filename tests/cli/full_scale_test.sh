#!/usr/bin/env bash
# The full-scale image classification (ResNet-50 v1.5 on an ImageNet folder layout) runs a few
# steps on a small generated folder of JPEGs through the real CLI, and its log passes the
# trainbench rules. A corrupt JPEG in the folder ends the run as aborted, naming the file.
set -u
TB=$1; MAKE=$2; W=$3
. "$(dirname "$0")/lib.sh"
rm -rf "$W"; mkdir -p "$W"
"$MAKE" "$W/imagenet" 3 4 2 || fail "could not generate the JPEG folder"
"$TB" prepare image_classification --scale full --data "$W/imagenet" >"$W/prep.out" 2>&1
expect_rc 0 $? "prepare (verify) the folder"
expect_grep 'train: 3 classes, 12 images' "$W/prep.out" "prepare counts"
"$TB" run image_classification --scale full --data "$W/imagenet" --runs 1 --seed 5 --threads 2 \
  --set batch_size=4 --max-steps 2 --results "$W/r" --system s --no-progress >"$W/run.out" 2>"$W/run.err"
expect_rc 1 $? "two steps cannot converge (exit 1)"
LOG=$W/r/s/image_classification/result_1.txt
expect_grep '"key": "trainbench_scale", "value": "full"' "$LOG" "full scale logged"
expect_grep '"key": "train_samples", "value": 12,' "$LOG" "12 training images"
expect_grep '"key": "eval_samples", "value": 6,' "$LOG" "6 validation images"
expect_grep '"key": "epoch_stop".*"samples_count": 8' "$LOG" "two steps of 4"
expect_grep '"key": "eval_accuracy"' "$LOG" "an evaluation"
expect_grep '"key": "run_stop".*"status": "aborted"' "$LOG" "aborted by the step budget"
"$TB" check "$LOG" >"$W/check.out" 2>&1
expect_rc 0 $? "trainbench check of the full-scale log"

# A corrupt JPEG: the run ends aborted and the error names the file.
head -c 300 "$W/imagenet/train/n00000001/img_0.JPEG" > "$W/trunc" && mv "$W/trunc" "$W/imagenet/train/n00000001/img_0.JPEG"
"$TB" run image_classification --scale full --data "$W/imagenet" --runs 1 --seed 5 --threads 2 \
  --set batch_size=12 --max-steps 2 --results "$W/r" --system s --no-progress >"$W/run2.out" 2>"$W/run2.err"
expect_rc 1 $? "run over a corrupt JPEG"
expect_grep '"key": "run_stop".*"status": "aborted".*img_0.JPEG' "$W/r/s/image_classification/result_2.txt" "error names the JPEG"
echo "full scale: all checks passed"

#!/usr/bin/env bash
# The SSD benchmark (object_detection) through the real CLI:
#  1. on a small rendered dataset (prepare detection with 64 + 16 images), an open-division run
#     of a tiny SSD trains, evaluates with the COCO protocol every epoch and ends at the epoch
#     limit; its log carries the keys and passes `trainbench check`;
#  2. a closed run (step budget) passes the closed rules; a log with another model fails them;
#  3. bad input (an annotation referencing a missing image, an unreadable JPEG) ends the run as
#     aborted with an error naming the file and the annotation or image, and an earlier result
#     file is untouched;
#  4. a pretrained trunk: refused in the closed mini division (its reference trains from scratch);
#     a weights file that is not a torch.save'd state dict ends the run as aborted, naming the file.
set -u
TB=$1; W=$2
. "$(dirname "$0")/lib.sh"
rm -rf "$W"; mkdir -p "$W"
S=$W/small
"$TB" prepare detection --data "$S" --set train_images=64 --set val_images=16 >"$W/prep.out" 2>&1
expect_rc 0 $? "prepare (small)"
for f in annotations/instances_train2017.json annotations/instances_val2017.json train2017/000000000001.jpg; do
  [ -s "$S/$f" ] || fail "no $f"
done

TINY=(--set width=4 --set eval_batch_size=8 --set batch_size=8)
"$TB" run object_detection --division open --data "$S" --runs 1 --seed 1 --threads 2 --max-epochs 2 "${TINY[@]}" \
  --results "$W/open" --system testsys --no-progress >"$W/open.out" 2>&1
rc=$?
[ $rc = 0 ] || [ $rc = 1 ] || { cat "$W/open.out"; fail "open run exited $rc"; }
LOG=$W/open/testsys/object_detection/result_1.txt
[ -f "$LOG" ] || { cat "$W/open.out"; fail "no log at $LOG"; }
for k in '"submission_benchmark", "value": "ssd"' '"opt_name", "value": "sgd"' '"loss_hp_neg_ratio", "value": 3.0' \
         '"global_batch_size", "value": 8' '"train_samples", "value": 6[34]' '"eval_samples", "value": 16' \
         '"model_hp_width", "value": 4'; do
  expect_grep "$k" "$LOG" "log holds $k"
done
expect_grep '"key": "eval_accuracy", "value": [0-9.e-]+, "metadata": \{.*"epoch_num": 2.*"coco_bbox_stats": \[' "$LOG" "COCO stats at epoch 2"
[ "$(grep -c '"key": "eval_accuracy"' "$LOG")" = 2 ] || fail "--max-epochs 2 gives 2 evaluations"
"$TB" check "$LOG" >"$W/check_open.out" 2>&1
expect_rc 0 $? "open check"

# 2. Closed division, a step budget (aborted runs pass `check`); a changed model does not.
"$TB" run object_detection --data "$S" --runs 1 --seed 7 --threads 2 --max-steps 2 --set batch_size=8 --set eval_batch_size=8 \
  --results "$W/closed" --system testsys --no-progress >"$W/closed.out" 2>&1
expect_rc 1 $? "closed run (aborted by the step budget)"
CL=$W/closed/testsys/object_detection/result_1.txt
"$TB" check "$CL" >"$W/check_closed.out" 2>&1
expect_rc 0 $? "closed check"
sed 's/"key": "model_hp_width", "value": [0-9]*/"key": "model_hp_width", "value": 99/' "$CL" >"$W/changed.txt"
"$TB" check "$W/changed.txt" >"$W/check_changed.out" 2>&1
expect_rc 1 $? "closed check of a changed model"
expect_grep "model_hp_width" "$W/check_changed.out" "names model_hp_width"
expect_grep '"key": "model_hp_pretrained_trunk", "value": ""' "$CL" "logs that no pretrained trunk was loaded"
sed 's/"key": "model_hp_pretrained_trunk", "value": ""/"key": "model_hp_pretrained_trunk", "value": "0123abcd"/' "$CL" >"$W/pretrained.txt"
"$TB" check "$W/pretrained.txt" >"$W/check_pretrained.out" 2>&1
expect_rc 1 $? "closed mini check of a run with a pretrained trunk"
expect_grep "model_hp_pretrained_trunk" "$W/check_pretrained.out" "names model_hp_pretrained_trunk"

# 3. Bad input.
B=$W/bad
cp -r "$S" "$B"
before=$(md5sum "$LOG")
python3 - "$B/annotations/instances_train2017.json" <<'EOF'
import json, sys
p = sys.argv[1]
d = json.load(open(p))
d["annotations"][2]["image_id"] = 999
json.dump(d, open(p, "w"))
EOF
"$TB" run object_detection --division open --data "$B" --runs 1 --seed 9 --threads 2 --max-epochs 1 "${TINY[@]}" \
  --results "$W/open" --system testsys --no-progress >"$W/bad.out" 2>&1
expect_rc 1 $? "run on an annotation of a missing image"
expect_grep "instances_train2017.json.*annotation.*image id 999 is not in \"images\"" "$W/bad.out" "names the file, annotation and image"
expect_grep '"key": "run_stop".*"status": "aborted"' "$W/open/testsys/object_detection/result_2.txt" "aborted run logged"
[ "$(md5sum "$LOG")" = "$before" ] || fail "result_1.txt changed"
cp "$S/annotations/instances_train2017.json" "$B/annotations/"
head -c 300 "$S/train2017/000000000005.jpg" >"$B/train2017/000000000005.jpg"
"$TB" run object_detection --division open --data "$B" --runs 1 --seed 9 --threads 2 --max-epochs 1 "${TINY[@]}" \
  --results "$W/open" --system testsys --no-progress >"$W/badjpeg.out" 2>&1
expect_rc 1 $? "run on a truncated JPEG"
expect_grep "train2017/000000000005.jpg.*\(image id 5\)" "$W/badjpeg.out" "names the JPEG and its image id"

# 4. Pretrained trunk.
echo "not weights" >"$W/weights.pt"
"$TB" run object_detection --data "$S" --runs 1 --seed 7 --threads 2 --max-steps 2 --set pretrained_trunk="$W/weights.pt" \
  --results "$W/closed" --system testsys --no-progress >"$W/closed_pretrained.out" 2>&1
expect_rc 2 $? "closed mini run with a pretrained trunk"
expect_grep "pretrained_trunk" "$W/closed_pretrained.out" "names the key"
"$TB" run object_detection --division open --data "$S" --runs 1 --seed 9 --threads 2 --max-epochs 1 "${TINY[@]}" \
  --set pretrained_trunk="$W/weights.pt" --results "$W/open" --system testsys --no-progress >"$W/badweights.out" 2>&1
expect_rc 1 $? "run with a weights file that is not a state dict"
expect_grep "weights.pt: not a zip-format torch.save file" "$W/badweights.out" "names the weights file"
[ "$(md5sum "$LOG")" = "$before" ] || fail "result_1.txt changed"
echo PASS

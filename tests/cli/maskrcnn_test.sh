#!/usr/bin/env bash
# The Mask R-CNN benchmark (instance_segmentation) through the real CLI:
#  1. on a small rendered dataset (prepare detection with 48 + 12 images), an open-division run
#     of a tiny Mask R-CNN trains, evaluates boxes and masks with the COCO protocol every epoch
#     and ends at the epoch limit; its log carries both metrics and passes `trainbench check`;
#  2. a closed run (step budget) passes the closed rules; a log with another mask head fails them;
#     a closed run in bf16 with channels-last trains, evaluates and passes them; fp16 on a CPU is
#     refused before any run;
#  3. the targets: a log that claims success with the box target reached but not the mask one
#     fails `check` (both must hold in one evaluation), with both reached it passes;
#  4. two data-parallel processes (Gloo) train and gather their detections for one evaluation;
#  5. a malformed segmentation ends the run as aborted with an error naming the file and the
#     annotation.
set -u
TB=$1; W=$2
. "$(dirname "$0")/lib.sh"
rm -rf "$W"; mkdir -p "$W"
S=$W/small
"$TB" prepare detection --data "$S" --set train_images=48 --set val_images=12 >"$W/prep.out" 2>&1
expect_rc 0 $? "prepare (small)"

TINY=(--set width=4 --set fpn_channels=8 --set mask_head_channels=8 --set eval_batch_size=6 --set batch_size=8)
"$TB" run instance_segmentation --division open --data "$S" --runs 1 --seed 1 --threads 2 --max-epochs 2 "${TINY[@]}" \
  --results "$W/open" --system testsys --no-progress >"$W/open.out" 2>&1
rc=$?
[ $rc = 0 ] || [ $rc = 1 ] || { cat "$W/open.out"; fail "open run exited $rc"; }
LOG=$W/open/testsys/instance_segmentation/result_1.txt
[ -f "$LOG" ] || { cat "$W/open.out"; fail "no log at $LOG"; }
for k in '"submission_benchmark", "value": "maskrcnn"' '"opt_name", "value": "sgd"' '"opt_bias_learning_rate_factor", "value": 2.0' \
         '"global_batch_size", "value": 8' '"eval_samples", "value": 12' '"model_hp_mask_head_channels", "value": 8' \
         '"trainbench_quality_target", "value": [0-9.]+, "metadata": \{.*"secondary_targets": \{"segm_map": [0-9.]+\}'; do
  expect_grep "$k" "$LOG" "log holds $k"
done
# The official shape {"BBOX": box mAP, "SEGM": mask mAP}; the COCO numbers in the metadata.
expect_grep '"key": "eval_accuracy", "value": \{"BBOX": [0-9.e-]+, "SEGM": [0-9.e-]+\}, "metadata": \{.*"epoch_num": 2.*"segm_map": [0-9.e-]+.*"coco_bbox_stats": \[.*"coco_segm_stats": \[' "$LOG" "box and mask COCO stats at epoch 2"
for k in '"num_image_candidates", "value": [0-9]+' '"min_image_size", "value": [0-9]+' '"max_image_size", "value": [0-9]+' \
         '"opt_learning_rate_decay_steps", "value": \[[0-9]+, [0-9]+\]'; do
  expect_grep "$k" "$LOG" "log holds $k"
done
[ "$(grep -c '"key": "eval_accuracy"' "$LOG")" = 2 ] || fail "--max-epochs 2 gives 2 evaluations"
"$TB" check "$LOG" >"$W/check_open.out" 2>&1
expect_rc 0 $? "open check"

# 2. Closed division, a step budget (aborted runs pass `check`); a changed mask head does not.
"$TB" run instance_segmentation --data "$S" --runs 1 --seed 7 --threads 2 --max-steps 2 --set batch_size=4 --set eval_batch_size=6 \
  --results "$W/closed" --system testsys --no-progress >"$W/closed.out" 2>&1
expect_rc 1 $? "closed run (aborted by the step budget)"
CL=$W/closed/testsys/instance_segmentation/result_1.txt
"$TB" check "$CL" >"$W/check_closed.out" 2>&1
expect_rc 0 $? "closed check"
sed 's/"key": "model_hp_mask_head_channels", "value": [0-9]*/"key": "model_hp_mask_head_channels", "value": 99/' "$CL" >"$W/changed.txt"
"$TB" check "$W/changed.txt" >"$W/check_changed.out" 2>&1
expect_rc 1 $? "closed check of a changed mask head"
expect_grep "model_hp_mask_head_channels" "$W/check_changed.out" "names model_hp_mask_head_channels"

# 2b. The system options (bf16 autocast, channels-last, malloc_reuse) are closed-division legal:
# the run trains and evaluates in bf16, logs them in its provenance and passes the closed rules.
"$TB" run instance_segmentation --data "$S" --runs 1 --seed 7 --threads 2 --max-epochs 1 --set batch_size=8 --set eval_batch_size=6 \
  --set precision=bf16 --set channels_last=true --set malloc_reuse=true \
  --results "$W/mixed" --system testsys --no-progress >"$W/mixed.out" 2>&1
expect_rc 1 $? "closed bf16 run (aborted at the epoch limit)"
ML=$W/mixed/testsys/instance_segmentation/result_1.txt
expect_grep '"precision": "bf16", "channels_last": true' "$ML" "precision and memory format in the provenance"
expect_grep '"key": "eval_accuracy", "value": \{"BBOX": [0-9.e-]+, "SEGM": [0-9.e-]+\}, "metadata": \{.*"segm_map": [0-9.e-]+' "$ML" "a bf16 evaluation"
"$TB" check "$ML" >"$W/check_mixed.out" 2>&1
expect_rc 0 $? "closed check of the bf16 run"
"$TB" run instance_segmentation --data "$S" --runs 1 --set precision=fp16 --results "$W/mixed" --system testsys >"$W/fp16.out" 2>&1
expect_rc 2 $? "fp16 on a CPU"
expect_grep '"precision": fp16 needs a CUDA device' "$W/fp16.out" "names the key and why"

# 3. Success needs both targets on one evaluation line.
python3 - "$CL" "$W" <<'PYEOF'
import json, re, sys
src, w = sys.argv[1], sys.argv[2]
lines = open(src).read().splitlines()
def edit(box, segm):
    out = []
    for l in lines:
        if '"key": "eval_accuracy"' in l:
            d = json.loads(l[len(":::MLLOG "):])
            d["value"] = {"BBOX": box, "SEGM": segm}
            d["metadata"]["segm_map"] = segm
            l = ":::MLLOG " + json.dumps(d)
        if '"key": "run_stop"' in l:
            l = l.replace('"status": "aborted"', '"status": "success"')
        out.append(l)
    return "\n".join(out) + "\n"
open(w + "/box_only.txt", "w").write(edit(0.99, 0.01))
open(w + "/both.txt", "w").write(edit(0.99, 0.99))
PYEOF
"$TB" check "$W/box_only.txt" >"$W/check_box_only.out" 2>&1
expect_rc 1 $? "check of a success with the box target only"
expect_grep "SEGM" "$W/check_box_only.out" "names SEGM"
"$TB" check "$W/both.txt" >"$W/check_both.out" 2>&1
expect_rc 0 $? "check of a success with both targets"

# 4. Two processes: the detections of both ranks are gathered for one COCO evaluation.
"$TB" run instance_segmentation --division open --data "$S" --runs 1 --seed 3 --threads 1 --nproc 2 --max-epochs 1 "${TINY[@]}" \
  --results "$W/dist" --system testsys --no-progress >"$W/dist.out" 2>&1
rc=$?
[ $rc = 0 ] || [ $rc = 1 ] || { cat "$W/dist.out"; fail "2-process run exited $rc"; }
DL=$W/dist/testsys/instance_segmentation/result_1.txt
expect_grep '"key": "eval_accuracy".*"segm_map"' "$DL" "2-process evaluation"
expect_grep '"key": "run_stop".*"status": "aborted"' "$DL" "2-process run ended at the epoch limit"
"$TB" check "$DL" >"$W/check_dist.out" 2>&1
expect_rc 0 $? "2-process check"

# 5. A malformed segmentation.
B=$W/bad
cp -r "$S" "$B"
before=$(md5sum "$LOG")
python3 - "$B/annotations/instances_train2017.json" <<'PYEOF'
import json, sys
p = sys.argv[1]
d = json.load(open(p))
d["annotations"][3]["segmentation"] = [[1, 2, 3]]
json.dump(d, open(p, "w"))
PYEOF
"$TB" run instance_segmentation --division open --data "$B" --runs 1 --seed 9 --threads 2 --max-epochs 1 "${TINY[@]}" \
  --results "$W/open" --system testsys --no-progress >"$W/bad.out" 2>&1
expect_rc 1 $? "run on a malformed segmentation"
expect_grep "instances_train2017.json.*annotation" "$W/bad.out" "names the file and the annotation"
[ "$(md5sum "$LOG")" = "$before" ] || fail "result_1.txt changed"
echo PASS

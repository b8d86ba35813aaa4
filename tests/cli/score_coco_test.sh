#!/usr/bin/env bash
# `trainbench score coco` with real files: a perfect detection set (every stat 1.000 where
# defined, -1.000 for the area ranges without gt), the pycocotools summarize() line layout,
# --json (12 stats, parsed by python3), a higher-scoring false positive ahead of the true
# positive (AP 0.500, AR1 0.000: docs/coco_eval.md), --iou-type segm, and the bad inputs: a
# missing file, a JSON syntax error, an unknown image id in the results, an unknown iou type,
# JSON nested a million deep, a 65536 x 65536 image, a huge polygon, a FIFO, each exit code 2
# with a message naming the file; warnings for implausible detection boxes.
set -u
TB=$1
. "$(dirname "$0")/lib.sh"
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT

# One 200 x 200 image, one medium gt (50 x 50 = 2500 px) with a polygon.
cat > "$W/gt.json" <<'JSON'
{"images": [{"id": 1, "file_name": "a.jpg", "width": 200, "height": 200}],
 "categories": [{"id": 1, "name": "thing"}],
 "annotations": [{"id": 1, "image_id": 1, "category_id": 1, "bbox": [10, 10, 50, 50], "area": 2500,
                  "iscrowd": 0, "segmentation": [[10, 10, 60, 10, 60, 60, 10, 60]]}]}
JSON
printf '[{"image_id": 1, "category_id": 1, "bbox": [10, 10, 50, 50], "score": 0.9}]\n' > "$W/perfect.json"

"$TB" score coco "$W/gt.json" "$W/perfect.json" >"$W/out" 2>"$W/err"
expect_rc 0 $? "score coco"
[ "$(wc -l < "$W/out")" -eq 12 ] || fail "not 12 lines: $(cat "$W/out")"
expect_grep '^ Average Precision  (AP) @\[ IoU=0\.50:0\.95 | area=   all | maxDets=100 \] = 1\.000$' "$W/out" "AP line"
expect_grep '^ Average Precision  (AP) @\[ IoU=0\.50      | area=   all | maxDets=100 \] = 1\.000$' "$W/out" "AP50 line"
expect_grep '^ Average Precision  (AP) @\[ IoU=0\.75      | area=   all | maxDets=100 \] = 1\.000$' "$W/out" "AP75 line"
expect_grep '^ Average Precision  (AP) @\[ IoU=0\.50:0\.95 | area= small | maxDets=100 \] = -1\.000$' "$W/out" "APs -1"
expect_grep '^ Average Precision  (AP) @\[ IoU=0\.50:0\.95 | area=medium | maxDets=100 \] = 1\.000$' "$W/out" "APm"
expect_grep '^ Average Recall     (AR) @\[ IoU=0\.50:0\.95 | area=   all | maxDets=  1 \] = 1\.000$' "$W/out" "AR1 line"
expect_grep '^ Average Recall     (AR) @\[ IoU=0\.50:0\.95 | area= large | maxDets=100 \] = -1\.000$' "$W/out" "ARl -1"

"$TB" score coco "$W/gt.json" "$W/perfect.json" --json >"$W/json" 2>"$W/err"
expect_rc 0 $? "--json"
python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
assert j["schema_version"] == 1, j
assert j["iou_type"] == "bbox", j
names = ["AP", "AP50", "AP75", "APs", "APm", "APl", "AR1", "AR10", "AR100", "ARs", "ARm", "ARl"]
assert sorted(j["stats"]) == sorted(names), j["stats"]
assert len(j["stats_list"]) == 12
want = [1, 1, 1, -1, 1, -1, 1, 1, 1, -1, 1, -1]
for n, v, w in zip(names, j["stats_list"], want):
    assert abs(v - w) < 1e-12, (n, v, w)
    assert j["stats"][n] == v, n
assert j["images"] == 1 and j["annotations"] == 1 and j["detections"] == 1, j
assert len(j["summary"]) == 12
' "$W/json" || fail "--json output: $(cat "$W/json")"

# A false positive (0.9) ahead of the true positive (0.8): precision 0.5 at every recall point.
printf '[{"image_id": 1, "category_id": 1, "bbox": [120, 120, 50, 50], "score": 0.9},
 {"image_id": 1, "category_id": 1, "bbox": [10, 10, 50, 50], "score": 0.8}]\n' > "$W/fp.json"
"$TB" score coco "$W/gt.json" "$W/fp.json" >"$W/out" 2>"$W/err"
expect_rc 0 $? "fp first"
expect_grep 'IoU=0\.50:0\.95 | area=   all | maxDets=100 \] = 0\.500$' "$W/out" "AP 0.5"
expect_grep '(AR) @\[ IoU=0\.50:0\.95 | area=   all | maxDets=  1 \] = 0\.000$' "$W/out" "AR1 0"
expect_grep '(AR) @\[ IoU=0\.50:0\.95 | area=   all | maxDets= 10 \] = 1\.000$' "$W/out" "AR10 1"

# segm: the box detection is rasterised as its polygon, the same pixels as the gt polygon.
"$TB" score coco "$W/gt.json" "$W/perfect.json" --iou-type segm --json >"$W/json" 2>"$W/err"
expect_rc 0 $? "--iou-type segm"
expect_grep '"iou_type": "segm"' "$W/json" "segm iou type"
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert abs(j["stats"]["AP"] - 1) < 1e-12, j' "$W/json" \
  || fail "segm AP"

# Bad input: exit code 2 and a message naming the file.
"$TB" score coco "$W/nope.json" "$W/perfect.json" >"$W/out" 2>"$W/err"
expect_rc 2 $? "missing gt file"
expect_grep 'nope\.json' "$W/err" "names the missing file"

printf '[{"image_id": 1, "category_id": 1, "bbox": [1, 2, 3, 4], "score": 0.9},,]\n' > "$W/syntax.json"
"$TB" score coco "$W/gt.json" "$W/syntax.json" >"$W/out" 2>"$W/err"
expect_rc 2 $? "JSON syntax error"
expect_grep 'syntax\.json: offset [0-9]*' "$W/err" "names the file and the offset"

printf '[{"image_id": 5, "category_id": 1, "bbox": [1, 2, 3, 4], "score": 0.9}]\n' > "$W/unknown.json"
"$TB" score coco "$W/gt.json" "$W/unknown.json" >"$W/out" 2>"$W/err"
expect_rc 2 $? "unknown image id"
expect_grep 'unknown\.json.*detection 0.*image id 5' "$W/err" "names the file, the detection and the id"

sed 's/"image_id": 1, "category_id": 1, "bbox": \[10, 10, 50, 50\]/"image_id": 3, "category_id": 1, "bbox": [10, 10, 50, 50]/' \
  "$W/gt.json" > "$W/badgt.json"
"$TB" score coco "$W/badgt.json" "$W/perfect.json" >"$W/out" 2>"$W/err"
expect_rc 2 $? "gt annotation with an unknown image"
expect_grep 'badgt\.json.*annotation id 1.*image id 3' "$W/err" "names the gt file and the annotation"

"$TB" score coco "$W/gt.json" "$W/perfect.json" --iou-type keypoints >"$W/out" 2>"$W/err"
expect_rc 2 $? "unknown iou type"

# Hostile input (#41), each exit code 2 naming the file and the element, or a warning.
# 1,000,000 levels of '[' as a bbox: the error message's recursive dump overflowed the stack.
python3 -c 'import sys; d = 1000000; sys.stdout.write(open(sys.argv[1]).read().replace("[10, 10, 50, 50]", "[" * d + "]" * d))' \
  "$W/gt.json" > "$W/deep.json"
"$TB" score coco "$W/deep.json" "$W/perfect.json" >"$W/out" 2>"$W/err"
expect_rc 2 $? "deep nesting"
expect_grep 'deep\.json: offset [0-9]+: annotations\[0\]: JSON nesting deeper than 512 levels$' "$W/err" \
  "names the file, the offset and the element"
[ "$(wc -c < "$W/err")" -lt 300 ] || fail "deep nesting: message of $(wc -c < "$W/err") bytes"

# A 65536 x 65536 image: h * w wrapped to 0 in 32 bits and RleIou looped forever (segm).
printf '{"images": [{"id": 1, "width": 65536, "height": 65536}], "categories": [{"id": 1}],
 "annotations": [{"id": 1, "image_id": 1, "category_id": 1, "bbox": [0, 100, 1, 50], "area": 50,
                  "segmentation": {"size": [65536, 65536], "counts": [100, 50, 4294967146]}}]}\n' > "$W/big.json"
printf '[{"image_id": 1, "category_id": 1, "bbox": [0, 0, 10, 10], "score": 0.9}]\n' > "$W/bigdet.json"
timeout 20 "$TB" score coco "$W/big.json" "$W/bigdet.json" --iou-type segm >"$W/out" 2>"$W/err"
expect_rc 2 $? "a 65536 x 65536 image"
expect_grep 'big\.json: image id 1: width and height must be at most 65535, got 65536 x 65536' "$W/err" \
  "names the file, the image and the limit"

# A polygon whose 5x outline is 60 million points: vector::reserve threw std::bad_alloc.
sed 's/"segmentation": \[\[10, 10, 60, 10, 60, 60, 10, 60\]\]/"segmentation": [[0, 0, 4e6, 0, 4e6, 4e6]]/' \
  "$W/gt.json" > "$W/hugepoly.json"
"$TB" score coco "$W/hugepoly.json" "$W/perfect.json" --iou-type segm >"$W/out" 2>"$W/err"
expect_rc 2 $? "a huge polygon"
expect_grep 'hugepoly\.json: annotation id 1 \(image id 1\): segmentation polygon 0 is too large to rasterise' \
  "$W/err" "names the file and the annotation"

# Detection boxes of negative size or far outside the image: scored as pycocotools scores them
# (the same AP as without them: they match nothing and score below the true positive), with
# a warning naming the file and the detection.
printf '[{"image_id": 1, "category_id": 1, "bbox": [10, 10, 50, 50], "score": 0.9},
 {"image_id": 1, "category_id": 1, "bbox": [60, 10, -50, 50], "score": 0.8},
 {"image_id": 1, "category_id": 1, "bbox": [1e6, 1e6, 50, 50], "score": 0.7}]\n' > "$W/oddboxes.json"
for t in bbox segm; do
  timeout 20 "$TB" score coco "$W/gt.json" "$W/oddboxes.json" --iou-type $t >"$W/out" 2>"$W/err"
  expect_rc 0 $? "odd boxes ($t)"
  expect_grep 'IoU=0\.50:0\.95 \| area=   all \| maxDets=100 \] = 1\.000$' "$W/out" "AP 1 ($t)"
  expect_grep '^trainbench: warning: .*oddboxes\.json: detection 1 \(image id 1\): bbox \[60\.0, 10\.0, -50\.0, 50\.0\] has a negative width or height' \
    "$W/err" "negative size warning ($t)"
  expect_grep '^trainbench: warning: .*oddboxes\.json: detection 2 \(image id 1\): bbox .* lies far outside its 200 x 200 image' \
    "$W/err" "far outside warning ($t)"
done

# A FIFO as the results file: refused by name at once (the open would block).
mkfifo "$W/fifo.json"
timeout 20 "$TB" score coco "$W/gt.json" "$W/fifo.json" >"$W/out" 2>"$W/err"
expect_rc 2 $? "a FIFO"
expect_grep 'fifo\.json: is a FIFO \(named pipe\), not a regular file' "$W/err" "names the FIFO"

echo "score coco: all checks passed"

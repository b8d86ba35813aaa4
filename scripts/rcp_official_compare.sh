#!/usr/bin/env bash
# Runs `trainbench check --rcp` and the official mlperf_logging rcp_checker on the same
# submission sets and prints both outcomes. The official checker is not part of trainbench: give
# the folder of a mlcommons/logging checkout (tested at commit 7bbf792, with Debian's python3-yaml,
# numpy and scipy). Writes each set's outputs to OUT/<set>.official.txt and OUT/<set>.trainbench.txt.
#
#   scripts/rcp_official_compare.sh LOGGING_DIR TRAINBENCH_BINARY OUT
#
# The sets (the official checker knows resnet, ssd and maskrcnn of trainbench's benchmarks):
#   reference_resnet|ssd|maskrcnn  the committed reference runs against configs/rcp/*_mini.json
#   too_fast       the resnet reference runs with every eval's epoch_num halved
#   interpolated   the resnet runs (BS 128) against testdata/rcp/rcps_resnet_64_256.json
#   below_range    the same with the batch size rewritten to 32
#   missing        the same with the batch size rewritten to 512
set -euo pipefail
LOGGING=$(cd "$1" && pwd)
TB=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
OUT=$(mkdir -p "$3" && cd "$3" && pwd)
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CAL=$ROOT/docs/calibration/results
TWO=$ROOT/src/compliance/testdata/rcp/rcps_resnet_64_256.json
SETS=$OUT/sets
rm -rf "$SETS"
mkdir -p "$SETS"

# copy SRC DST EPOCH_FACTOR BS: the logs of SRC with eval epoch_num * factor and the batch size
# set to BS (empty: kept).
copy() {
  mkdir -p "$2"
  for f in "$1"/result_*.txt; do
    perl -pe 'if (/"eval_accuracy"/) { s/("epoch_num": )(\d+)/$1.($2*'"$3"')/e }
              if ("'"$4"'" ne "") { s/("key": "global_batch_size", "value": )\d+/${1}'"$4"'/ }' \
      "$f" >"$2/$(basename "$f")"
  done
}
copy "$CAL/image_classification_epyc2_reference" "$SETS/reference_resnet/resnet" 1 ""
copy "$CAL/object_detection_epyc2_reference" "$SETS/reference_ssd/ssd" 1 ""
copy "$CAL/maskrcnn_epyc2_reference" "$SETS/reference_maskrcnn/maskrcnn" 1 ""
copy "$CAL/image_classification_epyc2_reference" "$SETS/too_fast/resnet" 0.5 ""
copy "$CAL/image_classification_epyc2_reference" "$SETS/interpolated/resnet" 1 ""
copy "$CAL/image_classification_epyc2_reference" "$SETS/below_range/resnet" 1 32
copy "$CAL/image_classification_epyc2_reference" "$SETS/missing/resnet" 1 512

rcp_for() {
  case $1 in
    reference_resnet | too_fast) echo "$ROOT/configs/rcp/image_classification_mini.json" ;;
    reference_ssd) echo "$ROOT/configs/rcp/object_detection_mini.json" ;;
    reference_maskrcnn) echo "$ROOT/configs/rcp/instance_segmentation_mini.json" ;;
    *) echo "$TWO" ;;
  esac
}

printf '%-20s %-8s %-8s %s\n' set official trainbench "official message"
for s in reference_resnet reference_ssd reference_maskrcnn too_fast interpolated below_range missing; do
  dir=$(ls -d "$SETS/$s"/*)
  rcp=$(rcp_for "$s")
  cmd="cd $LOGGING && /usr/bin/python3 -m mlperf_logging.rcp_checker $dir --custom_rcps $rcp --log_output $OUT/$s.rcp_checker.log"
  {
    echo "# command: $cmd"
    echo "# (mlperf_logging commit $(git -C "$LOGGING" rev-parse --short HEAD); the set made by scripts/rcp_official_compare.sh)"
    (cd "$LOGGING" && /usr/bin/python3 -m mlperf_logging.rcp_checker "$dir" --custom_rcps "$rcp" \
      --log_output "$OUT/$s.rcp_checker.log" 2>&1) && echo "# exit 0" || echo "# exit $?"
  } >"$OUT/$s.official.txt"
  "$TB" check --rcp "$dir" --rcp-file "$rcp" >"$OUT/$s.trainbench.txt" 2>&1 && tb=PASSED || tb=FAILED
  off=$(grep -oE 'RCP test (PASSED|FAILED)' "$OUT/$s.official.txt" | awk '{print $3}' || true)
  msg=$(grep -oE '(INFO|ERROR) - .*, RCP test' "$OUT/$s.official.txt" | sed -E 's/^(INFO|ERROR) - //; s/, RCP test$//' || true)
  printf '%-20s %-8s %-8s %s\n' "$s" "${off:-?}" "$tb" "$msg"
  [ "${off:-?}" = "$tb" ] || echo "MISMATCH on $s" >&2
done

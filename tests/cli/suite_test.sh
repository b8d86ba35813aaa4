#!/usr/bin/env bash
# `run --suite`: two benchmarks in the table's order, each to --runs; a second call runs nothing;
# Ctrl-C during a run stops the suite (exit 130) with the run recorded as interrupted, and the
# same command sets that log aside (result_3.interrupted.txt), runs the run again and finishes,
# then writes the summary and the HTML report. Tiny data, --max-steps runs.
set -u
TB=$1; W=$2
. "$(dirname "$0")/lib.sh"
rm -rf "$W"; mkdir -p "$W/data"
export XDG_DATA_HOME=$W/xdg  # the results history stays in the test's folder
R=$W/results; S=$R/s
make_short_fashion_mnist /usr/share/datasets/fashion-mnist "$W/data/image_classification" 200
"$TB" prepare recommendation --data "$W/data/recommendation" --set num_users=300 \
  --set num_items=1500 --set max_ratings_per_user=300 >/dev/null 2>&1 || fail "prepare"
SUITE=(run --suite mini recommendation image_classification --seed 7 --data "$W/data"
  --results "$R" --system s --no-progress)

# Refused before anything runs: a dataset folder missing, --set, an unknown benchmark.
"$TB" run --suite mini recommendation --data "$W/nodata" --results "$R" --system s >"$W/o" 2>&1
expect_rc 2 $? "missing dataset"
expect_grep "dataset folder\(s\) not found:" "$W/o" "names the missing folder"
expect_grep "$W/nodata/recommendation" "$W/o" "the folder under --data"
[ ! -e "$S" ] || fail "a refused suite wrote results"
"$TB" "${SUITE[@]}" --set batch_size=64 >"$W/o" 2>&1
expect_rc 2 $? "--set with --suite"
"$TB" run --suite mini no_such --results "$R" >"$W/o" 2>&1
expect_rc 2 $? "unknown benchmark"
"$TB" run image_classification recommendation >"$W/o" 2>&1
expect_rc 2 $? "two benchmarks without --suite"

# 1. Two runs each, in the table's order (image_classification first).
"$TB" "${SUITE[@]}" --runs 2 --max-steps 3 >"$W/out1" 2>"$W/err1"
expect_rc 1 $? "suite of runs that stop at their step budget (not converged)"
expect_grep "suite mini: 2 benchmark\(s\), 4 run\(s\), 0 already in" "$W/err1" "plan line"
expect_grep "suite mini: 0/4 runs done; now 1/2 image_classification, run 1/2" "$W/err1" "progress"
expect_grep "now 2/2 recommendation, run 2/2" "$W/err1" "progress, last run"
for b in image_classification recommendation; do
  for i in 1 2; do [ -f "$S/$b/result_$i.txt" ] || fail "$b result_$i.txt missing"; done
  [ ! -e "$S/$b/result_3.txt" ] || fail "$b: a third run"
done
# Run k has the seed `run --runs N --seed 7` gives it: 7 + k - 1.
expect_grep '"key": "seed", "value": 8' "$S/recommendation/result_2.txt" "seed of run 2"
expect_grep "^recommendation +mini +s +closed +2/10" "$W/out1" "summary table"
[ -f "$S/suite-mini.html" ] || fail "no HTML report"

# 2. Nothing left: no run starts.
"$TB" "${SUITE[@]}" --runs 2 --max-steps 3 >"$W/out2" 2>"$W/err2"
expect_grep "image_classification done \(2 of 2 runs\)" "$W/err2" "done benchmark skipped"
[ ! -e "$S/image_classification/result_3.txt" ] || fail "a finished benchmark ran again"

# 3. Ctrl-C during run 3 of image_classification: the suite stops; the run is set aside and redone.
"$TB" "${SUITE[@]}" --runs 3 --max-steps 100000 >"$W/out3" 2>"$W/err3" &
PID=$!
wait_for '"key": "epoch_start"' "$S/image_classification/result_3.txt.part" 300
kill -INT $PID
wait $PID
expect_rc 130 $? "interrupted suite"
expect_grep '"key": "run_stop".*"error": "interrupted"' "$S/image_classification/result_3.txt" \
  "the interrupted run says so"
[ ! -e "$S/recommendation/result_3.txt" ] || fail "the suite went on after Ctrl-C"
"$TB" "${SUITE[@]}" --runs 3 --max-steps 3 >"$W/out4" 2>"$W/err4"
expect_grep "interrupted run set aside as .*result_3.interrupted.txt" "$W/err4" "set aside"
expect_grep '"error": "interrupted"' "$S/image_classification/result_3.interrupted.txt" "kept"
expect_grep '"key": "run_stop"' "$S/image_classification/result_3.txt" "run 3 again"
[ -f "$S/recommendation/result_3.txt" ] || fail "the resumed suite did not finish"
grep -q '"error": "interrupted"' "$S/image_classification/result_3.txt" && fail "run 3 not redone"
expect_grep "^image_classification +mini +s +closed +3/5" "$W/out4" "3 runs counted, not 4"
echo "suite: all checks passed"

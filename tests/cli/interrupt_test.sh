#!/usr/bin/env bash
# Ctrl-C (SIGINT) in run 2 leaves run 1 intact and run 2 recorded as aborted; a worker killed
# by a signal gets an aborted run_stop appended by the runner.
set -u
TB=$1; W=$2
. "$(dirname "$0")/lib.sh"
rm -rf "$W"; mkdir -p "$W"
R=$W/results; D=$R/s/image_classification

# Run 1 completes quickly (step budget); run 2 is interrupted during training.
"$TB" run image_classification --runs 3 --seed 1 --threads 1 --division open --max-steps 15 \
  --results "$R" --system s --no-progress >"$W/out" 2>"$W/err" &
PID=$!
wait_for '"key": "run_stop"' "$D/result_1.txt" 300
wait_for '"key": "epoch_start"' "$D/result_2.txt.part" 300
kill -INT $PID
wait $PID
rc=$?
expect_rc 130 $rc "interrupted runner"
expect_grep '"status": "aborted"' "$D/result_1.txt" "run 1 kept (aborted by its step budget)"
[ -f "$D/result_2.txt" ] || fail "run 2 log missing"
expect_grep '"key": "run_stop".*"status": "aborted"' "$D/result_2.txt" "run 2 aborted"
[ ! -e "$D/result_3.txt" ] && [ ! -e "$D/result_3.txt.part" ] || fail "run 3 started after the interrupt"
[ "$(grep -c '"key": "run_stop"' "$D/result_2.txt")" = 1 ] || fail "run 2 has more than one run_stop"

# A worker killed by SIGKILL: the runner records the run as aborted and says how it died.
"$TB" run image_classification --runs 1 --seed 2 --threads 1 --division open \
  --results "$R" --system s --no-progress >"$W/out2" 2>"$W/err2" &
PID=$!
wait_for '"key": "epoch_start"' "$D/result_3.txt.part" 300
CHILD=$(pgrep -P $PID | head -1)
[ -n "$CHILD" ] || fail "no worker process found"
kill -KILL "$CHILD"
wait $PID
rc=$?
expect_rc 1 $rc "runner after a killed worker"
expect_grep '"key": "run_stop".*"status": "aborted".*killed by signal 9' "$D/result_3.txt" "crash recorded"
"$TB" check "$D/result_1.txt" >/dev/null 2>&1 || fail "run 1 no longer passes check"
echo "interrupt and crash: all checks passed"

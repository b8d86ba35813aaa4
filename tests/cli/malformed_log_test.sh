#!/usr/bin/env bash
# A malformed MLLOG line: check names the file and the line, exits non-zero.
set -u
TB=$1
. "$(dirname "$0")/lib.sh"
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
printf '%s\n' ':::MLLOG {"namespace": "", "time_ms": 1, "event_type": "POINT_IN_TIME", "key": "cache_clear", "value": true, "metadata": {"file": "a", "lineno": 1}}' \
  ':::MLLOG {"namespace": "", "time_ms": 2, "event_type": "POINT_IN' > "$W/bad.txt"
"$TB" check "$W/bad.txt" >"$W/out" 2>&1
rc=$?
[ $rc -ne 0 ] || fail "malformed log passed"
expect_grep 'bad.txt' "$W/out" "names the file"
expect_grep '(:2|line 2)' "$W/out" "names line 2"
"$TB" check "$W/nope.txt" >"$W/out2" 2>&1
expect_rc 2 $? "missing log"
expect_grep 'nope.txt' "$W/out2" "names the missing file"

# A hostile results folder (#41): a FIFO named like a result (blocked summarize, report and
# compare), a legacy log timed 1e306 s (a NaN run time: compare hung, summarize printed -nan), a
# stray byte in a legacy value (nlohmann's type_error.316 ended every command). Each command
# finishes, names the bad files and reads the others.
H="$W/hostile/sys/resnet"; mkdir -p "$H"
legacy() {  # legacy START STOP [EXTRA_LINE]
  printf ':::MLPv0.5.0 resnet %s (a.py:1) run_start\n' "$1"
  printf ':::MLPv0.5.0 resnet %s (a.py:2) eval_accuracy: {"epoch": 3, "value": 0.76}\n' "$2"
  printf ':::MLPv0.5.0 resnet %s (a.py:3) run_stop: {"success": true}\n' "$2"
  [ $# -lt 3 ] || printf '%s\n' "$3"
}
legacy 1541638787 1541638847 > "$H/result_0.txt"
legacy 1e306 1e306 > "$H/result_1.txt"
legacy 1541638787 1541638907 $':::MLPv0.5.0 resnet 1541638900 (a.py:4) opt_name: \'\xff\'' \
  > "$H/result_2.txt"
mkfifo "$H/result_3.txt"
timeout 30 "$TB" summarize --no-history "$W/hostile" >"$W/sum" 2>&1
expect_rc 0 $? "summarize of a hostile folder"
expect_grep 'result_1.txt.*"1e306" is out of range' "$W/sum" "summarize names the 1e306 log"
expect_grep 'result_2.txt:4: .*not valid UTF-8' "$W/sum" "summarize names the stray byte"
expect_grep 'result_3.txt: is a FIFO, not a regular file; skipped' "$W/sum" \
  "summarize skips the FIFO"
! grep -qi 'nan' "$W/sum" || fail "summarize printed a NaN"
timeout 30 "$TB" summarize --json --no-history "$W/hostile" >"$W/sumj" 2>&1
expect_rc 0 $? "summarize --json of a hostile folder"
timeout 30 "$TB" compare "$W/hostile" "$W/hostile" >"$W/cmp" 2>&1
expect_rc 0 $? "compare of a hostile folder"
expect_grep 'result_3.txt: is a FIFO' "$W/cmp" "compare skips the FIFO"
timeout 30 "$TB" report --no-history "$W/hostile" -o "$W/r.html" >"$W/rep" 2>&1
expect_rc 0 $? "report of a hostile folder"
expect_grep '2 runs, 2 files skipped' "$W/rep" "report reads the two good logs"
timeout 30 "$TB" check "$W/hostile" >"$W/chk" 2>&1
expect_rc 1 $? "check of a hostile folder (v0.5 logs fail trainbench-1.0)"
expect_grep 'result_3.txt: skipped: is a FIFO' "$W/chk" "check skips the FIFO"
expect_grep '^overall: FAILED \(3 of 3 logs' "$W/chk" "check ends with its overall line"
# A report over a result log is refused; the log stays.
cp "$H/result_0.txt" "$W/result_0.before"
"$TB" report --no-history "$W/hostile" -o "$H/result_0.txt" >"$W/over" 2>&1
expect_rc 2 $? "report -o over a result log"
expect_grep "$H/result_0.txt: refusing to write the report there" "$W/over" "names the log"
cmp -s "$H/result_0.txt" "$W/result_0.before" || fail "report overwrote a result log"
# history only reads: an empty file is no history and stays empty.
: > "$W/empty.sqlite"
"$TB" history --db "$W/empty.sqlite" >"$W/hist" 2>&1
expect_rc 2 $? "history of an empty file"
[ ! -s "$W/empty.sqlite" ] || fail "history wrote into the file it read"
echo "malformed log: all checks passed"

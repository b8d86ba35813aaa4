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
echo "malformed log: all checks passed"

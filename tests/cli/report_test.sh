#!/usr/bin/env bash
# `trainbench report` and `trainbench history` on the hand-made fixture folders
# (src/report/testdata): the report is written with the skipped files listed, importing the same
# logs twice stores each run once, history lists olympic times per revision, bad input exits 2,
# logged HTML/script stays text.
set -u
TB=$1
FIX=$2
. "$(dirname "$0")/lib.sh"
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
DB="$W/history.sqlite"

"$TB" report "$FIX/results_a" "$FIX/results_b" "$FIX/results_broken" -o "$W/r.html" --db "$DB" \
  >"$W/out" 2>"$W/err"
expect_rc 0 $? "report"
expect_grep "wrote $W/r.html: 3 results from 11 runs, 3 files skipped" "$W/out" "report summary line"
expect_grep 'skipped: .*result_2.txt: no run_stop event' "$W/err" "truncated log skipped"
expect_grep 'skipped: .*result_3.txt: no :::MLLOG' "$W/err" "garbage skipped"
expect_grep 'history: 11 new runs, 0 already known' "$W/err" "runs imported"
expect_grep 'Skipped files \(3\)' "$W/r.html" "skipped files in the report"
expect_grep 'data-plot="convergence"' "$W/r.html" "convergence plot"

# The same logs again: nothing new; summarize imports too.
"$TB" report "$FIX/results_a" "$FIX/results_b" -o "$W/r2.html" --db "$DB" >"$W/out" 2>"$W/err"
expect_rc 0 $? "report again"
expect_grep 'history: 0 new runs, 10 already known' "$W/err" "dedupe on content"
"$TB" summarize "$FIX/results_broken" --db "$DB" >"$W/out" 2>"$W/err"
expect_rc 0 $? "summarize"
expect_grep 'history: 0 new runs, 1 already known' "$W/err" "summarize records the history"
"$TB" summarize "$FIX/results_a" --db "$W/none.sqlite" --no-history >"$W/out" 2>"$W/err"
[ ! -e "$W/none.sqlite" ] || fail "--no-history wrote a history"

"$TB" history --db "$DB" >"$W/out" 2>"$W/err"
expect_rc 0 $? "history"
expect_grep 'from .*: 11 runs' "$W/out" "history counts runs once"
expect_grep '^image_classification +mini +cpu-2core +closed +abc1234 .* 8\.79 ' "$W/out" "cpu-2core row"
expect_grep '^image_classification +mini +cpu-8core +closed +def5678 .* 2\.77 ' "$W/out" "cpu-8core row"
"$TB" history image_classification --system cpu-8core --db "$DB" >"$W/out" 2>&1
expect_rc 0 $? "history filtered"
if grep -q cpu-2core "$W/out"; then fail "--system did not filter"; fi

# The default database lives in the user's data folder.
XDG_DATA_HOME="$W/xdg" "$TB" report "$FIX/results_b" -o "$W/r3.html" >"$W/out" 2>"$W/err"
expect_rc 0 $? "report with the default history"
[ -s "$W/xdg/trainbench/history.sqlite" ] || fail "no history in \$XDG_DATA_HOME/trainbench"

# Bad input.
"$TB" report "$W/missing" -o "$W/x.html" --no-history >"$W/out" 2>"$W/err"
expect_rc 2 $? "missing folder"
expect_grep "$W/missing" "$W/err" "names the missing folder"
"$TB" report "$FIX/results_a" >"$W/out" 2>&1
expect_rc 2 $? "no -o"
mkdir -p "$W/empty"
"$TB" report "$W/empty" -o "$W/empty.html" --no-history >"$W/out" 2>"$W/err"
expect_rc 0 $? "empty folder"
expect_grep 'No usable runs' "$W/empty.html" "empty report says so"

# Logged HTML and script are text: only the report's own three scripts.
"$TB" report "$FIX/results_xss" -o "$W/xss.html" --no-history >"$W/out" 2>"$W/err"
expect_rc 0 $? "xss report"
n=$(grep -o '<script' "$W/xss.html" | wc -l)
[ "$n" = 3 ] || fail "xss: $n <script tags, expected 3"
if grep -q -E '<img|<iframe|<b>bold' "$W/xss.html"; then fail "xss: markup from the log in the page"; fi
expect_grep '&lt;img src=x onerror=alert\(2\)&gt;' "$W/xss.html" "xss: escaped benchmark name"
echo "report and history: all checks passed"

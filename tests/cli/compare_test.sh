#!/usr/bin/env bash
# `trainbench compare` on hand-written MLLOG result folders with known answers: A 5 runs of
# 10 min against B 5 runs of 5 min is a ratio of 0.5 (speed-up 2.00x), U = 0 and exact p = 2/252;
# identical sides are said to be not significant; a benchmark in one folder only is listed;
# --json carries a schema version; a missing folder exits 2 naming it. Also the report fixtures
# (src/report/testdata: cpu-2core against cpu-8core, one run of A did not converge).
set -u
TB=$1
FIX=$2
. "$(dirname "$0")/lib.sh"
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT

# mk_run FILE BENCHMARK LOG_NAME START_MS MINUTES STATUS
mk_run() {
  local stop=$(( $4 + $5 * 60000 )) n=0
  mkdir -p "$(dirname "$1")"
  ev() {  # ev TIME TYPE KEY VALUE [METADATA]
    n=$((n + 1))
    printf ':::MLLOG {"namespace": "", "time_ms": %s, "event_type": "%s", "key": "%s", "value": %s, "metadata": {"file": "t.cc", "lineno": %s%s}}\n' \
      "$1" "$2" "$3" "$4" "$n" "${5:-}"
  }
  {
    ev $(( $4 - 10 )) INTERVAL_START init_start null
    ev $(( $4 - 9 )) POINT_IN_TIME submission_benchmark "\"$3\""
    ev $(( $4 - 8 )) POINT_IN_TIME submission_division '"closed"'
    ev $(( $4 - 7 )) POINT_IN_TIME trainbench_benchmark "\"$2\""
    ev $(( $4 - 6 )) POINT_IN_TIME trainbench_scale '"mini"'
    ev $(( $4 - 5 )) INTERVAL_END init_stop null
    ev "$4" INTERVAL_START run_start null
    ev "$stop" INTERVAL_END run_stop null ", \"status\": \"$6\""
  } > "$1"
}
# mk_runs DIR SYSTEM BENCHMARK LOG_NAME MINUTES...
mk_runs() {
  local dir=$1 sys=$2 bench=$3 log=$4 i=1
  shift 4
  for m in "$@"; do
    mk_run "$dir/$sys/$bench/result_$i.txt" "$bench" "$log" $(( 1700000000000 + i * 3600000 )) "$m" success
    i=$((i + 1))
  done
}

mk_runs "$W/a" base image_classification resnet 10 10 10 10 10
mk_runs "$W/b" fast image_classification resnet 5 5 5 5 5
mk_runs "$W/a" base recommendation ncf 3 3 3 3 3
mk_runs "$W/b" fast recommendation ncf 3 3 3 3 3

"$TB" compare "$W/a" "$W/b" >"$W/out" 2>"$W/err"
expect_rc 0 $? "compare"
expect_grep '^image_classification +mini +closed +base +fast +5/5 +5/5 +10\.00 +5\.00 +0\.500 +\[0\.500, 0\.500\] +2\.00x +\[2\.00x, 2\.00x\] +0 +0\.0079 \(exact\) +B faster$' \
  "$W/out" "2x row"
expect_grep 'B is 2\.00x faster than A; significant \(p = 0\.0079 < 0\.05' "$W/out" "2x sentence"
expect_grep '^recommendation +mini .* 1\.000 .* not significant \(p >= 0\.05; CI contains 1\.0\)$' \
  "$W/out" "identical row"
expect_grep 'recommendation mini \(closed\), A base vs B fast: the difference is NOT significant' \
  "$W/out" "identical sentence"
expect_grep 'seed 20181212' "$W/out" "documented seed"

# Deterministic: the same bytes twice.
"$TB" compare "$W/a" "$W/b" >"$W/out2" 2>/dev/null
cmp -s "$W/out" "$W/out2" || fail "two runs of compare differ"

"$TB" compare "$W/a" "$W/b" --json >"$W/json" 2>"$W/err"
expect_rc 0 $? "compare --json"
expect_grep '"schema_version": 1' "$W/json" "schema version"
expect_grep '"ratio_b_over_a": 0\.5' "$W/json" "ratio in JSON"
expect_grep '"speedup_a_over_b": 2\.0' "$W/json" "speed-up in JSON"
expect_grep '"method": "exact"' "$W/json" "exact test in JSON"

# A benchmark only in A.
mk_runs "$W/c" fast image_classification resnet 5 5 5 5 5
"$TB" compare "$W/a" "$W/c" >"$W/out" 2>"$W/err"
expect_rc 0 $? "compare with a benchmark missing in B"
expect_grep '^Only in A \(1\):' "$W/out" "only-in-A section"
expect_grep '^  recommendation mini \(closed\) on base' "$W/out" "only-in-A benchmark"

# Nothing in common.
mkdir -p "$W/empty"
"$TB" compare "$W/a" "$W/empty" >"$W/out" 2>"$W/err"
expect_rc 0 $? "compare with an empty folder"
expect_grep 'no benchmark is in both folders' "$W/err" "nothing in common said"

# Bad input: exit 2, naming the path.
"$TB" compare "$W/a" "$W/nope" >"$W/out" 2>"$W/err"
expect_rc 2 $? "missing folder B"
expect_grep "$W/nope" "$W/err" "names the missing folder"
"$TB" compare "$W/nope_a" "$W/b" >"$W/out" 2>"$W/err"
expect_rc 2 $? "missing folder A"
expect_grep "$W/nope_a" "$W/err" "names the missing folder A"
"$TB" compare "$W/a" >"$W/out" 2>"$W/err"
expect_rc 2 $? "one folder only"

# The report fixtures: cpu-8core against cpu-2core.
"$TB" compare "$FIX/results_a" "$FIX/results_b" >"$W/out" 2>"$W/err"
expect_rc 0 $? "compare the report fixtures"
expect_grep '^image_classification +mini +closed +cpu-2core +cpu-8core +4/5 +5/5 ' "$W/out" "fixture row"
echo "compare: all checks passed"

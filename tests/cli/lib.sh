# Shared helpers for the CLI test scripts.
fail() { echo "FAIL: $*" >&2; exit 1; }
expect_rc() {  # expect_rc <expected> <actual> <what>
  [ "$1" = "$2" ] || fail "$3: exit code $2, expected $1"
}
expect_grep() {  # expect_grep <pattern> <file> <what>
  grep -q -E -- "$1" "$2" || { echo "--- $2:"; cat "$2"; fail "$3: no match for /$1/"; }
}
wait_for() {  # wait_for <pattern> <file> <seconds>
  for _ in $(seq 1 $(( $3 * 10 ))); do
    grep -q -E -- "$1" "$2" 2>/dev/null && return 0
    sleep 0.1
  done
  fail "timed out waiting for /$1/ in $2"
}

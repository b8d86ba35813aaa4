#!/usr/bin/env bash
# The report in a real browser (Debian's chromium, headless): it loads with no console message
# and no script error, the page's own check finds one curve per run in every plot, logged
# HTML/script renders as text, and a screenshot is taken (kept in OUT/report.png).
# Exits 77 (CTest: skipped) when chromium is not installed (scripts/setup.sh installs it).
set -u
TB=$1
FIX=$2
OUT=$3
. "$(dirname "$0")/lib.sh"
BROWSER=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$BROWSER" ]; then
  echo "chromium not installed (bash scripts/setup.sh installs it): skipped"
  exit 77
fi
rm -rf "$OUT"; mkdir -p "$OUT"
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT

browse() {  # browse <html> <extra chromium flags...>: stdout to $W/stdout, stderr to $W/stderr
  local page=$1; shift
  rm -rf "$W/profile"
  timeout 120 "$BROWSER" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$W/profile" --enable-logging=stderr --v=0 "$@" "file://$page" \
    >"$W/stdout" 2>"$W/stderr"
}

check_page() {  # check_page <html> <name> <results>
  browse "$1" --dump-dom
  expect_rc 0 $? "$2: chromium --dump-dom"
  cp "$W/stdout" "$OUT/$2.dom.html"
  if grep -E ':CONSOLE' "$W/stderr" >"$W/console"; then
    cat "$W/console"; fail "$2: console messages"
  fi
  expect_grep '<div id="js-errors" hidden="">' "$W/stdout" "$2: no script error"
  if grep -q '<p>script error:' "$W/stdout"; then fail "$2: script error recorded"; fi
  expect_grep 'data-curves-ok="true"' "$W/stdout" "$2: one curve per run in every plot"
  expect_grep "data-results=\"$3\"" "$W/stdout" "$2: embedded JSON parsed"
}

"$TB" report "$FIX/results_a" "$FIX/results_b" "$FIX/results_broken" -o "$OUT/report.html" \
  --no-history >/dev/null 2>&1
expect_rc 0 $? "report"
check_page "$OUT/report.html" report 3
# One curve per run, counted in the DOM the browser built: 11 runs, 2 curve plots.
n=$(grep -o '<polyline class="curve[^"]*" data-run=' "$OUT/report.dom.html" | wc -l)
[ "$n" = 22 ] || fail "report: $n curves, expected 22 (11 runs x 2 plots)"
n=$(grep -o 'class="run-point"' "$OUT/report.dom.html" | wc -l)
[ "$n" = 11 ] || fail "report: $n run-time points, expected 11"

browse "$OUT/report.html" --window-size=1500,2400 --screenshot="$OUT/report.png"
expect_rc 0 $? "screenshot"
[ "$(stat -c %s "$OUT/report.png" 2>/dev/null || echo 0)" -gt 20000 ] || fail "no screenshot"

"$TB" report "$FIX/results_xss" -o "$OUT/xss.html" --no-history >/dev/null 2>&1
expect_rc 0 $? "xss report"
check_page "$OUT/xss.html" xss 1
n=$(grep -o '<script' "$OUT/xss.dom.html" | wc -l)
[ "$n" = 3 ] || fail "xss: $n script elements in the DOM, expected 3"
if grep -q -E '<img|<iframe|<b>bold|<i>top1' "$OUT/xss.dom.html"; then
  fail "xss: an element from the log was created"
fi
expect_grep "&lt;script&gt;alert\('xss'\)&lt;/script&gt;" "$OUT/xss.dom.html" "xss: shown as text"
echo "report in chromium: all checks passed (screenshot: $OUT/report.png)"

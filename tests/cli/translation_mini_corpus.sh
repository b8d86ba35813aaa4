#!/usr/bin/env bash
# CTest fixture of the closed translation tests: `trainbench prepare translation` builds the real
# mini corpus in <dir>/mini (the README's data, about a minute), and <dir>/mini_short is the same
# corpus with only its 12 test sentences of the fewest source pieces. The closed runs keep the
# mini corpus's vocabulary, training pairs and model (closed-legal) but evaluate on those 12:
# after a 2-step budget the model is untrained and beam-decodes every sentence to the length
# limit (1.5 x source + 10 pieces), which over all 1000 took minutes, and still 106 s over 30
# ordinary ones where bf16 is emulated (AVX2). The closed rules do not look at the test split.
set -u
TB=$1; W=$2
. "$(dirname "$0")/lib.sh"
rm -rf "$W"; mkdir -p "$W"
"$TB" prepare translation --data "$W/mini" >"$W/prep_mini.out" 2>&1
expect_rc 0 $? "prepare (mini)"
cp -r "$W/mini" "$W/mini_short" || fail "copy the mini corpus"
# Line numbers of the 12 shortest sources (ids: source pieces, a tab, target pieces), in order.
awk -F'\t' '{print split($1, a, " "), NR}' "$W/mini/test.ids" | sort -k1,1n -k2,2n | head -n 12 |
  awk '{print $2}' | sort -n >"$W/short_lines" || fail "pick the short test sentences"
for f in test.ids test.en test.es; do
  awk 'NR == FNR {keep[$1] = 1; next} FNR in keep' "$W/short_lines" "$W/mini/$f" >"$W/mini_short/$f"
done
[ "$(wc -l <"$W/mini_short/test.ids")" = 12 ] || fail "12 short test sentences"
echo "translation mini corpus ready in $W"

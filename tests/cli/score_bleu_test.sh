#!/usr/bin/env bash
# `trainbench score bleu` with real files: a hand-computed value (a short hypothesis: every
# n-gram matches, BP = exp(1 - 6/4) = 0.6065 -> 60.65), a two-line corpus, --json, --tokenize
# (intl splits « » and €, 13a does not; t2t differs from sacreBLEU on a 3-token line),
# --lowercase, and the bad inputs: a missing file, different line counts, invalid UTF-8, a
# device, a line past 1 MiB, each exit code 2 with a message naming the file (and the
# line or the counts).
set -u
TB=$1
. "$(dirname "$0")/lib.sh"
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT

printf 'the cat sat on the mat\n' > "$W/ref1"
printf 'the cat sat on\n' > "$W/hyp1"
"$TB" score bleu "$W/ref1" "$W/hyp1" >"$W/out" 2>"$W/err"
expect_rc 0 $? "score bleu"
expect_grep '^BLEU = 60\.65 100\.0/100\.0/100\.0/100\.0 \(BP = 0\.607 ratio = 0\.667 hyp_len = 4 ref_len = 6\)$' \
  "$W/out" "brevity penalty value"
[ "$(wc -l < "$W/out")" -eq 1 ] || fail "more than one line printed"

# Two segments: one perfect (6 tokens), one without overlap (4 tokens). Corpus sums
# 6/10, 5/8, 4/6, 3/4 -> 0.1875^(1/4) = 65.80, not the mean of sentence scores (50).
printf 'the cat sat on the mat\ne f g h\n' > "$W/ref2"
printf 'the cat sat on the mat\na b c d\n' > "$W/hyp2"
"$TB" score bleu "$W/ref2" "$W/hyp2" >"$W/out" 2>"$W/err"
expect_rc 0 $? "two segments"
expect_grep '^BLEU = 65\.80 60\.0/62\.5/66\.7/75\.0 \(BP = 1\.000 ratio = 1\.000 hyp_len = 10 ref_len = 10\)$' \
  "$W/out" "corpus-level sums"

"$TB" score bleu "$W/ref1" "$W/hyp1" --json >"$W/json" 2>"$W/err"
expect_rc 0 $? "--json"
expect_grep '"schema_version": 1' "$W/json" "schema version"
expect_grep '"score": 60\.653065971263' "$W/json" "score in JSON"
expect_grep '"bp": 0\.606530659712' "$W/json" "BP in JSON"
expect_grep '"hyp_len": 4' "$W/json" "hyp_len in JSON"
expect_grep '"ref_len": 6' "$W/json" "ref_len in JSON"
expect_grep '"signature": "nrefs:1\|case:mixed\|eff:no\|tok:13a\|smooth:exp"' "$W/json" "signature"

# --tokenize: intl splits « » € ! off, 13a only the "!", none nothing.
printf '«Hola» cuesta 50€ hoy!\n' > "$W/ref3"
printf '« Hola » cuesta 50 € hoy !\n' > "$W/hyp3"
"$TB" score bleu "$W/ref3" "$W/hyp3" --tokenize intl >"$W/out" 2>"$W/err"
expect_rc 0 $? "--tokenize intl"
expect_grep '^BLEU = 100\.00 100\.0/100\.0/100\.0/100\.0 \(BP = 1\.000 ratio = 1\.000 hyp_len = 8 ref_len = 8\)$' \
  "$W/out" "intl splits the guillemets and the euro sign"
"$TB" score bleu "$W/ref3" "$W/hyp3" --tokenize 13a >"$W/out" 2>"$W/err"
expect_rc 0 $? "--tokenize 13a"
expect_grep '^BLEU = 12\.22 37\.5/14\.3/8\.3/5\.0 .*hyp_len = 8 ref_len = 5\)$' "$W/out" "13a keeps them attached"
"$TB" score bleu "$W/ref3" "$W/hyp3" --tokenize none >"$W/out" 2>"$W/err"
expect_rc 0 $? "--tokenize none"
expect_grep '^BLEU = 5\.52 .*hyp_len = 8 ref_len = 4\)$' "$W/out" "none splits on whitespace only"

# t2t: a 3-token perfect match is 100 (the missing 4-gram order is skipped), sacreBLEU 0.
printf 'The cat sat\n' > "$W/ref4"
printf 'the cat sat\n' > "$W/hyp4"
"$TB" score bleu "$W/ref4" "$W/hyp4" --tokenize t2t --lowercase >"$W/out" 2>"$W/err"
expect_rc 0 $? "--tokenize t2t"
expect_grep '^BLEU = 100\.00 ' "$W/out" "t2t skips an order without n-grams"
"$TB" score bleu "$W/ref4" "$W/hyp4" --tokenize intl --lowercase >"$W/out" 2>"$W/err"
expect_grep '^BLEU = 0\.00 ' "$W/out" "sacreBLEU gives 0 without 4-grams"
"$TB" score bleu "$W/ref1" "$W/ref1" --tokenize t2t --json >"$W/json" 2>"$W/err"
expect_grep '"signature": "nrefs:1\|case:mixed\|tok:t2t\|bleu:t2t"' "$W/json" "t2t signature"

# --lowercase.
printf 'The Cat sat on the mat\n' > "$W/hyp5"
"$TB" score bleu "$W/ref1" "$W/hyp5" >"$W/out" 2>"$W/err"
expect_grep '^BLEU = 50\.81 ' "$W/out" "cased"
"$TB" score bleu "$W/ref1" "$W/hyp5" --lowercase >"$W/out" 2>"$W/err"
expect_grep '^BLEU = 100\.00 ' "$W/out" "uncased"

# Bad input: exit code 2 and a message naming the file.
"$TB" score bleu "$W/nope.txt" "$W/hyp1" >"$W/out" 2>"$W/err"
expect_rc 2 $? "missing file"
expect_grep 'nope\.txt: cannot open' "$W/err" "names the missing file"

"$TB" score bleu "$W/ref2" "$W/hyp1" >"$W/out" 2>"$W/err"
expect_rc 2 $? "different line counts"
expect_grep "ref2 has 2 lines, .*hyp1 has 1" "$W/err" "names both files and both counts"

printf 'ok\nbad \xc3\x28 byte\n' > "$W/hyp6"
"$TB" score bleu "$W/ref2" "$W/hyp6" >"$W/out" 2>"$W/err"
expect_rc 2 $? "invalid UTF-8"
expect_grep 'hyp6:2: invalid UTF-8 at byte 5 of the line' "$W/err" "names the file and the line"

"$TB" score bleu "$W/ref1" "$W/hyp1" --tokenize moses >"$W/out" 2>"$W/err"
expect_rc 2 $? "unknown tokenizer"
"$TB" score >"$W/out" 2>"$W/err"
expect_rc 2 $? "score without a metric"

# Hostile input (#41): a device (/dev/zero was read as one endless line until std::bad_alloc)
# is refused by name; a pipe is read as the file it carries; a line past 1 MiB names file:line.
timeout 20 "$TB" score bleu /dev/zero "$W/hyp1" >"$W/out" 2>"$W/err"
expect_rc 2 $? "/dev/zero"
expect_grep '/dev/zero: is a character device, not a regular file' "$W/err" "names the device"
"$TB" score bleu "$W/ref1" "$W/hyp1" >"$W/file.out" 2>&1
timeout 20 "$TB" score bleu "$W/ref1" <(cat "$W/hyp1") >"$W/pipe.out" 2>&1
expect_rc 0 $? "a pipe"
cmp -s "$W/file.out" "$W/pipe.out" || fail "a pipe scores as the file it carries"
{ printf 'short\n'; head -c 1048577 /dev/zero | tr '\0' 'a'; } > "$W/long"
printf 'a\nb\n' > "$W/ref7"
"$TB" score bleu "$W/ref7" "$W/long" >"$W/out" 2>"$W/err"
expect_rc 2 $? "a line past 1 MiB"
expect_grep 'long:2: line longer than 1048576 bytes' "$W/err" "names the file and the line"

echo "score bleu: all checks passed"

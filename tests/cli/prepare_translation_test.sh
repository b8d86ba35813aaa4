#!/usr/bin/env bash
# `trainbench prepare translation` through the real CLI: a small mini corpus (a few hundred
# fortunes sentences, a small SentencePiece vocabulary) is built with the real Apertium, is
# the same bytes when built again, and is verified (not rebuilt) on a second call; changed
# options or files are refused naming the file; bad --set values, a missing translator or
# fortunes folder, and bad WMT folders (--scale full) give errors naming the file and line.
set -u
TB=$1; W=$2
. "$(dirname "$0")/lib.sh"
rm -rf "$W"; mkdir -p "$W"
D=$W/mini
SMALL=(--set max_sentences=200 --set test_size=20 --set vocab_size=300)

# 1. Build, build again elsewhere (same bytes), verify.
"$TB" prepare translation --data "$D" "${SMALL[@]}" >"$W/prep.out" 2>&1
expect_rc 0 $? "prepare (build)"
expect_grep "$D: generated; 180 train and 20 test sentence pairs, 300 subword pieces" "$W/prep.out" "built"
for f in train.en train.es test.en test.es spm.model spm.vocab train.ids test.ids dataset.json; do
  [ -s "$D/$f" ] || fail "no $f"
done
[ "$(wc -l <"$D/train.en")" = 180 ] && [ "$(wc -l <"$D/train.es")" = 180 ] || fail "train line counts"
expect_grep '"train.es": \{' "$D/dataset.json" "dataset.json lists the files"
expect_grep '"fnv1a64": "[0-9a-f]{16}"' "$D/dataset.json" "dataset.json holds hashes"
"$TB" prepare translation --data "$W/again" "${SMALL[@]}" >"$W/again.out" 2>&1
expect_rc 0 $? "prepare (build again)"
for f in train.en train.es test.en test.es spm.model spm.vocab train.ids test.ids dataset.json; do
  cmp -s "$D/$f" "$W/again/$f" || fail "$f differs between two builds"
done
"$TB" prepare translation --data "$D" "${SMALL[@]}" >"$W/verify.out" 2>&1
expect_rc 0 $? "prepare (verify)"
expect_grep "$D: matches dataset.json" "$W/verify.out" "verified"
expect_grep "gives the same English sentences" "$W/verify.out" "English side checked"

# 2. An existing folder is not rebuilt with other options, nor accepted with a changed file.
"$TB" prepare translation --data "$D" --set max_sentences=200 --set test_size=21 --set vocab_size=300 >"$W/other.out" 2>&1
expect_rc 2 $? "other options over an existing folder"
expect_grep "$D/dataset.json: the folder was built with other options: corpus.test_size is 20, requested 21" "$W/other.out" "names the option"
cp -r "$D" "$W/changed"
sed -i '3s/$/ x/' "$W/changed/train.es"
"$TB" prepare translation --data "$W/changed" "${SMALL[@]}" >"$W/changed.out" 2>&1
expect_rc 2 $? "changed file"
expect_grep "$W/changed/train.es: differs from what $W/changed/dataset.json records" "$W/changed.out" "names the file"

# The English side is checked against the fortunes on every verify: a changed fortune file is
# found even though the folder's own files are intact.
mkdir -p "$W/fortunes"; cp /usr/share/games/fortunes/goedel /usr/share/games/fortunes/magic "$W/fortunes/"
FORT=(--set fortunes_dir="$W/fortunes" --set test_size=5 --set vocab_size=200)
"$TB" prepare translation --data "$W/own" "${FORT[@]}" >"$W/own.out" 2>&1
expect_rc 0 $? "prepare from a fortunes copy"
printf 'A brand new fortune appears here today.\n%%\n' >>"$W/fortunes/magic"
"$TB" prepare translation --data "$W/own" "${FORT[@]}" >"$W/own2.out" 2>&1
expect_rc 2 $? "verify after the fortunes changed"
expect_grep "$W/own/dataset.json: the fortunes in $W/fortunes give other English sentences" "$W/own2.out" "says the fortunes changed"

# 3. Bad options and missing tools.
"$TB" prepare translation --data "$W/x" --set no_such=1 >"$W/bad1.out" 2>&1
expect_rc 2 $? "unknown option"
expect_grep "no_such: unknown option of the translation corpus" "$W/bad1.out" "names the option"
"$TB" prepare translation --data "$W/x" --set test_size=abc >"$W/bad2.out" 2>&1
expect_rc 2 $? "non-numeric option"
expect_grep 'test_size: "abc" is not a number' "$W/bad2.out" "names the value"
"$TB" prepare translation --data "$W/x" "${SMALL[@]}" --set apertium=/nonexistent/apertium >"$W/bad3.out" 2>&1
expect_rc 2 $? "missing apertium"
expect_grep "/nonexistent/apertium: command not found \(install the Debian packages apertium and apertium-eng-spa\)" "$W/bad3.out" "names the command and packages"
"$TB" prepare translation --data "$W/x" "${SMALL[@]}" --set fortunes_dir=/nonexistent/fortunes >"$W/bad4.out" 2>&1
expect_rc 2 $? "missing fortunes"
expect_grep "/nonexistent/fortunes: no such folder \(the fortune files come with the Debian package fortunes\)" "$W/bad4.out" "names the folder"
"$TB" prepare translation --data "$W/x" --set max_sentences=10 --set test_size=10 >"$W/bad5.out" 2>&1
expect_rc 2 $? "test split too large"
expect_grep "too few for test_size 10" "$W/bad5.out" "says why"
[ ! -e "$W/x/dataset.json" ] || fail "a failed build left a dataset.json"

# 4. --scale full: a WMT-style folder (here the small corpus above, Spanish standing in for
# German), checked line by line, then SentencePiece trained and both splits encoded; a second
# call verifies; a changed ids file or other options are refused naming the file.
G=$W/wmtlike; mkdir -p "$G"
cp "$D/train.en" "$G/train.en"; cp "$D/train.es" "$G/train.de"
cp "$D/test.en" "$G/newstest2014.en"; cp "$D/test.es" "$G/newstest2014.de"
"$TB" prepare translation --scale full --data "$G" --set vocab_size=250 --set spm_max_sentences=100 >"$W/fullok.out" 2>&1
expect_rc 0 $? "prepare --scale full (build)"
expect_grep "$G/train.en / $G/train.de: 180 sentence pairs" "$W/fullok.out" "train counted"
expect_grep "sentencepiece: 250 pieces trained on 90 sentences \(every 4-th pair\)" "$W/fullok.out" "sampled pairs"
expect_grep "newstest2014.ids: 20 pairs encoded" "$W/fullok.out" "test encoded"
for f in spm.model spm.vocab train.ids newstest2014.ids dataset.json; do [ -s "$G/$f" ] || fail "full: no $f"; done
[ "$(wc -l <"$G/train.ids")" = 180 ] || fail "full: train.ids line count"
ls "$G" | grep -q '\.part$' && fail "full: a .part file was left"
"$TB" prepare translation --scale full --data "$G" --set vocab_size=250 --set spm_max_sentences=100 >"$W/fullok2.out" 2>&1
expect_rc 0 $? "prepare --scale full (verify)"
expect_grep "matches dataset.json" "$W/fullok2.out" "verified"
"$TB" prepare translation --scale full --data "$G" --set vocab_size=300 --set spm_max_sentences=100 >"$W/fullok3.out" 2>&1
expect_rc 2 $? "prepare --scale full with other options"
expect_grep "$G/dataset.json: built with other options: subword.vocab_size is 250, requested 300" "$W/fullok3.out" "names the option"
printf '5 6\t7\n' >>"$G/train.ids"
"$TB" prepare translation --scale full --data "$G" --set vocab_size=250 --set spm_max_sentences=100 >"$W/fullok4.out" 2>&1
expect_rc 2 $? "prepare --scale full with a changed ids file"
expect_grep "$G/train.ids: differs from what $G/dataset.json records" "$W/fullok4.out" "names the file"

F=$W/wmt; mkdir -p "$F"
printf 'A test.\n' >"$F/newstest2014.en"; printf 'Ein Test.\n' >"$F/newstest2014.de"
printf 'Hello world.\nGood morning.\n' >"$F/train.en"
printf 'Hallo Welt.\n' >"$F/train.de"
"$TB" prepare translation --scale full --data "$F" >"$W/full2.out" 2>&1
expect_rc 2 $? "line counts differ"
expect_grep "$F/train.de:2: ends here: $F/train.de has 1 lines but $F/train.en has 2" "$W/full2.out" "both files and counts"
printf 'Hallo Welt.\n\n' >"$F/train.de"
"$TB" prepare translation --scale full --data "$F" >"$W/full3.out" 2>&1
expect_rc 2 $? "empty line"
expect_grep "$F/train.de:2: empty line" "$W/full3.out" "file and line"
printf 'Hallo Welt.\nGuten \xff Morgen.\n' >"$F/train.de"
"$TB" prepare translation --scale full --data "$F" >"$W/full4.out" 2>&1
expect_rc 2 $? "invalid UTF-8"
expect_grep "$F/train.de:2: invalid UTF-8 at byte 6: invalid byte 0xFF of the line" "$W/full4.out" "file, line and offset"
printf 'Hallo Welt.\nGuten Morgen.\n' >"$F/train.de"
rm "$F/newstest2014.de"
"$TB" prepare translation --scale full --data "$F" >"$W/full5.out" 2>&1
expect_rc 2 $? "missing file"
expect_grep "$F/newstest2014.de: cannot open: No such file or directory" "$W/full5.out" "names the file"
"$TB" prepare translation --scale full --data "$F" --set seed=1 >"$W/full6.out" 2>&1
expect_rc 2 $? "--set at full scale"
expect_grep "the full scale takes vocab_size" "$W/full6.out" "names what it takes"
echo "prepare translation: all checks passed"

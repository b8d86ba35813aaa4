#!/usr/bin/env bash
# docs/design.md's layer table against the build: every folder under src/ with a CMakeLists.txt
# has a row, and every library or executable target a folder defines is named in its row (and
# no row names a target that does not exist).
set -u
ROOT=$1
. "$(dirname "$0")/cli/lib.sh"
DOC=$ROOT/docs/design.md
[ -f "$DOC" ] || fail "no $DOC"
n=0
for cm in "$ROOT"/src/*/CMakeLists.txt; do
  dir=$(basename "$(dirname "$cm")")
  row=$(grep -E "^\| \`src/$dir\` \|" "$DOC") || fail "docs/design.md: no row for src/$dir"
  targets=$(echo "$row" | awk -F'|' '{print $3}')
  for t in $(grep -oE 'add_(library|executable)\((trainbench[a-z_-]*)' "$cm" | sed -E 's/.*\(//'); do
    echo "$targets" | grep -qE "(^|[ ,])$t(,|[ ]|$)" || fail "docs/design.md: the row of src/$dir does not name target $t"
    n=$((n + 1))
  done
  for t in $(echo "$targets" | tr ',' ' '); do
    grep -qE "add_(library|executable)\($t( |$)" "$cm" || fail "docs/design.md: src/$dir names $t, which its CMakeLists.txt does not define"
  done
done
rows=$(grep -cE '^\| `src/[a-z_]+` \|' "$DOC")
dirs=$(ls "$ROOT"/src/*/CMakeLists.txt | wc -l)
[ "$rows" = "$dirs" ] || fail "docs/design.md has $rows folder rows, src/ has $dirs folders with a CMakeLists.txt"
echo "docs/design.md: $rows folders, $n targets, as the build defines them"

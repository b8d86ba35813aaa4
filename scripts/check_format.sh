#!/usr/bin/env bash
# The one written style of the C++ sources: .clang-format (Google based, 100 columns), checked by
# Debian's clang-format. `scripts/check_format.sh` lists the files that differ from it and exits
# 1; `--fix` rewrites them in place. CTest runs the check (test `format`, label unit).
# Generated files (*.inc) are left out.
set -euo pipefail
cd "$(dirname "$0")/.."
CF=${CLANG_FORMAT:-clang-format}
command -v "$CF" >/dev/null || { echo "check_format: $CF not found (Debian package clang-format; scripts/setup.sh installs it)" >&2; exit 2; }
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files -- 'src/*.cc' 'src/*.h' 'bench/*.cc' 'bench/*.h' 'fuzz/*.cc' 'fuzz/*.h' 'tests/*.cc' 'tests/*.h')
else
  mapfile -t files < <(find src bench fuzz tests -name '*.cc' -o -name '*.h' | sort)
fi
if [ "${1:-}" = --fix ]; then
  "$CF" -i "${files[@]}"
  exit 0
fi
# One clang-format process for all files: each difference is an error line "file:line:col: error:".
out=$(mktemp)
trap 'rm -f "$out"' EXIT
rc=0
"$CF" --dry-run -Werror "${files[@]}" 2>"$out" || rc=$?
mapfile -t bad < <(sed -n -E 's/^([^:]+):[0-9]+:[0-9]+: error:.*/\1/p' "$out" | sort -u)
if [ $rc -ne 0 ] && [ ${#bad[@]} -eq 0 ]; then
  echo "check_format: $CF failed (exit $rc) without naming a file:" >&2
  head -20 "$out" >&2
  exit 2
fi
if [ ${#bad[@]} -gt 0 ]; then
  echo "check_format: ${#bad[@]} of ${#files[@]} files differ from .clang-format (scripts/check_format.sh --fix rewrites them):" >&2
  printf '  %s\n' "${bad[@]}" >&2
  exit 1
fi
echo "check_format: ${#files[@]} files follow .clang-format"

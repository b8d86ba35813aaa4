#!/usr/bin/env bash
# The test command: installs what is missing, builds, runs the unit and CLI tests (CTest label
# "unit": what CI runs; about 10 minutes after the build on 2 cores, no test over 2 minutes).
#   bash scripts/test.sh          the unit label
#   bash scripts/test.sh --long   also the long runs (label "convergence": each mini benchmark
#                                 trained to its target, up to an hour each)
#   bash scripts/test.sh --all    every test of the build, whatever its label
set -euo pipefail
cd "$(dirname "$0")/.."
labels=unit
case "${1:-}" in
  "") ;;
  --long) labels='unit|convergence' ;;
  --all) labels='.' ;;
  *) echo "usage: bash scripts/test.sh [--long|--all]" >&2; exit 2 ;;
esac
bash scripts/setup.sh
bash scripts/build.sh
ctest --test-dir build -L "$labels" --output-on-failure -j 2 --timeout 300

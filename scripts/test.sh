#!/usr/bin/env bash
# The test command: installs what is missing, builds, runs the unit and CLI tests (CTest label
# "unit"; the long convergence runs carry the label "convergence" and are not run here).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
ctest --test-dir build -L unit --output-on-failure -j 2 --timeout 600

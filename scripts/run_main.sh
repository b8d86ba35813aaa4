#!/usr/bin/env bash
# The main job: installs what is missing, builds, and trains the mini suite's first benchmark
# (image classification on Fashion-MNIST) once to its quality target, printing the result.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
./build/src/cli/trainbench run image_classification --scale mini --runs 1 "$@"

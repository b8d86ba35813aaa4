#!/usr/bin/env bash
# Installs what trainbench needs on Debian 12 (idempotent: does nothing when all is there).
set -euo pipefail
PACKAGES=(
  build-essential cmake git pkg-config clang-format
  libtorch-dev libgloo-dev libopenblas0-pthread
  nlohmann-json3-dev libcli11-dev libyaml-cpp-dev zlib1g-dev libjpeg62-turbo-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libsqlite3-dev chromium
  dataset-fashion-mnist
  libsentencepiece-dev apertium apertium-eng-spa fortunes
  gnugo
)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

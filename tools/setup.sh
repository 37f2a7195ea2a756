#!/usr/bin/env bash
# Installs the Debian packages chaintag needs and builds it (Release) into build/.
# Usage: tools/setup.sh [--no-build] [extra cmake args...]
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  g++ cmake ninja-build pkg-config
  libicu-dev
  libboost-program-options-dev libboost-iostreams-dev libboost-graph-dev
  libabsl-dev
  libgtest-dev libgmock-dev
  libbenchmark-dev
  liblbfgs-dev
  libboost-mpi-dev openmpi-bin libopenmpi-dev
  zlib1g-dev
  python3 time
  python3-dev python3-pybind11 python3-numpy python3-sklearn
  clang libfuzzer-14-dev clang-format
  wordnet-base
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "setup: installing ${missing[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if [ "${1:-}" = "--no-build" ]; then exit 0; fi
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "$@"
cmake --build build -j "$(nproc)"

#!/usr/bin/env bash
# Installs the Debian packages chaintag needs and builds what the main job needs (Release) into
# build/: the chaintag command and, when pybind11 is found, the Python module. tools/test.sh builds
# the tests and benchmarks (and installs the test-only packages through --test-packages).
# Usage: tools/setup.sh [--no-build | --test-packages] [extra cmake args...]
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  g++ cmake ninja-build pkg-config
  libicu-dev
  libboost-dev libboost-program-options-dev libboost-iostreams-dev libboost-graph-dev
  nlohmann-json3-dev
  libabsl-dev
  liblbfgs-dev
  libboost-mpi-dev openmpi-bin libopenmpi-dev
  libeigen3-dev libfasttext-dev
  zlib1g-dev
  python3 time
  python3-dev python3-pybind11 python3-numpy python3-sklearn
  wordnet-base
)
# Only the tests, benchmarks, fuzz targets and format check need these (tools/test.sh).
test_packages=(
  libgtest-dev libgmock-dev
  libbenchmark-dev
  clang libfuzzer-14-dev clang-format
  chromium  # the browser test of chaintag serve's demo page (tests/serve)
)
if [ "${1:-}" = "--test-packages" ]; then packages+=("${test_packages[@]}"); fi

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

case "${1:-}" in --no-build | --test-packages) exit 0 ;; esac
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCHAINTAG_BUILD_TESTS=OFF \
  -DCHAINTAG_BUILD_BENCHMARKS=OFF "$@"
targets=(chaintag)
grep -q '^CHAINTAG_PYTHON:BOOL=ON' build/CMakeCache.txt && targets+=(chaintag_python)
cmake --build build -j "$(nproc)" --target "${targets[@]}"

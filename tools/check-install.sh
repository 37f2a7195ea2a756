#!/usr/bin/env bash
# Installs chaintag into PREFIX (a new or empty directory), builds and runs tests/consumer against
# the installed package with find_package(chaintag), then runs PREFIX/bin/chaintag on a sample from
# a directory outside the source tree.
#   tools/check-install.sh PREFIX        (uses the Release build in build/, BUILD=DIR to change)
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: tools/check-install.sh PREFIX" >&2; exit 2; }
cd "$(dirname "$0")/.."
source_dir=$(pwd)
mkdir -p "$1"
prefix=$(cd "$1" && pwd)
build=${BUILD:-build}
[ -f "$build/CMakeCache.txt" ] || cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j "$(nproc)" --target chaintag
cmake --install "$build" --prefix "$prefix" >/dev/null
echo "check-install: installed into $prefix"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cmake -S tests/consumer -B "$scratch/consumer" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$scratch/consumer" >/dev/null
echo "check-install: consumer built with find_package(chaintag)"
models="$prefix/share/chaintag/models"
"$scratch/consumer/consumer" "$models/en-pos.model" "$models/en-chunk.model"

# The installed binary on its own: another directory, the default models found beside it.
cp docs/sample.txt "$scratch/sample.txt"
(cd / && "$prefix/bin/chaintag" tag --output-format chunks "$scratch/sample.txt") > "$scratch/out.txt"
grep -q '\[NP ' "$scratch/out.txt" || { echo "check-install: no chunks in the output" >&2; exit 1; }
head -n 2 "$scratch/out.txt"
if strings "$prefix/bin/chaintag" | grep -qF "$source_dir/"; then
  echo "check-install: the installed binary mentions the source tree $source_dir" >&2
  exit 1
fi
echo "check-install: ok"

#!/usr/bin/env bash
# Installs chaintag into PREFIX (a new or empty directory), builds and runs tests/consumer against
# the installed package with find_package(chaintag), then runs PREFIX/bin/chaintag on a sample from
# a directory outside the source tree.
#   tools/ci/check-install.sh PREFIX        (uses the Release build in build/, BUILD=DIR to change)
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: tools/ci/check-install.sh PREFIX" >&2; exit 2; }
cd "$(dirname "$0")/../.."
source_dir=$(pwd)
mkdir -p "$1"
prefix=$(cd "$1" && pwd)
build=${BUILD:-build}
[ -f "$build/CMakeCache.txt" ] || cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
targets=(chaintag)
python_on=$(grep -q '^CHAINTAG_PYTHON:BOOL=ON' "$build/CMakeCache.txt" && echo 1 || true)
[ -n "$python_on" ] && targets+=(chaintag_python)
cmake --build "$build" -j "$(nproc)" --target "${targets[@]}"
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

# The installed Python module, from outside the source tree, finding the installed models.
if [ -n "$python_on" ]; then
  python=$(sed -n 's/^Python_EXECUTABLE:[A-Z]*=//p' "$build/CMakeCache.txt")
  core=$(find "$prefix" -name '_core*.so' -path '*/chaintag/*' | head -n 1)
  [ -n "$core" ] || { echo "check-install: the Python module was not installed" >&2; exit 1; }
  (cd / && PYTHONPATH=$(dirname "$(dirname "$core")") "$python" -c \
    "import chaintag; s = chaintag.load().tag_text('The old man saw it.')[0]; print(s); assert s.labels[1][0] == 'B-NP'; assert chaintag.default_model_paths()[0].startswith('$prefix/')")
fi
echo "check-install: ok"

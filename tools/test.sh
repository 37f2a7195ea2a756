#!/usr/bin/env bash
# Builds and runs the test suite. With --sanitize: a separate AddressSanitizer + UBSan build in
# build-asan/, with the Python module: its tests (tests/python) run in Debian's python3 with the
# ASan runtime preloaded (see python_tests in CMakeLists.txt). Tests that need ../shared/corpora
# skip with a message when it is absent.
# With --fuzz SECONDS: builds the libFuzzer targets (tests/fuzz) with clang in build-fuzz/, runs
# each for SECONDS from its seeds (tests/fuzz/seeds/NAME) plus a scratch corpus
# (build-fuzz/corpus/NAME), prints executions and coverage per target, and fails if any crashed
# (reproducers in build-fuzz/crashes/, logs in build-fuzz/logs/).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
bash tools/setup.sh --test-packages  # GoogleTest, Google Benchmark, clang, libFuzzer, clang-format, chromium
if [ "${1:-}" = "--sanitize" ]; then
  cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCHAINTAG_SANITIZE=ON \
    -DCHAINTAG_PYTHON=ON -DCHAINTAG_BUILD_BENCHMARKS=OFF "${@:2}" >/dev/null
  cmake --build build-asan -j "$jobs"
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir build-asan --output-on-failure -j "$jobs"
elif [ "${1:-}" = "--fuzz" ]; then
  seconds=${2:-}
  if ! [[ "$seconds" =~ ^[1-9][0-9]*$ ]]; then
    echo "usage: tools/test.sh --fuzz SECONDS" >&2
    exit 2
  fi
  cmake -S . -B build-fuzz -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCHAINTAG_FUZZ=ON -DCHAINTAG_BUILD_TESTS=OFF -DCHAINTAG_BUILD_BENCHMARKS=OFF >/dev/null
  cmake --build build-fuzz -j "$jobs"
  mkdir -p build-fuzz/logs build-fuzz/crashes
  failed=()
  for src in tests/fuzz/*_fuzzer.cc; do
    target=$(basename "$src" .cc)
    name=${target%_fuzzer}
    mkdir -p "build-fuzz/corpus/$name"
    log=build-fuzz/logs/$name.log
    status=ok
    "build-fuzz/fuzz/$target" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 \
      -print_final_stats=1 -artifact_prefix="build-fuzz/crashes/$name-" \
      "build-fuzz/corpus/$name" "tests/fuzz/seeds/$name" >"$log" 2>&1 || status=CRASHED
    # The last status line: "#EXECS DONE cov: C ft: F corp: ... exec/s: R ...".
    last=$(grep -E '^#[0-9]+' "$log" | tail -n 1)
    execs=$(sed -E 's/^#([0-9]+).*/\1/' <<<"$last")
    cov=$(grep -oE 'cov: [0-9]+' <<<"$last" | cut -d' ' -f2)
    ft=$(grep -oE 'ft: [0-9]+' <<<"$last" | cut -d' ' -f2)
    rate=$(grep -oE 'exec/s: [0-9]+' <<<"$last" | cut -d' ' -f2)
    printf 'fuzz: %-18s %-7s execs %-9s exec/s %-7s cov %-6s ft %s\n' "$name" "$status" \
      "${execs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}"
    if [ "$status" != ok ]; then
      failed+=("$name")
      grep -E 'ERROR|SUMMARY|Test unit written|^    #[0-9]+ .* in chaintag' "$log" | head -n 20 >&2 || true
      echo "fuzz: $name: full log in $log" >&2
    fi
  done
  if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzz: FAILED: ${failed[*]}" >&2
    exit 1
  fi
else
  # tools/setup.sh builds the command only; the same build directory gets the tests too.
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCHAINTAG_BUILD_TESTS=ON \
    -DCHAINTAG_BUILD_BENCHMARKS=ON >/dev/null
  cmake --build build -j "$jobs"
  ctest --test-dir build --output-on-failure -j "$jobs"
fi

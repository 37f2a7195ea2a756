#!/usr/bin/env bash
# Start-up benchmark: tags a one-sentence file with the default pipeline (the shipped en-pos then
# en-chunk models) RUNS times and prints the median wall, user and system time and the median
# number of minor page faults (first touches of memory), which dominate start-up on a VM.
#   tools/bench-startup.sh [CHAINTAG]    (RUNS=N, default 21; CHAINTAG defaults to build/chaintag)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/chaintag}
runs=${RUNS:-21}
[ -x "$bin" ] || { echo "bench-startup: $bin missing: build first (tools/setup.sh)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "bench-startup: /usr/bin/time missing (tools/setup.sh installs it)" >&2; exit 1; }
export CHAINTAG_MODELS=${CHAINTAG_MODELS:-$PWD/models}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "The cat sat on the mat ." > "$work/one.txt"
"$bin" tag "$work/one.txt" > /dev/null  # warm the page cache
for _ in $(seq "$runs"); do
  /usr/bin/time -a -o "$work/times" -f "%e %U %S %R" "$bin" tag "$work/one.txt" > /dev/null
done
python3 - "$work/times" "$bin" "$runs" <<'PY'
import statistics, sys
rows = [list(map(float, line.split())) for line in open(sys.argv[1]) if line.strip()]
med = [statistics.median(col) for col in zip(*rows)]
print("%s: tag a one-sentence file, median of %s runs: wall %.3f s, user %.3f s, sys %.3f s, "
      "%d minor page faults" % (sys.argv[2], sys.argv[3], med[0], med[1], med[2], med[3]))
PY

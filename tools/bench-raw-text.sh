#!/usr/bin/env bash
# Raw-text pipeline benchmark: tags raw text with the default pipeline (the shipped en-pos then
# en-chunk models, conll output) at 1 and 2 threads and prints tokens/s of wall time and per
# CPU-second (user + sys; the figure to quote on a loaded machine), median of RUNS runs. With a
# second binary BEFORE, runs alternate between the two and their outputs are compared with cmp.
#   tools/bench-raw-text.sh [CHAINTAG [BEFORE]]    (TEXT=FILE[.gz] (default: the held-out web text
#                                                   ../shared/corpora/unlabeled-en/webtext.txt.gz),
#                                                   RUNS=N (default 5), THREADS="1 2")
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/chaintag}
before=${2:-}
runs=${RUNS:-5}
text=${TEXT:-../shared/corpora/unlabeled-en/webtext.txt.gz}
for b in "$bin" ${before:+"$before"}; do
  [ -x "$b" ] || { echo "bench-raw-text: $b missing: build first (tools/setup.sh)" >&2; exit 1; }
done
[ -f "$text" ] || { echo "bench-raw-text: $text missing (set TEXT=FILE)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "bench-raw-text: /usr/bin/time missing (tools/setup.sh installs it)" >&2; exit 1; }
export CHAINTAG_MODELS=${CHAINTAG_MODELS:-$PWD/models}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
case "$text" in
  *.gz) gzip -dc "$text" > "$work/input.txt" ;;
  *) cp "$text" "$work/input.txt" ;;
esac
bins=("$bin")
[ -z "$before" ] || bins+=("$before")
"$bin" tag "$work/input.txt" -o "$work/out.0"  # warms the page cache; the reference output
tokens=$(grep -c $'^[0-9]' "$work/out.0" || true)
if [ -n "$before" ]; then
  "$before" tag "$work/input.txt" -o "$work/out.1"
  if cmp -s "$work/out.0" "$work/out.1"; then same="identical"; else same="DIFFERENT"; fi
  echo "output of $bin and $before on $text: $same ($(wc -c < "$work/out.0") bytes)"
fi
for _ in $(seq "$runs"); do
  for threads in ${THREADS:-1 2}; do
    for i in "${!bins[@]}"; do
      /usr/bin/time -a -o "$work/times.$i.$threads" -f "%e %U %S" \
        "${bins[$i]}" tag --threads "$threads" "$work/input.txt" -o /dev/null
    done
  done
done
echo "$text: $tokens tokens, $(wc -c < "$work/input.txt") bytes; load average $(cut -d' ' -f1-3 /proc/loadavg)"
for threads in ${THREADS:-1 2}; do
  for i in "${!bins[@]}"; do
    python3 - "$work/times.$i.$threads" "${bins[$i]}" "$threads" "$tokens" "$runs" <<'PY'
import statistics, sys
rows = [list(map(float, line.split())) for line in open(sys.argv[1]) if line.strip()]
wall = statistics.median(r[0] for r in rows)
cpu = statistics.median(r[1] + r[2] for r in rows)
tokens = int(sys.argv[4])
print("%s, %s thread(s), median of %s runs: wall %.2f s (%.0fk tokens/s), CPU %.2f s "
      "(%.0fk tokens/CPU-s)" % (sys.argv[2], sys.argv[3], sys.argv[5], wall, tokens / wall / 1e3,
                                cpu, tokens / cpu / 1e3))
PY
  done
done

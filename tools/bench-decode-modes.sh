#!/usr/bin/env bash
# Sentences/s of each decoding mode of `chaintag tag` over a corpus (default: CoNLL-2000 dev with
# models/en-chunk.model), end to end including reading, featurization and output.
#   tools/bench-decode-modes.sh [MODEL] [CORPUS]     (BUILD=DIR, THREADS=N)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD:-build}
model=${1:-models/en-chunk.model}
corpus=${2:-${CORPORA:-../shared/corpora}/conll2000/dev.txt}
threads=${THREADS:-1}
sentences=$(awk 'BEGIN{n=0; s=0} NF{s=1} !NF{if(s)n++; s=0} END{if(s)n++; print n}' "$corpus")
modes=(
  "plain|"
  "one count (chunk:NP=..2)|--count chunk:NP=..2"
  "two counts (chunk:NP=..2, B-VP=..1)|--count chunk:NP=..2 --count B-VP=..1"
  "label count (B-NP=2..4)|--count B-NP=2..4"
  "score range (-1e9..0)|--score-range=-1e9..0"
  "binding score range (0..100)|--score-range=0..100"
  "10-best|--kbest 10"
  "diverse 3-best D=2|--diverse 3 --min-distance 2"
  "diverse 5-best D=2|--diverse 5 --min-distance 2"
)
printf '| mode | seconds | sentences/s | x plain |\n|---|---|---|---|\n'
plain=""
for entry in "${modes[@]}"; do
  name=${entry%%|*}
  flags=${entry#*|}
  start=$(date +%s.%N)
  # shellcheck disable=SC2086
  "$build/chaintag" tag -m "$model" --format conll --threads "$threads" --output-format jsonl $flags "$corpus" > /dev/null
  end=$(date +%s.%N)
  secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }')
  [ -n "$plain" ] || plain=$secs
  awk -v n="$name" -v s="$secs" -v c="$sentences" -v p="$plain" 'BEGIN { printf "| %s | %.2f | %.0f | %.2f |\n", n, s, c / s, s / p }'
done

#!/usr/bin/env bash
# Sentences/s of each decoding mode of `chaintag tag` over a corpus (default: CoNLL-2000 dev with
# models/en-chunk.model), end to end including reading, featurization and output; then plain and
# binding-range rows for a second-order model (MODEL2; by default a chunk-conll --order 2 model
# trained for 40 iterations on CoNLL-2000 train, cached in $BUILD/bench-models/, ~3 min once).
#   tools/bench-decode-modes.sh [MODEL] [CORPUS]     (BUILD=DIR, THREADS=N, MODEL2=FILE|none)
# "x plain" is relative to the plain row of the same model. Every sentence's best labeling scores
# above 0 with the shipped chunker, so -1e9..0 binds (the best labeling at or below 0) and
# -1e9..1e9 is the range that binds nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD:-build}
corpora=${CORPORA:-../shared/corpora}
model=${1:-models/en-chunk.model}
corpus=${2:-$corpora/conll2000/dev.txt}
threads=${THREADS:-1}
sentences=$(awk 'BEGIN{n=0; s=0} NF{s=1} !NF{if(s)n++; s=0} END{if(s)n++; print n}' "$corpus")
modes=(
  "plain|"
  "one count (chunk:NP=..2)|--count chunk:NP=..2"
  "two counts (chunk:NP=..2, B-VP=..1)|--count chunk:NP=..2 --count B-VP=..1"
  "label count (B-NP=2..4)|--count B-NP=2..4"
  "non-binding score range (-1e9..1e9)|--score-range=-1e9..1e9"
  "binding score range (0..100)|--score-range=0..100"
  "binding score range far below the best (-1e9..0)|--score-range=-1e9..0"
  "10-best|--kbest 10"
  "diverse 3-best D=2|--diverse 3 --min-distance 2"
  "diverse 5-best D=2|--diverse 5 --min-distance 2"
)
model2=${MODEL2:-}
if [ -z "$model2" ] && [ $# -eq 0 ]; then
  model2=$build/bench-models/chunk-conll-order2.model
  if [ ! -f "$model2" ]; then
    echo "bench: training $model2 (chunk-conll, --order 2, 40 iterations)" >&2
    mkdir -p "$(dirname "$model2")"
    "$build/chaintag" train --format conll --preset chunk-conll --order 2 --max-iterations 40 \
      -o "$model2" "$corpora/conll2000/train.txt" 2>/dev/null
  fi
fi
[ "$model2" != none ] || model2=""
second_order=(
  "plain, second order|"
  "binding score range (0..100), second order|--score-range=0..100"
)

# Prints one row: name, seconds, sentences/s, and the time relative to the first row of its group.
plain=""
run() {
  local name=$1 m=$2 flags=$3
  local start end secs
  start=$(date +%s.%N)
  # shellcheck disable=SC2086
  "$build/chaintag" tag -m "$m" --format conll --threads "$threads" --output-format jsonl $flags "$corpus" > /dev/null
  end=$(date +%s.%N)
  secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }')
  [ -n "$plain" ] || plain=$secs
  awk -v n="$name" -v s="$secs" -v c="$sentences" -v p="$plain" 'BEGIN { printf "| %s | %.2f | %.0f | %.2f |\n", n, s, c / s, s / p }'
}
printf '| mode | seconds | sentences/s | x plain |\n|---|---|---|---|\n'
for entry in "${modes[@]}"; do run "${entry%%|*}" "$model" "${entry#*|}"; done
if [ -n "$model2" ]; then
  plain=""
  for entry in "${second_order[@]}"; do run "${entry%%|*}" "$model2" "${entry#*|}"; done
fi

#!/usr/bin/env bash
# Trains the CoNLL-2000 chunker (preset `chunk`, the shipped chunker's features) with every
# training objective and prints a markdown table: training wall time, iterations or passes, peak
# memory and dev F1. Each run keeps its best-dev iteration (--dev), as tools/train-models.sh does.
# Logs (one progress line per iteration / pass, BCFW duality gaps included) and models go to OUT.
#
#   tools/experiments/ssvm-experiments.sh [NAME...]     (default: all; names: crf softmax-margin
#                                            ssvm-margin-hamming ssvm-margin-f1
#                                            ssvm-slack-hamming ssvm-slack-f1)
# Environment: BUILD (default build), CORPORA (default ../shared/corpora), OUT (default
# /tmp/chaintag-ssvm), THREADS (default 2), SSVM_C2 (default 1), and per-run pass limits
# HAMMING_PASSES (40), F1_PASSES (8).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${BUILD:-build}
corpora=${CORPORA:-../shared/corpora}
out=${OUT:-/tmp/chaintag-ssvm}
threads=${THREADS:-2}
c2=${SSVM_C2:-1}
chaintag="$build/chaintag"
train="$corpora/conll2000/train.txt"
dev="$corpora/conll2000/dev.txt"
[ -x "$chaintag" ] || { echo "ssvm-experiments: build $chaintag first (bash tools/setup.sh)" >&2; exit 1; }
[ -f "$train" ] || { echo "ssvm-experiments: $train not found (set CORPORA)" >&2; exit 1; }
mkdir -p "$out"

declare -A flags=(
  [crf]="--objective crf --algorithm owlqn --c1 0.5 --c2 0.05 --max-iterations 300"
  [softmax-margin]="--objective softmax-margin --loss hamming --algorithm owlqn --c1 0.5 --c2 0.05 --max-iterations 300"
  [ssvm-margin-hamming]="--objective ssvm-margin --loss hamming --c2 $c2 --max-iterations ${HAMMING_PASSES:-40}"
  [ssvm-margin-f1]="--objective ssvm-margin --loss f1 --loss-level chunk --c2 $c2 --max-iterations ${F1_PASSES:-8}"
  [ssvm-slack-hamming]="--objective ssvm-slack --loss hamming --c2 $c2 --max-iterations ${HAMMING_PASSES:-40}"
  [ssvm-slack-f1]="--objective ssvm-slack --loss f1 --loss-level chunk --c2 $c2 --max-iterations ${F1_PASSES:-8}"
)
names=("$@")
[ ${#names[@]} -gt 0 ] || names=(crf softmax-margin ssvm-margin-hamming ssvm-margin-f1 ssvm-slack-hamming ssvm-slack-f1)

echo "| run | flags | train wall (s) | iterations / passes | peak memory (MB) | dev F1 |"
echo "|---|---|---|---|---|---|"
for name in "${names[@]}"; do
  [ -n "${flags[$name]+set}" ] || { echo "ssvm-experiments: unknown run '$name'" >&2; exit 2; }
  log="$out/$name.log"
  model="$out/$name.model"
  # shellcheck disable=SC2086
  /usr/bin/time -f "TIME %e %M" "$chaintag" train --format conll --preset chunk ${flags[$name]} \
    --threads "$threads" --dev "$dev" -o "$model" "$train" 2> "$log"
  wall=$(awk '/^TIME/ {print $2}' "$log")
  peak=$(awk '/^TIME/ {printf "%.0f", $3 / 1024}' "$log")
  iterations=$(grep -cE '^(iter|pass) ' "$log" || true)
  f1=$("$chaintag" eval -m "$model" "$dev" | awk '/^accuracy/ {print $NF}')
  echo "| $name | \`${flags[$name]}\` | $wall | $iterations | $peak | $f1 |"
done

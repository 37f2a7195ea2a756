#!/usr/bin/env bash
# The latent-dynamic CRF experiment of issue 14 on base-NP chunking (CoNLL-2000 with non-NP
# chunks mapped to O, as en-np is trained): the CRF and LDCRFs with K hidden states per label,
# dev NP F1 with ldi / bhp / marginal decoding, training seconds per iteration, tagging tokens/s,
# and the share of dev sentences LDI certifies at 10 / 100 / 1000 hidden paths.
#   tools/experiments/ldcrf-experiment.sh [K ...]     (default: 2 3 4; BUILD=DIR, CORPORA=DIR, ITERATIONS=N)
set -euo pipefail
cd "$(dirname "$0")/../.."
corpora=${CORPORA:-../shared/corpora}
chaintag=$(realpath "${BUILD:-build}/chaintag")
iterations=${ITERATIONS:-80}
[ -x "$chaintag" ] || { echo "ldcrf-experiment: build chaintag first" >&2; exit 1; }
[ -d "$corpora/conll2000" ] || { echo "ldcrf-experiment: no corpora at $corpora" >&2; exit 1; }
ks=("$@")
[ ${#ks[@]} -gt 0 ] || ks=(2 3 4)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for split in train dev; do
  awk 'NF == 3 && $3 !~ /-NP$/ { $3 = "O" } { print }' "$corpora/conll2000/$split.txt" \
    > "$work/np-$split.txt"
done
for i in 1 2 3 4 5; do cat "$work/np-dev.txt"; done > "$work/np-dev5.txt"
tokens5=$(awk 'NF > 0' "$work/np-dev5.txt" | wc -l)
common=(--format conll --preset np --algorithm owlqn --c1 0.5 --c2 0.05 --lbfgs-memory 6
        --threads 2)

# Seconds per iteration: (t10 - t1) / 9 of a 10-iteration run without dev.
per_iteration() {
  "$chaintag" train "${common[@]}" --max-iterations 10 "$@" -o "$work/speed.model" \
    "$work/np-train.txt" 2>&1 |
    awk '/^iter +1 / { a = $NF } /^iter +10 / { b = $NF } END { sub("s", "", a); sub("s", "", b);
         printf "%.2f", (b - a) / 9 }'
}
f1() {  # tags dev with the given options, prints the NP F1
  "$chaintag" tag --format conll "$@" "$work/np-dev.txt" > "$work/out.txt"
  "$chaintag" eval --gold-column 3 --pred-column 4 "$work/out.txt" | grep -m1 -oE 'FB1: *[0-9.]+' |
    grep -oE '[0-9.]+$'
}
speed() {  # best of 3 single-thread runs over 5 copies of dev, tokens/s (model loading included)
  local best=
  for _ in 1 2 3; do
    local s e
    s=$(date +%s.%N)
    "$chaintag" tag --format conll "$@" "$work/np-dev5.txt" > /dev/null
    e=$(date +%s.%N)
    best=$(echo "$e - $s" | bc | awk -v b="$best" '{ print (b == "" || $1 < b) ? $1 : b }')
  done
  echo "$tokens5 $best" | awk '{ printf "%.0f", $1 / $2 }'
}

printf "%-6s %8s %8s %8s %8s %10s %10s %10s  %s\n" model s/iter ldi bhp marginal "ldi tok/s" \
  "bhp tok/s" "marg tok/s" "certified at 10 / 100 / 1000 paths (mean hidden paths)"
"$chaintag" train "${common[@]}" --max-iterations "$iterations" --early-stopping 15 \
  --dev "$work/np-dev.txt" -o "$work/crf.model" "$work/np-train.txt" 2> /dev/null
printf "%-6s %8s %8s %8s %8s %10s\n" crf "$(per_iteration)" "$(f1 -m "$work/crf.model")" - - \
  "$(speed -m "$work/crf.model")"
for k in "${ks[@]}"; do
  m="$work/ld$k.model"
  "$chaintag" train "${common[@]}" --objective ldcrf --latent "$k" --max-iterations "$iterations" \
    --early-stopping 15 --dev "$work/np-dev.txt" -o "$m" "$work/np-train.txt" 2> /dev/null
  certified=""
  for n in 10 100 1000; do
    "$chaintag" tag -m "$m" --format conll --output-format jsonl --ldi-max-paths "$n" \
      "$work/np-dev.txt" > "$work/out.jsonl"
    certified+=$(python3 -c '
import json, sys
n = e = p = 0
for line in open(sys.argv[1]):
    r = json.loads(line); n += 1; e += r["exact"]; p += r["hidden_paths"]
print(f" {100.0 * e / n:.2f}% ({p / n:.1f})", end="")' "$work/out.jsonl")
  done
  printf "%-6s %8s %8s %8s %8s %10s %10s %10s %s\n" "ld$k" \
    "$(per_iteration --objective ldcrf --latent "$k")" "$(f1 -m "$m" --latent-decoder ldi)" \
    "$(f1 -m "$m" --latent-decoder bhp)" "$(f1 -m "$m" --latent-decoder marginal)" \
    "$(speed -m "$m" --latent-decoder ldi)" "$(speed -m "$m" --latent-decoder bhp)" \
    "$(speed -m "$m" --latent-decoder marginal)" "$certified"
done

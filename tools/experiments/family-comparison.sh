#!/usr/bin/env bash
# Trains one model per family/objective on the same observation features and prints a markdown
# table: training wall time, passes, peak memory, dev score (chunk F1 through `chaintag eval`, or
# token accuracy for POS), training user CPU time and tagging speed (one `chaintag tag` run on dev, 1 thread, wall time
# including model loading). No --dev selection: every model keeps its last iteration. The SSVM
# (BCFW) stops after 40 passes, as in ssvm-experiments.sh: its 1% duality gap takes far longer
# (still 15% at pass 124 on CoNLL-2000).
#
#   tools/experiments/family-comparison.sh chunk|pos [NAME...]   (default: crf ssvm lmsbn lmbm)
# chunk: CoNLL-2000 (`chunk` preset; lmsbn: `chunk-history`, the same observation templates with
# label history in place of the bigram B). pos: EWT XPOS (`pos`; lmsbn: `pos-history`).
# Environment: BUILD (default build), CORPORA (default ../shared/corpora), OUT (default
# /tmp/chaintag-families), THREADS (training threads, default 2), NICE (default 10).
set -euo pipefail
cd "$(dirname "$0")/../.."
task=${1:?usage: tools/experiments/family-comparison.sh chunk|pos [NAME...]}
shift
build=${BUILD:-build}
corpora=${CORPORA:-../shared/corpora}
out=${OUT:-/tmp/chaintag-families}/$task
threads=${THREADS:-2}
chaintag="$build/chaintag"
case "$task" in
  chunk)
    input=(--format conll)
    preset=chunk
    train="$corpora/conll2000/train.txt"
    dev="$corpora/conll2000/dev.txt"
    ;;
  pos)
    input=(--format conllu --label xpos)
    preset=pos
    train="$corpora/ud-english-ewt/en_ewt-ud-train.conllu"
    dev="$corpora/ud-english-ewt/en_ewt-ud-dev.conllu"
    ;;
  *) echo "family-comparison: expected chunk or pos, got '$task'" >&2; exit 2 ;;
esac
[ -x "$chaintag" ] || { echo "family-comparison: build $chaintag first" >&2; exit 1; }
[ -f "$train" ] || { echo "family-comparison: $train not found (set CORPORA)" >&2; exit 1; }
mkdir -p "$out"

declare -A flags=(
  [crf]="--preset $preset --objective crf"
  [ssvm]="--preset $preset --objective ssvm-margin --loss hamming --max-iterations 40"
  [lmsbn]="--preset $preset-history --objective lmsbn"
  [lmbm]="--preset $preset --objective lmbm"
)
names=("$@")
[ ${#names[@]} -gt 0 ] || names=(crf ssvm lmsbn lmbm)
# Tokens: CoNLL lines, or CoNLL-U words (integer IDs: no multiword ranges, no empty nodes).
tokens=$(awk -F'\t' -v task="$task" \
  'task == "chunk" ? NF > 0 : $1 ~ /^[0-9]+$/ { n++ } END { print n + 0 }' "$dev")

echo "| model | flags | train wall (s) | train user CPU (s) | passes | peak memory (MB) | dev | tag wall (s) | tokens/s |"
echo "|---|---|---|---|---|---|---|---|---|"
for name in "${names[@]}"; do
  [ -n "${flags[$name]+set}" ] || { echo "family-comparison: unknown run '$name'" >&2; exit 2; }
  log="$out/$name.log"
  model="$out/$name.model"
  # shellcheck disable=SC2086
  nice -n "${NICE:-10}" /usr/bin/time -f "TIME %e %M %U" "$chaintag" train "${input[@]}" \
    ${flags[$name]} --threads "$threads" -o "$model" "$train" 2> "$log"
  wall=$(awk '/^TIME/ {print $2}' "$log")
  peak=$(awk '/^TIME/ {printf "%.0f", $3 / 1024}' "$log")
  user=$(awk '/^TIME/ {print $4}' "$log")
  passes=$(grep -cE '^(iter|pass) ' "$log" || true)
  if [ "$task" = chunk ]; then
    score="F1 $("$chaintag" eval -m "$model" "$dev" | awk '/^accuracy/ {print $NF}')"
  else
    score=$("$chaintag" eval -m "$model" "${input[@]}" "$dev" | awk '/ccuracy/ {print; exit}')
  fi
  start=$(date +%s.%N)
  nice -n "${NICE:-10}" "$chaintag" tag -m "$model" "${input[@]}" --threads 1 "$dev" > /dev/null
  tag_wall=$(echo "$(date +%s.%N) - $start" | bc)
  echo "| $name | \`${flags[$name]}\` | $wall | $user | $passes | $peak | $score |" \
    "$(printf '%.2f' "$tag_wall") | $(echo "$tokens / $tag_wall" | bc) |"
done

#!/usr/bin/env bash
# Collective tagging on Dutch NER (issue 16): selects the clique options and strength c of Potts
# and MAJORITY on the held-out tenth of ned.train that tools/train-ner.sh leaves in
# OUTDIR/work-nl (never on testa), then scores plain, Potts and MAJORITY tagging of ned.testa
# (entity F1, conlleval counting) with clique statistics and tagging times.
#   tools/experiments/collective-experiment.sh OUTDIR      (after: bash tools/train-ner.sh OUTDIR nl)
#   BUILD=DIR, CORPORA=DIR, CS="0.25 0.5 1 2 4", FILTERS="all capitalised lower unseen"
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: tools/experiments/collective-experiment.sh OUTDIR" >&2; exit 2; }
out=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
corpora=${CORPORA:-$root/../shared/corpora}/conll2002
chaintag=${BUILD:-$root/build}/chaintag
model=$out/nl-ner.model
heldout=$out/work-nl/heldout.conll
fit=$out/work-nl/fit.conll
for f in "$model" "$heldout" "$fit"; do
  [ -f "$f" ] || { echo "collective-experiment: $f missing (run tools/train-ner.sh $out nl)" >&2; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cs=${CS:-0.25 0.5 1 2 4}
filters=${FILTERS:-all capitalised lower unseen}
option() {
  case "$1" in
    all) echo "" ;;
    capitalised) echo "--collective-capitalised" ;;
    lower) echo "--collective-key lower" ;;
    unseen) echo "--collective-unseen" ;;
  esac
}
# f1 FILE: entity F1 of a tagged file (gold column then predicted column last).
f1() { "$chaintag" eval --gold-column -2 --pred-column -1 --format conll "$1" | sed -n 2p | awk '{ print $NF }'; }
tag() {  # tag OUTPUT INPUT OPTIONS...: prints user+sys seconds on fd 3, the summary on fd 4
  local output=$1 input=$2
  shift 2
  /usr/bin/time -f "%U %S" -o "$tmp/time" "$chaintag" tag -m "$model" --format conll "$@" "$input" \
    > "$output" 2> "$tmp/err"
  awk '{ printf "%.2f", $1 + $2 }' "$tmp/time" > "$tmp/seconds"
  grep 'collective:' "$tmp/err" | sed 's/^chaintag tag: collective: //' > "$tmp/summary" || true
}

echo "== selection on $heldout"
tag "$tmp/plain.conll" "$heldout"
echo "plain $(f1 "$tmp/plain.conll")"
best_potts=""; best_potts_f1=-1; best_majority=""; best_majority_f1=-1
for potential in potts majority; do
  for filter in $filters; do
    for c in $cs; do
      opts="--collective $potential --collective-lambda $c $(option "$filter")"
      [ "$potential" = majority ] && opts="$opts --collective-train $fit"
      # shellcheck disable=SC2086
      tag "$tmp/heldout.conll" "$heldout" $opts
      score=$(f1 "$tmp/heldout.conll")
      echo "$potential $filter c=$c $score"
      if awk -v a="$score" -v b="$([ $potential = potts ] && echo $best_potts_f1 || echo $best_majority_f1)" 'BEGIN { exit !(a > b) }'; then
        if [ "$potential" = potts ]; then best_potts=$opts; best_potts_f1=$score; else best_majority=$opts; best_majority_f1=$score; fi
      fi
    done
  done
done
echo "selected potts: $best_potts (held-out F1 $best_potts_f1)"
echo "selected majority: $best_majority (held-out F1 $best_majority_f1)"

echo "== ned.testa"
testa=$corpora/ned.testa
for run in plain "potts-default" "potts-selected" "majority-selected"; do
  case "$run" in
    plain) opts="" ;;
    potts-default) opts="--collective potts" ;;
    potts-selected) opts=$best_potts ;;
    majority-selected) opts=$best_majority ;;
  esac
  # shellcheck disable=SC2086
  tag "$tmp/testa.conll" "$testa" $opts
  echo "$run [$opts]: F1 $(f1 "$tmp/testa.conll"), $(cat "$tmp/seconds") s CPU; $(cat "$tmp/summary")"
done

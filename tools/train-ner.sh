#!/usr/bin/env bash
# Trains the Dutch and Spanish named-entity taggers (preset `ner`) from CoNLL-2002
# (../shared/corpora/conll2002, or CORPORA=DIR) into OUTDIR and prints their testa entity F1
# (conlleval counting); the iteration is selected on a held-out tenth of train, not on testa. The data is for research only: the models never go into models/.
#   tools/train-ner.sh OUTDIR [nl|es ...]      (BUILD=DIR, THREADS=N, MAX_ITERATIONS=N)
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: tools/train-ner.sh OUTDIR [nl|es ...]" >&2; exit 2; }
out=$1
shift
root=$(cd "$(dirname "$0")/.." && pwd)
corpora=${CORPORA:-$root/../shared/corpora}/conll2002
chaintag=${BUILD:-$root/build}/chaintag
threads=${THREADS:-$(nproc)}
[ -x "$chaintag" ] || { echo "train-ner: build chaintag first (tools/setup.sh)" >&2; exit 1; }
[ -d "$corpora" ] || { echo "train-ner: no CoNLL-2002 data at $corpora" >&2; exit 1; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
case "$out/" in
  "$root/models/"*) echo "train-ner: CoNLL-2002 models may not be written into models/" >&2; exit 2 ;;
esac
languages=("$@")
[ ${#languages[@]} -gt 0 ] || languages=(nl es)
for lang in "${languages[@]}"; do
  case "$lang" in
    nl) prefix=ned ;;
    es) prefix=esp ;;
    *) echo "train-ner: unknown language '$lang' (nl, es)" >&2; exit 2 ;;
  esac
  # The iteration is selected on the last tenth of the training sentences (held out), so testa
  # stays unseen until it is reported.
  work="$out/work-$lang"
  mkdir -p "$work"
  total=$(awk 'NF { s = 1 } !NF { if (s) n++; s = 0 } END { if (s) n++; print n }' \
    "$corpora/$prefix.train")
  awk -v cut=$((total * 9 / 10)) -v fit="$work/fit.conll" -v held="$work/heldout.conll" '
    { print > (n < cut ? fit : held) }
    NF { s = 1 }
    !NF { if (s) n++; s = 0 }' "$corpora/$prefix.train"
  # CRF with L1 + L2 (the sklearn-crfsuite tutorial's c1 = c2 = 0.1), OWL-QN.
  "$chaintag" train --format conll --preset ner --objective crf --algorithm owlqn \
    --c1 "${C1:-0.1}" --c2 "${C2:-0.1}" --max-iterations "${MAX_ITERATIONS:-150}" \
    --threads "$threads" --dev "$work/heldout.conll" -o "$out/$lang-ner.model" \
    "$work/fit.conll"
  echo "== $lang-ner.model on $prefix.testa"
  "$chaintag" eval -m "$out/$lang-ner.model" --format conll "$corpora/$prefix.testa" | head -n 3
done

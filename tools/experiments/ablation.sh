#!/usr/bin/env bash
# Ablation of the shipped models' recipes (models/MODELS.md): each variant of a task is the
# shipped recipe plus some of the additions (word clusters, second order, a lower L1 weight),
# trained with --early-stopping 20 on dev, and printed as a table row: the best dev figure and its
# iteration, accuracy on the dev tokens whose word is in no training file, model size, training
# wall time and tagging tokens/s (tag_benchmark, one thread, featurization included).
#   tools/experiments/ablation.sh [pos|upos|chunk|np ...]   (default: chunk np pos upos)
#   CORPORA=DIR, BUILD=DIR, THREADS=N (training threads), CLUSTERS=PATHS (default: computed with
#   chaintag clusters --clusters 256 --min-count 3 from the unlabeled English text), KEEP=DIR keeps
#   the models there.
set -euo pipefail
cd "$(dirname "$0")/../.."
corpora=${CORPORA:-../shared/corpora}
build=${BUILD:-build}
threads=${THREADS:-$(nproc)}
for f in "$build/chaintag" "$build/benchmarks/tag_benchmark"; do
  [ -x "$f" ] || { echo "ablation: $f missing: build first (tools/test.sh builds the benchmarks)" >&2; exit 1; }
done
[ -d "$corpora" ] || { echo "ablation: no corpora at $corpora" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "ablation: /usr/bin/time missing (tools/setup.sh installs it)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
keep=${KEEP:-}
[ -z "$keep" ] || mkdir -p "$keep"
tasks=("$@")
[ ${#tasks[@]} -gt 0 ] || tasks=(chunk np pos upos)
c=$corpora
ewt_train=$c/ud-english-ewt/en_ewt-ud-train.conllu
ewt_dev=$c/ud-english-ewt/en_ewt-ud-dev.conllu

clusters=${CLUSTERS:-}
if [ -z "$clusters" ]; then
  clusters=$work/paths.txt
  "$build/chaintag" clusters --clusters 256 --min-count 3 --threads "$threads" -o "$clusters" \
    "$c"/unlabeled-en/*.txt.gz
fi
"$build/chaintag" convert --from ptb --to conllu -o "$work/ptb.conllu" "$c"/ptb-sample/wsj_*.mrg
"$build/chaintag" lexicon --format conll --label-column 2 -o "$work/wsj-tags.lex" \
  "$c/conll2000/train.txt" "$c/conll2000/dev.txt" 2> /dev/null
for split in train dev; do
  awk 'NF == 3 && $3 !~ /-NP$/ { $3 = "O" } { print }' "$c/conll2000/$split.txt" > "$work/np-$split.txt"
done

# run TASK NAME TRAIN-FLAGS... : one table row.
run() {
  local task=$1 name=$2
  shift 2
  local fmt=conll label=() dev train=() sm=(--objective softmax-margin --loss hamming --algorithm owlqn --c2 0.05)
  case "$task" in
    pos|upos) fmt=conllu; dev=$ewt_dev; train=("$ewt_train")
              if [ "$task" = pos ]; then label=(--label xpos); train+=("$work/ptb.conllu"); else label=(--label upos); fi ;;
    chunk) dev=$c/conll2000/dev.txt; train=("$c/conll2000/train.txt") ;;
    np) dev=$work/np-dev.txt; train=("$work/np-train.txt"); sm=(--algorithm owlqn --c2 0.05) ;;
  esac
  runs=$((runs + 1))
  local model=$work/$task-$runs.model
  /usr/bin/time -v -o "$work/time" "$build/chaintag" train --format $fmt "${label[@]}" "${sm[@]}" "$@" \
    --max-iterations 300 --early-stopping 20 --threads "$threads" --dev "$dev" -o "$model" \
    "${train[@]}" 2> "$work/log"
  local wall best unseen size speed
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$work/time")
  best=$(awk '/^iter/ { v = $(NF - 1); if (v + 0 > b + 0) { b = v; i = $2 } } END { printf "%s (%d)", b, i }' "$work/log")
  unseen=$("$build/chaintag" eval -m "$model" --format $fmt "${label[@]}" --unseen-from "${train[@]}" -- "$dev" |
           awk '/^unseen words/ { sub(/.*accuracy /, ""); print $1 }')
  size=$(du -k "$model" | awk '{printf "%.1f", $1/1024}')
  speed=$("$build/benchmarks/tag_benchmark" --model="$model" --corpus="$dev" --format=$fmt \
            --benchmark_filter='BM_TagWithFeaturization.*threads:1$' --benchmark_format=json \
            --benchmark_min_time=1 2> /dev/null |
          python3 -c 'import json,sys; print("%.0fk" % (json.load(sys.stdin)["benchmarks"][0]["items_per_second"] / 1000))')
  echo "| $task | $name | $best | $unseen | $size | $wall | $speed |"
  [ -z "$keep" ] || cp "$model" "$keep/"  # (models are numbered in table order)
}

runs=0
echo "| task | variant | dev (best iteration) | unseen-word accuracy | model MB | train wall ($threads threads) | tag tok/s, 1 thread |"
echo "|---|---|---|---|---|---|---|"
for task in "${tasks[@]}"; do
  case "$task" in
    pos)
      lex=(--preset pos-lexicon --lexicon "$work/wsj-tags.lex" --c1 0.2)
      run pos "en-pos recipe" "${lex[@]}"
      run pos "+ clusters" "${lex[@]}" --clusters "$clusters"
      run pos "+ order 2" "${lex[@]}" --order 2
      run pos "+ clusters + order 2" "${lex[@]}" --clusters "$clusters" --order 2 ;;
    upos)
      run upos "en-pos recipe, EWT train only" --preset pos-lexicon --lexicon "$work/wsj-tags.lex" --c1 0.2
      run upos "+ clusters + order 2" --preset pos-lexicon --lexicon "$work/wsj-tags.lex" --c1 0.2 \
        --clusters "$clusters" --order 2 ;;
    chunk)
      run chunk "en-chunk recipe (c1 0.5)" --preset chunk --c1 0.5
      run chunk "+ clusters" --preset chunk --c1 0.5 --clusters "$clusters"
      run chunk "+ order 2" --preset chunk --c1 0.5 --order 2
      run chunk "+ clusters + order 2" --preset chunk --c1 0.5 --clusters "$clusters" --order 2
      run chunk "+ clusters, c1 0.2" --preset chunk --c1 0.2 --clusters "$clusters"
      run chunk "+ clusters + order 2, c1 0.2" --preset chunk --c1 0.2 --clusters "$clusters" --order 2
      run chunk "+ clusters + order 2, c1 0.1" --preset chunk --c1 0.1 --clusters "$clusters" --order 2 ;;
    np)
      run np "en-np recipe (LDCRF, 2 hidden states)" --preset np --objective ldcrf --latent 2 --c1 0.5 --lbfgs-memory 6
      run np "+ clusters" --preset np --objective ldcrf --latent 2 --c1 0.5 --lbfgs-memory 6 --clusters "$clusters"
      run np "softmax-margin, order 2" --preset np --objective softmax-margin --loss hamming --c1 0.5 --order 2
      run np "softmax-margin, order 2 + clusters" --preset np --objective softmax-margin --loss hamming --c1 0.5 \
        --order 2 --clusters "$clusters" ;;
    *) echo "ablation: unknown task '$task' (pos, upos, chunk, np)" >&2; exit 2 ;;
  esac
done

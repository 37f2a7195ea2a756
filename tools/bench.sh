#!/usr/bin/env bash
# End-to-end benchmark: trains CoNLL-2000 chunking with chunk-conll and EWT POS with pos, and
# prints a table: training wall time, iterations, seconds/iteration, peak memory, model size, dev
# score, and tagging tokens/s at 1 and 2 threads with and without featurization.
#   tools/bench.sh [chunk|pos ...]    (CORPORA=DIR, BUILD=DIR, TRAIN_THREADS=N, C2=..., ORDER=1|2,
#                                      MAX_ITERATIONS=N to cap training)
set -euo pipefail
cd "$(dirname "$0")/.."
corpora=${CORPORA:-../shared/corpora}
build=${BUILD:-build}
train_threads=${TRAIN_THREADS:-$(nproc)}
for f in "$build/chaintag" "$build/benchmarks/tag_benchmark"; do
  [ -x "$f" ] || { echo "bench: $f missing: build first (tools/test.sh builds the benchmarks)" >&2; exit 1; }
done
[ -x /usr/bin/time ] || { echo "bench: /usr/bin/time missing (tools/setup.sh installs it)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tasks=("$@")
[ ${#tasks[@]} -gt 0 ] || tasks=(chunk pos)

rows=()
for task in "${tasks[@]}"; do
  case "$task" in
    chunk) name="CoNLL-2000 chunk-conll"; fmt=conll; extra=(); preset=chunk-conll
           train=("$corpora/conll2000/train.txt"); dev="$corpora/conll2000/dev.txt" ;;
    pos)   name="EWT POS pos"; fmt=conllu; extra=(--label xpos); preset=pos
           train=("$corpora/ud-english-ewt/en_ewt-ud-train.conllu"); dev="$corpora/ud-english-ewt/en_ewt-ud-dev.conllu" ;;
    *) echo "bench: unknown task $task" >&2; exit 2 ;;
  esac
  model="$work/$task.model"
  # L2 (c2 = 1), L-BFGS to convergence, no dev data during training (as the reference runs).
  /usr/bin/time -v -o "$work/time" "$build/chaintag" train --format $fmt "${extra[@]}" --preset $preset \
    --algorithm lbfgs --c2 ${C2:-1} --order ${ORDER:-1} --max-iterations ${MAX_ITERATIONS:-1000} \
    --threads "$train_threads" -o "$model" "${train[@]}" 2> "$work/log"
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$work/time")
  secs=$(echo "$wall" | awk -F: '{ if (NF == 3) print $1*3600 + $2*60 + $3; else print $1*60 + $2 }')
  rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2/1024}' "$work/time")
  iters=$(grep -c '^iter' "$work/log" || true)
  size=$(du -k "$model" | awk '{printf "%.1f", $1/1024}')
  score=$("$build/chaintag" eval -m "$model" --format $fmt "${extra[@]}" --json "$dev" |
          python3 -c 'import json,sys; r=json.load(sys.stdin); print("F1 %.2f" % r["chunks"]["overall"]["f1"] if "chunks" in r else "acc %.2f" % r["accuracy"])')
  "$build/benchmarks/tag_benchmark" --model="$model" --corpus="$dev" --format=$fmt \
    --benchmark_format=json --benchmark_min_time=2 > "$work/tag.json" 2>/dev/null
  speeds=$(python3 - "$work/tag.json" <<'PY'
import json, sys
r = {b["name"]: b["items_per_second"] for b in json.load(open(sys.argv[1]))["benchmarks"]}
def get(prefix, threads):
    for k, v in r.items():
        if k.startswith(prefix) and k.endswith("threads:%d" % threads):
            return "%.0fk" % (v / 1000)
    return "?"
print(" | ".join(get(p, t) for p in ("BM_TagWithFeaturization", "BM_TagPrecomputedAttributes") for t in (1, 2)))
PY
)
  per_iter=$(awk -v s="$secs" -v i="$iters" 'BEGIN { if (i > 0) printf "%.3f", s / i; else print "?" }')
  rows+=("| $name | $secs | $iters | $per_iter | $rss | $size | $score | $speeds |")
done

echo "| task (order ${ORDER:-1}) | train wall s ($train_threads threads) | iterations | s/iteration | peak MB | model MB | dev | tag tok/s 1 thr | 2 thr | no featurization 1 thr | 2 thr |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"

#!/usr/bin/env bash
# Attribute-input training benchmark (the path of every chaintag.sklearn.CRF user): writes the
# sklearn-crfsuite tutorial's features of CoNLL-2002 Spanish as CRFsuite attribute files (with
# tools/ner-tutorial.py's own functions), trains `chaintag train --format attributes` with the
# tutorial's options (OWL-QN, c1 = c2 = 0.1, all transitions) on one thread and prints wall, CPU
# (user + sys) and CPU per iteration, peak memory and held-out (esp.testa) token accuracy and
# entity F1. With a second binary BEFORE, runs alternate between the two and the models are
# compared with cmp.
# Research-only data: the models stay in a temporary directory.
#   tools/bench-train-attributes.sh [CHAINTAG [BEFORE]]   (CORPORA=DIR, ITERATIONS=N (100),
#                                                          RUNS=N (1), THREADS=N (1))
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/chaintag}
before=${2:-}
corpora=${CORPORA:-../shared/corpora}
iterations=${ITERATIONS:-100}
runs=${RUNS:-1}
for b in "$bin" ${before:+"$before"}; do
  [ -x "$b" ] || { echo "bench-train-attributes: $b missing: build first (tools/setup.sh)" >&2; exit 1; }
done
if [ ! -f "$corpora/conll2002/esp.train" ]; then
  echo "bench-train-attributes: skipped: $corpora/conll2002/esp.train not found"
  exit 0
fi
[ -x /usr/bin/time ] || { echo "bench-train-attributes: /usr/bin/time missing (tools/setup.sh installs it)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Debian's Python has what the tutorial imports (sklearn, scipy); chaintag itself is not needed.
/usr/bin/python3 - "$corpora" "$work" <<'PY'
import importlib.util, os, sys, types
corpora, work = sys.argv[1:3]
sys.modules.setdefault("chaintag", types.ModuleType("chaintag"))  # only the feature functions
for name in ("chaintag.sklearn", "chaintag.scorers", "chaintag.metrics"):
    sys.modules.setdefault(name, types.ModuleType(name))
sys.modules["chaintag"].scorers = sys.modules["chaintag.scorers"]
sys.modules["chaintag"].metrics = sys.modules["chaintag.metrics"]
spec = importlib.util.spec_from_file_location("tutorial", "tools/ner-tutorial.py")
tutorial = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tutorial)
for split in ("esp.train", "esp.testa"):
    sents = tutorial.read_conll(os.path.join(corpora, "conll2002", split))
    tutorial.write_attributes(os.path.join(work, split + ".attributes"),
                              [tutorial.sent2features(s) for s in sents],
                              [tutorial.sent2labels(s) for s in sents])
PY
bins=("$bin")
[ -z "$before" ] || bins+=("$before")
for run in $(seq "$runs"); do
  for i in "${!bins[@]}"; do
    /usr/bin/time -o "$work/time.$i.$run" -f "%e %U %S %M" "${bins[$i]}" train --format attributes \
      --algorithm owlqn --c1 0.1 --c2 0.1 --max-iterations "$iterations" --transitions all \
      --threads "${THREADS:-1}" -o "$work/model.$i" "$work/esp.train.attributes" 2> "$work/log.$i"
  done
done
if [ -n "$before" ]; then
  if cmp -s "$work/model.0" "$work/model.1"; then same="identical"; else same="DIFFERENT"; fi
  echo "models of $bin and $before: $same"
fi
echo "load average $(cut -d' ' -f1-3 /proc/loadavg)"
for i in "${!bins[@]}"; do
  iters=$(grep -c '^iter' "$work/log.$i" || true)
  acc=$("${bins[$i]}" eval -m "$work/model.$i" --format attributes --json "$work/esp.testa.attributes" |
        python3 -c 'import json,sys; r=json.load(sys.stdin); print("token accuracy %.2f, entity F1 %.2f" % (r["accuracy"], r["chunks"]["overall"]["f1"]))')
  cat "$work"/time.$i.* | python3 -c '
import statistics, sys
name, iters, acc, runs = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
rows = [list(map(float, line.split())) for line in sys.stdin if line.strip()]
wall = statistics.median(r[0] for r in rows)
cpu = statistics.median(r[1] + r[2] for r in rows)
rss = max(r[3] for r in rows) / 1024
print("%s: %d iterations, median of %s: wall %.1f s, CPU %.1f s (%.3f CPU-s/iteration, reading "
      "included), peak %.0f MB, esp.testa %s" %
      (name, iters, runs, wall, cpu, cpu / max(iters, 1), rss, acc))' "${bins[$i]}" "$iters" "$acc" "$runs"
done

#!/usr/bin/env bash
# Python start-up benchmark: `chaintag.load()` (the shipped default pipeline, en-pos then
# en-chunk) in a fresh interpreter, RUNS times per module directory, interleaved when several are
# given; prints the median and minimum time of load() alone and of the whole process (interpreter
# start, import, load, exit).
#   tools/bench-python-load.sh [PYTHONDIR ...]   (RUNS=N, default 21; PYTHONDIR defaults to
#                                                 build/python, the directory holding chaintag/)
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || set -- build/python
for dir in "$@"; do
  [ -d "$dir/chaintag" ] || { echo "bench-python-load: $dir/chaintag missing: build chaintag_python first" >&2; exit 1; }
done
export CHAINTAG_MODELS=${CHAINTAG_MODELS:-$PWD/models}
/usr/bin/python3 - "${RUNS:-21}" "$@" <<'PY'
import os, statistics, subprocess, sys, time
runs, dirs = int(sys.argv[1]), sys.argv[2:]
child = ("import time; import chaintag; t = time.perf_counter(); chaintag.load(); "
         "print(time.perf_counter() - t)")
loads = {d: [] for d in dirs}
wholes = {d: [] for d in dirs}
for i in range(runs + 1):  # the first round warms the page cache and is not counted
    for d in dirs:
        env = dict(os.environ, PYTHONPATH=os.path.abspath(d))
        start = time.perf_counter()
        out = subprocess.run(["/usr/bin/python3", "-c", child], env=env, check=True,
                             capture_output=True, text=True).stdout
        whole = time.perf_counter() - start
        if i > 0:
            loads[d].append(float(out))
            wholes[d].append(whole)
for d in dirs:
    print("%s: chaintag.load() in a fresh process, %d runs: load median %.3f s (min %.3f), "
          "whole process median %.3f s (min %.3f)" % (
              d, runs, statistics.median(loads[d]), min(loads[d]),
              statistics.median(wholes[d]), min(wholes[d])))
PY

#!/usr/bin/env python3
"""Binding score ranges set around each sentence's Viterbi score.

For each sentence of a corpus: the plain (Viterbi) labeling's score V, then the best labeling with
its score in [V - FAR, V - NEAR] (a range the best labeling is not in). Prints the statuses (ok,
infeasible, too_large), the median resolution used and the wall and CPU seconds of both passes.
  PYTHONPATH=build/python python3 tools/bench-score-range.py MODEL CORPUS [--near 1 --far 3]
  [--limit N] [--columns K]   (CORPUS: .conllu, else CoNLL columns with the word first; K > 1
  passes the first K columns as the model's input, e.g. 2 for a chunker reading word and POS)
"""
import argparse
import collections
import statistics
import time

import chaintag


def sentences(path, columns):
    words = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.strip():
                if words:
                    yield words
                words = []
                continue
            if line.startswith("#"):
                continue
            cols = line.split("\t") if path.endswith(".conllu") else line.split()
            if path.endswith(".conllu"):
                if "-" in cols[0] or "." in cols[0]:
                    continue  # multi-word tokens and empty nodes
                words.append(cols[1])
            else:
                words.append(cols[0] if columns == 1 else tuple(cols[:columns]))
    if words:
        yield words


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("corpus")
    ap.add_argument("--near", type=float, default=1.0)
    ap.add_argument("--far", type=float, default=3.0)
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--columns", type=int, default=1)
    a = ap.parse_args()
    model = chaintag.Model.load(a.model)
    data = list(sentences(a.corpus, a.columns))
    if a.limit:
        data = data[: a.limit]
    start, start_cpu = time.perf_counter(), time.process_time()
    plain = [model.tag(s) for s in data]
    plain_seconds = time.perf_counter() - start
    plain_cpu = time.process_time() - start_cpu
    statuses = collections.Counter()
    resolutions = []
    start, start_cpu = time.perf_counter(), time.process_time()
    for s, p in zip(data, plain):
        r = model.tag(s, score_range=(p.score - a.far, p.score - a.near))
        statuses[r.status] += 1
        if getattr(r, "score_resolution", None):
            resolutions.append(r.score_resolution)
    range_seconds = time.perf_counter() - start
    range_cpu = time.process_time() - start_cpu
    n = len(data)
    print(f"{n} sentences, {sum(map(len, data))} tokens, range [V - {a.far}, V - {a.near}]")
    print("statuses: " + ", ".join(f"{k} {v} ({100.0 * v / n:.1f}%)" for k, v in sorted(statuses.items())))
    if resolutions:
        print(f"median resolution {statistics.median(resolutions):g}")
    print(f"wall: plain {plain_seconds:.2f} s, range {range_seconds:.2f} s ({range_seconds / plain_seconds:.1f}x)")
    # CPU time is what to compare on a loaded machine.
    print(f"cpu: plain {plain_cpu:.2f} s, range {range_cpu:.2f} s ({range_cpu / plain_cpu:.1f}x)")


if __name__ == "__main__":
    main()

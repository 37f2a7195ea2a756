#!/usr/bin/env python3
"""Tagging tokens/s: Python tag_many (1 and 2 threads) against the chaintag CLI, same model and
input. The CLI is timed as a whole process (model load, reading, writing to /dev/null); Python
times tag_many alone over sentences already read into column tuples (model load excluded).
Best of --repeat runs. Plain output (no P(y|x)) is compared with `--output-format conll`; with
probabilities (probability=True) with `--output-format jsonl`, which computes them.

    PYTHONPATH=build/python python3 tools/bench-python.py [--model M] [--input CONLL] [--repeat N]
"""
import argparse
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
try:
    import chaintag
except ImportError:
    sys.path.insert(0, os.path.join(ROOT, "build", "python"))
    import chaintag


def read_conll(path):
    sentences, current = [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.strip():
                if current:
                    sentences.append(current)
                    current = []
                continue
            current.append(tuple(line.split()))
    if current:
        sentences.append(current)
    return sentences


def best_of(repeat, fn):
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", default=os.path.join(ROOT, "models", "en-chunk.model"))
    ap.add_argument("--input", default=os.path.join(ROOT, "..", "shared", "corpora", "conll2000",
                                                    "dev.txt"))
    ap.add_argument("--binary", default=os.path.join(ROOT, "build", "chaintag"))
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    if not os.path.exists(args.input):
        sys.exit(f"bench-python: {args.input} not found (see corpora/README.md)")
    sentences = read_conll(args.input)
    tokens = sum(len(s) for s in sentences)
    model = chaintag.Model.load(args.model)
    print(f"{os.path.basename(args.model)} on {args.input}: {len(sentences)} sentences, "
          f"{tokens} tokens, best of {args.repeat}")
    print(f"{'what':<44} {'seconds':>8} {'tokens/s':>10}")
    rows = []
    for output, probability in (("conll", False), ("jsonl", True)):
        cmd = [args.binary, "tag", "-m", args.model, "--format", "conll", "--output-format",
               output, args.input]
        cli = best_of(args.repeat, lambda: subprocess.run(cmd, stdout=subprocess.DEVNULL,
                                                          check=True))
        rows.append((f"CLI --output-format {output}", cli))
        for threads in (1, 2):
            py = best_of(args.repeat, lambda: sum(1 for _ in model.tag_many(
                sentences, threads=threads, probability=probability)))
            rows.append((f"tag_many threads={threads} probability={probability}", py))
        for what, seconds in rows[-3:]:
            print(f"{what:<44} {seconds:8.3f} {tokens / seconds:10.0f}")
        print(f"{'  Python 1 thread / CLI':<44} {'':>8} {cli / rows[-2][1]:10.2f}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Branch-and-bound search effort of LMSBN models: nodes expanded against sentence length and
against the training loss reached (Miao and Rao's "better fit, faster search": the search visits
O(K^S) states with probability >= 1 - L(w)/S).

Trains one LMSBN per setting PASSES:C2 (at most PASSES passes of dual coordinate descent at
regularisation c2; fewer passes or a larger c2 leave a larger training hinge loss), reads the
mean training hinge per token of the model's (last) pass from the trainer's progress lines, tags
the dev file with branch-and-bound (default node budget) and with greedy decoding, and records
per sentence its length, nodes expanded and whether the search proved optimality. Prints a table
and writes an SVG: nodes against sentence length for the best- and the worst-fitting model, and
mean / median / 90th-percentile nodes against the training loss.

  tools/experiments/lmsbn-search.py --train TRAIN... --dev DEV [--format conll] [--label xpos]
                        [--preset chunk-history] [--settings 1:1,2:1,4:1,100:1,100:10]
                        [--binary build/chaintag] [--work build/lmsbn-search] [--reuse]
                        [--out docs/lmsbn-search.svg] [--threads 2]
"""
import argparse
import json
import math
import os
import re
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tools/svgplot.py
import svgplot  # noqa: E402


def run(cmd, **kw):
    start = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if p.returncode != 0:
        sys.exit("lmsbn-search: %s failed (exit %d):\n%s" % (" ".join(cmd), p.returncode, p.stderr))
    return p, time.monotonic() - start


def input_args(args):
    out = ["--format", args.format]
    if args.label:
        out += ["--label", args.label]
    return out


def train(args, passes, c2, model):
    """Trains (unless --reuse finds the model and its log); returns (final loss, seconds)."""
    log = model + ".log"
    if not (args.reuse and os.path.exists(model) and os.path.exists(log)):
        cmd = [args.binary, "train"] + input_args(args) + [
            "--preset", args.preset, "--objective", "lmsbn", "--max-iterations", str(passes),
            "--c2", str(c2), "--threads", str(args.threads), "-o", model] + args.train
        p, seconds = run(cmd)
        with open(log, "w") as f:
            f.write("# seconds %.2f\n%s" % (seconds, p.stderr))
    with open(log) as f:
        text = f.read()
    seconds = float(re.search(r"^# seconds ([0-9.]+)", text, re.M).group(1))
    losses = re.findall(r"^pass +\d+ +primal \S+ +loss (\S+)", text, re.M)
    if not losses:
        sys.exit("lmsbn-search: no 'pass ... loss' progress line in " + log)
    return float(losses[-1]), seconds


def search(args, model, greedy):
    cmd = [args.binary, "tag", "-m", model] + input_args(args) + ["--output-format", "jsonl"]
    if greedy:
        cmd += ["--bb-max-nodes", "1"]
    p, seconds = run(cmd + [args.dev])
    sentences = []
    for line in p.stdout.splitlines():
        d = json.loads(line)
        sentences.append((len(d["tokens"]), d["nodes"], d["optimal"]))
    return sentences, seconds


def accuracy(args, model, greedy):
    """Token accuracy (and chunk F1 when the labels are chunks) of the model on dev."""
    if greedy:
        tagged = os.path.join(args.work, "greedy.conll")
        run([args.binary, "tag", "-m", model] + input_args(args) +
            ["--bb-max-nodes", "1", "--output-format", "conll", "-o", tagged, args.dev])
        p, _ = run([args.binary, "eval", "--format", "conll", "--gold-column", "-2",
                    "--pred-column", "-1", tagged])
        os.remove(tagged)
    else:
        p, _ = run([args.binary, "eval", "-m", model] + input_args(args) + [args.dev])
    acc = re.search(r"accuracy: +([0-9.]+)%", p.stdout)
    f1 = re.search(r"FB1: +([0-9.]+)", p.stdout)
    return float(acc.group(1)) if acc else float("nan"), float(f1.group(1)) if f1 else None


def percentile(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(math.ceil(q * len(xs))) - 1)]


def plot(results, path):
    width, height = 1000, 470
    o = svgplot.header(width, height)
    # Left: nodes against sentence length, for the best- and the worst-fitting model.
    by_loss = sorted(results, key=lambda r: r["loss"])
    shown = [by_loss[0]] if len(by_loss) == 1 else [by_loss[0], by_loss[-1]]
    max_len = max(m for r in shown for m, _, _ in r["sentences"])
    nodes = [n for r in shown for _, n, _ in r["sentences"]]
    left = svgplot.Panel(70, 40, 370, 330, (0, max_len), svgplot.log_range(nodes))
    step = 10 if max_len <= 80 else 20
    o += left.axes([(x, str(x)) for x in range(0, max_len + 1, step)], "sentence length (tokens)",
                   "nodes expanded", "nodes against sentence length")
    entries = []
    for i, r in enumerate(shown):
        color = svgplot.COLORS[3 * i]
        o += left.dots([(m, n) for m, n, _ in r["sentences"]], color, r=1.6, opacity=0.35)
        buckets = {}
        for m, n, _ in r["sentences"]:
            buckets.setdefault(m, []).append(n)
        o += left.polyline([(m, statistics.median(v)) for m, v in sorted(buckets.items())], color)
        entries.append((color, "%s: loss %.3g (median per length)" % (r["name"], r["loss"]), False))
    o += svgplot.legend(70, 415, entries)
    # Right: nodes against the training loss reached, one point per model.
    losses = [r["loss"] for r in results]
    stats = [(r["loss"], r["mean"], r["median"], r["p90"]) for r in results]
    lo_x, hi_x = math.floor(math.log10(min(losses))), math.ceil(math.log10(max(losses)))
    if hi_x == lo_x:
        hi_x += 1
    values = [v for s in stats for v in s[1:]]
    right = svgplot.Panel(590, 40, 370, 330, (lo_x, hi_x), svgplot.log_range(values), x_log=True)
    ticks = []
    for e in range(lo_x, hi_x + 1):
        for k in (1, 2, 5):
            if lo_x <= math.log10(k * 10 ** e) <= hi_x:
                ticks.append((k * 10 ** e, "%g" % (k * 10 ** e)))
    o += right.axes(ticks, "mean training hinge loss per token (gold history)",
                    "nodes per sentence", "nodes against training loss")
    stats.sort()
    names = ["mean", "median", "90th percentile"]
    for i, name in enumerate(names):
        color = svgplot.COLORS[i]
        pts = [(s[0], s[1 + i]) for s in stats]
        o += right.polyline(pts, color, dashed=i == 2)
        o += right.dots(pts, color)
    for r in results:
        o.append('<text x="%.1f" y="%.1f" font-size="10" text-anchor="middle">%s</text>'
                 % (right.px(r["loss"]), right.py(max(r["mean"], r["p90"], 1)) - 8,
                    svgplot.escape(r["name"])))
    o += svgplot.legend(590, 415, [(svgplot.COLORS[i], n, i == 2) for i, n in enumerate(names)])
    svgplot.write(o, path)


def main():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--train", nargs="+", required=True)
    p.add_argument("--dev", required=True)
    p.add_argument("--format", default="conll")
    p.add_argument("--label", help="conllu label field (upos or xpos)")
    p.add_argument("--preset", default="chunk-history")
    p.add_argument("--settings", default="1:1,2:1,4:1,100:1,100:10",
                   help="comma-separated PASSES:C2 pairs, one model each")
    p.add_argument("--binary", default=os.path.join(root, "build", "chaintag"))
    p.add_argument("--work", default=os.path.join(root, "build", "lmsbn-search"))
    p.add_argument("--reuse", action="store_true",
                   help="reuse models (and their training logs) already in --work")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--out", default=os.path.join(root, "docs", "lmsbn-search.svg"))
    p.add_argument("--json", help="also write the per-model figures here")
    args = p.parse_args()
    os.makedirs(args.work, exist_ok=True)
    results = []
    for setting in args.settings.split(","):
        passes, c2 = setting.split(":")
        name = "%s passes, c2 %s" % (passes, c2)
        model = os.path.join(args.work, "lmsbn-%s-%s.model" % (passes, c2))
        loss, train_seconds = train(args, int(passes), float(c2), model)
        sentences, tag_seconds = search(args, model, greedy=False)
        _, greedy_seconds = search(args, model, greedy=True)
        acc, f1 = accuracy(args, model, greedy=False)
        greedy_acc, greedy_f1 = accuracy(args, model, greedy=True)
        nodes = [n for _, n, _ in sentences]
        tokens = sum(m for m, _, _ in sentences)
        r = {"name": name, "passes": int(passes), "c2": float(c2), "loss": loss,
             "train_seconds": train_seconds, "tag_seconds": tag_seconds,
             "greedy_seconds": greedy_seconds, "tokens": tokens,
             "tokens_per_second": tokens / tag_seconds, "sentences": sentences,
             "optimal": sum(1 for _, _, ok in sentences if ok) / len(sentences),
             "mean": statistics.mean(nodes), "median": statistics.median(nodes),
             "p90": percentile(nodes, 0.9), "max": max(nodes), "accuracy": acc, "f1": f1,
             "greedy_accuracy": greedy_acc, "greedy_f1": greedy_f1}
        results.append(r)
        print("%-22s loss %.4g  train %.1fs  acc %.2f (greedy %.2f)  F1 %s (greedy %s)  "
              "optimal %.2f%%  nodes mean %.1f median %g p90 %d max %d  tag %.1fs (%.0f tok/s), "
              "greedy %.1fs" % (name, loss, train_seconds, acc, greedy_acc, f1, greedy_f1,
                                100 * r["optimal"], r["mean"], r["median"], r["p90"], r["max"],
                                tag_seconds, r["tokens_per_second"], greedy_seconds), flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump([{k: v for k, v in r.items() if k != "sentences"} for r in results], f,
                      indent=1)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    plot(results, args.out)
    print("wrote", args.out)


if __name__ == "__main__":
    main()

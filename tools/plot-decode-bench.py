#!/usr/bin/env python3
"""Plots decode_benchmark results: time per sentence against M, with the O(M*N^2*R) expectation.

Runs the benchmark (or reads its --benchmark_format=json output with --json), fits one constant
c per mode in time = c * M * N^2 * R by least squares, prints a table and writes an SVG (by hand,
no plotting library needed).

  tools/plot-decode-bench.py [--binary build/benchmarks/decode_benchmark] [--json FILE]
                             [--out build/decode-bench.svg] [--min-time 0.2]
"""
import argparse
import json
import math
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import svgplot  # noqa: E402 (shared SVG helpers)

NUM_LABELS = 23  # as in the benchmark (CoNLL-2000 chunk labels)
COLORS = svgplot.COLORS


def load(args):
    if args.json:
        with open(args.json) as f:
            return json.load(f)
    out = subprocess.run([args.binary, "--benchmark_format=json",
                          "--benchmark_min_time=%s" % args.min_time],
                         check=True, capture_output=True, text=True).stdout
    if args.save_json:
        with open(args.save_json, "w") as f:
            f.write(out)
    return json.loads(out)


def series(data):
    modes = {}
    for b in data["benchmarks"]:
        if b.get("run_type", "iteration") != "iteration":
            continue
        mode = b["name"].split("/")[0].replace("BM_", "")
        scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[b.get("time_unit", "ns")]
        m, r = float(b["M"]), float(b["R"])
        modes.setdefault(mode, []).append((m, b["cpu_time"] * scale, r))
    for pts in modes.values():
        pts.sort()
    return modes


def fit(pts):
    # Least squares through the origin: t = c * x, x = M * N^2 * R.
    xs = [m * NUM_LABELS ** 2 * r for m, _, r in pts]
    num = sum(x * t for x, (_, t, _) in zip(xs, pts))
    den = sum(x * x for x in xs)
    return num / den if den else 0.0


def svg(modes, fits, path):
    w, h, left, right, top, bottom = 900, 560, 80, 220, 30, 60
    all_t = [t for pts in modes.values() for _, t, _ in pts if t > 0]
    all_t += [fits[k] * m * NUM_LABELS ** 2 * r for k, pts in modes.items() for m, _, r in pts]
    all_t = [t for t in all_t if t > 0]
    all_m = [m for pts in modes.values() for m, _, _ in pts]
    lo, hi = math.floor(math.log10(min(all_t))), math.ceil(math.log10(max(all_t)))
    m_max = max(all_m)

    def px(m):
        return left + (w - left - right) * m / m_max

    def py(t):
        return top + (h - top - bottom) * (hi - math.log10(t)) / (hi - lo)

    o = svgplot.header(w, h)
    for e in range(lo, hi + 1):
        y = py(10 ** e)
        o.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>' % (left, y, w - right, y))
        o.append('<text x="%d" y="%.1f" text-anchor="end">1e%d s</text>' % (left - 6, y + 4, e))
    for m in sorted(set(all_m)):
        x = px(m)
        o.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#eee"/>' % (x, top, x, h - bottom))
        o.append('<text x="%.1f" y="%d" text-anchor="middle">%d</text>' % (x, h - bottom + 16, m))
    o.append('<text x="%d" y="%d" text-anchor="middle">sentence length M (N = %d)</text>'
             % ((left + w - right) / 2, h - 15, NUM_LABELS))
    o.append('<text x="%d" y="%d" text-anchor="middle">CPU time per sentence (log scale); '
             'solid = measured, dashed = c * M * N^2 * R fit</text>' % ((left + w - right) / 2, 18))
    for i, (mode, pts) in enumerate(sorted(modes.items())):
        color = COLORS[i % len(COLORS)]
        meas = " ".join("%.1f,%.1f" % (px(m), py(t)) for m, t, _ in pts if t > 0)
        expect = " ".join("%.1f,%.1f" % (px(m), py(fits[mode] * m * NUM_LABELS ** 2 * r))
                          for m, _, r in pts)
        o.append('<polyline points="%s" fill="none" stroke="%s" stroke-width="2"/>' % (meas, color))
        o.append('<polyline points="%s" fill="none" stroke="%s" stroke-dasharray="5,4"/>'
                 % (expect, color))
        for m, t, _ in pts:
            o.append('<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>' % (px(m), py(t), color))
        ly = top + 20 + 20 * i
        o.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"/>'
                 % (w - right + 15, ly, w - right + 40, ly, color))
        o.append('<text x="%d" y="%d">%s (R=%s)</text>'
                 % (w - right + 45, ly + 4, mode, "%g" % pts[-1][2]))
    svgplot.write(o, path)


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--binary", default=os.path.join(root, "build", "benchmarks", "decode_benchmark"))
    p.add_argument("--json", help="read this benchmark JSON instead of running the binary")
    p.add_argument("--save-json", help="also save the JSON of the run here")
    p.add_argument("--out", default=os.path.join(root, "build", "decode-bench.svg"))
    p.add_argument("--min-time", default="0.2")
    args = p.parse_args()
    modes = series(load(args))
    if not modes:
        sys.exit("no benchmark results")
    fits = {k: fit(v) for k, v in modes.items()}
    base = dict((m, t) for m, t, _ in modes.get("Viterbi", []))
    print("%-11s %5s %8s %12s %12s %10s %9s" % ("mode", "M", "R", "time_us", "expect_us",
                                               "sent/s", "xViterbi"))
    for mode, pts in sorted(modes.items()):
        for m, t, r in pts:
            e = fits[mode] * m * NUM_LABELS ** 2 * r
            ratio = t / base[m] if m in base else float("nan")
            print("%-11s %5d %8g %12.1f %12.1f %10.0f %9.2f" % (mode, m, r, t * 1e6, e * 1e6,
                                                               1 / t if t else 0, ratio))
    for mode in sorted(fits):
        print("fit %-11s c = %.3g ns per M*N^2*R cell-transition" % (mode, fits[mode] * 1e9))
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    svg(modes, fits, args.out)
    print("wrote", args.out)


if __name__ == "__main__":
    main()

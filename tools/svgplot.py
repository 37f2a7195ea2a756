"""Shared pieces of the hand-written SVG plots of tools/ (no plotting library needed): the colour
cycle, the document frame, log-scale axes and the legend, in the style of decode-bench.svg.

Scripts in tools/ import it with `sys.path.insert(0, os.path.dirname(__file__))`.
"""
import math

COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
          "#7f7f7f", "#bcbd22", "#17becf"]


def header(width, height):
    """The opening elements of a plot: the svg element and a white background."""
    return ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" '
            'font-size="12">' % (width, height), '<rect width="100%" height="100%" fill="white"/>']


def write(parts, path):
    """Closes the document and writes it."""
    with open(path, "w") as f:
        f.write("\n".join(parts + ["</svg>"]) + "\n")


def escape(text):
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def log_range(values):
    """Whole decades [lo, hi] (exponents) covering the positive values."""
    pos = [v for v in values if v > 0]
    lo, hi = math.floor(math.log10(min(pos))), math.ceil(math.log10(max(pos)))
    return lo, max(hi, lo + 1)


class Panel:
    """A plot area at (x0, y0) of size w x h with a linear or log-10 x axis and a log-10 y axis."""

    def __init__(self, x0, y0, w, h, x_range, y_decades, x_log=False):
        self.x0, self.y0, self.w, self.h = x0, y0, w, h
        self.x_lo, self.x_hi = x_range
        self.y_lo, self.y_hi = y_decades
        self.x_log = x_log

    def px(self, x):
        if self.x_log:
            f = (math.log10(x) - self.x_lo) / (self.x_hi - self.x_lo)
        else:
            f = (x - self.x_lo) / (self.x_hi - self.x_lo)
        return self.x0 + self.w * f

    def py(self, y):
        return self.y0 + self.h * (self.y_hi - math.log10(y)) / (self.y_hi - self.y_lo)

    def axes(self, x_ticks, x_label, y_label, title):
        """Grid, tick labels (x_ticks: (value, text) pairs), axis labels and title."""
        o = ['<text x="%.1f" y="%d" text-anchor="middle" font-weight="bold">%s</text>'
             % (self.x0 + self.w / 2, self.y0 - 12, escape(title))]
        for e in range(self.y_lo, self.y_hi + 1):
            y = self.py(10 ** e)
            o.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#ddd"/>'
                     % (self.x0, y, self.x0 + self.w, y))
            o.append('<text x="%.1f" y="%.1f" text-anchor="end">1e%d</text>'
                     % (self.x0 - 6, y + 4, e))
        for value, text in x_ticks:
            x = self.px(value)
            o.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#eee"/>'
                     % (x, self.y0, x, self.y0 + self.h))
            o.append('<text x="%.1f" y="%d" text-anchor="middle">%s</text>'
                     % (x, self.y0 + self.h + 16, escape(text)))
        o.append('<text x="%.1f" y="%d" text-anchor="middle">%s</text>'
                 % (self.x0 + self.w / 2, self.y0 + self.h + 36, escape(x_label)))
        cx, cy = self.x0 - 48, self.y0 + self.h / 2
        o.append('<text x="%.1f" y="%.1f" text-anchor="middle" transform="rotate(-90 %.1f %.1f)">'
                 '%s</text>' % (cx, cy, cx, cy, escape(y_label)))
        return o

    def polyline(self, points, color, dashed=False, width=2):
        pts = " ".join("%.1f,%.1f" % (self.px(x), self.py(y)) for x, y in points if y > 0)
        return ['<polyline points="%s" fill="none" stroke="%s" stroke-width="%g"%s/>'
                % (pts, color, width, ' stroke-dasharray="5,4"' if dashed else "")]

    def dots(self, points, color, r=3, opacity=1.0):
        return ['<circle cx="%.1f" cy="%.1f" r="%g" fill="%s" fill-opacity="%g"/>'
                % (self.px(x), self.py(y), r, color, opacity) for x, y in points if y > 0]


def legend(x, y, entries):
    """entries: (color, text, dashed) triples, one line each, from (x, y) down."""
    o = []
    for i, (color, text, dashed) in enumerate(entries):
        ly = y + 18 * i
        o.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"%s/>'
                 % (x, ly, x + 25, ly, color, ' stroke-dasharray="5,4"' if dashed else ""))
        o.append('<text x="%d" y="%d">%s</text>' % (x + 30, ly + 4, escape(text)))
    return o
